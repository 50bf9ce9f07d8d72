// render layer, C-style languages: tinygrad 0.9.1's CStyleLanguage (renderer/cstyle.py). One
// walk over linearized UOps prints a kernel; the dialects (CLANG's C, OpenCL C, CUDA C) are
// subclasses that override only what differs: prefixes, type names, the op table, casts,
// work-item ids and the kernel's frame.
// Single-use ALU results are inlined into their user; everything else gets an SSA name
// (alu0, val0, acc0, cast0). bfloat16 is stored as an unsigned short and computed as float
// rounded to bfloat16 after every op through small helpers the source carries.
#pragma once
#include <string>
#include <vector>

#include "codegen/renderer.h"

namespace tg {

class CStyleRenderer : public Renderer {
public:
  // Language options (tinygrad's class attributes).
  struct Language {
    std::string kernel_prefix;           // "__kernel "
    std::string buffer_prefix;           // "__global "
    std::string buffer_suffix;           // " restrict"
    std::string smem_align, smem_prefix; // local memory declarations
    std::string arg_int_prefix = "const int";
    std::string barrier;
    // work-item ids: group, local, global ("get_group_id(%d)"; %d is the dimension)
    std::string group_id, local_id, global_id;
    // tinygrad's float4: how a vector is made from its elements ("(float4)", "make_float4"),
    // empty where vectors are the renderer's own (CLANG's vector_size types)
    std::string float4;
    bool smem_prefix_for_cast = true; // a vector access to local memory casts with smem_prefix
  };

  CStyleRenderer(RendererOpts opts, Language lang) : Renderer(std::move(opts)), lang_(std::move(lang)) {}
  std::string render(const std::string& function_name, const std::vector<const UOp*>& uops) const override;

  const Language& language() const { return lang_; }

  // ---- the hooks dialects override ----
  // The type of a value (value=true) or of a buffer element (value=false).
  virtual std::string render_dtype(DType dtype, bool value = true) const;
  // An ALU op over rendered operands; the result has `dtype`.
  virtual std::string code_for_op(Op op, const std::vector<std::string>& a, DType dtype) const;
  virtual std::string render_cast(const std::string& x, DType from, DType to) const;
  // `x` is an SSA name holding a value of `from`.
  virtual std::string render_bitcast(const std::string& x, DType from, DType to) const;
  // Exact for inf/nan and every dtype ("1.5f", "(-1)", "INFINITY"); negatives in parens.
  virtual std::string render_const(const Scalar& value, DType dtype) const;
  // A buffer element as a value, and the statement that stores a value into one.
  virtual std::string render_load(const std::string& buf, DType buf_dtype, const std::string& idx) const;
  virtual std::string render_store(const std::string& buf, DType buf_dtype, const std::string& idx,
                                   const std::string& value) const;
  // Vectors of `lanes` values (renderers whose opts have vector_lanes override these; the base
  // refuses): the type, a load and a store of consecutive elements, an ALU op on vectors.
  virtual std::string render_vector_dtype(DType dtype, int lanes) const;
  virtual std::string render_vector_load(const std::string& buf, DType buf_dtype, const std::string& idx,
                                         int lanes, bool local = false) const;
  virtual std::string render_vector_store(const std::string& buf, DType buf_dtype, const std::string& idx,
                                          const std::string& value, int lanes, bool local = false) const;
  // A vector of these elements (all alike: a splat), a vector constant, and lane i of a vector.
  virtual std::string render_vectorize(const std::vector<std::string>& parts, DType dtype) const;
  virtual std::string render_vector_const(const Scalar& value, DType dtype, int lanes) const;
  virtual std::string render_gep(const std::string& vec, int lanes, int i) const;
  // lanes lo <= l < hi of buf[idx + stride*l], the others 0 (a LOAD of a LaneRange); whole: the
  // elements idx .. idx + stride*lanes - 1 are inside the buffer
  virtual std::string render_vector_load_range(const std::string& buf, DType buf_dtype,
                                               const std::string& idx, const std::string& lo,
                                               const std::string& hi, const std::string& whole, int lanes,
                                               int stride) const;
  virtual std::string render_splat(DType dtype, int lanes, const std::string& scalar) const;
  virtual std::string code_for_vector_op(Op op, const std::vector<std::string>& a, DType dtype,
                                         int lanes) const;
  // The value given to a variable of `dtype` (a language whose value type is wider than the
  // dtype rounds here, as C rounds when it assigns to an __fp16 variable).
  virtual std::string render_assign(DType dtype, const std::string& value) const;
  // Lines before the kernel (includes, helpers) for these UOps.
  virtual std::string render_prefix(const std::vector<const UOp*>& uops) const;
  // The whole translation unit from the parameter list and the body's lines.
  virtual std::string render_kernel(const std::string& name, const std::vector<std::string>& params,
                                    const std::string& body, const std::vector<const UOp*>& uops) const;

protected:
  Language lang_;
};

// True when any UOp computes or stores bfloat16 (the source then carries the helpers).
bool uses_dtype(const std::vector<const UOp*>& uops, DType dtype);

// C helpers for bfloat16 stored as unsigned short (tg_bf16_to_float, tg_float_to_bf16 with
// round-to-nearest-even, tg_bf16_round), guarded so that kernels concatenate, in a dialect's
// words: `qualifier` starts each function; `float_of_bits`/`bits_of_float` wrap "%s".
struct Bf16Words {
  std::string qualifier, ushort_type, uint_type, float_of_bits, bits_of_float;
};
std::string bf16_helpers(const Bf16Words& w);

} // namespace tg
