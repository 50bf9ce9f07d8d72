// CLANG device, renderer: tinygrad 0.9.1's ClangRenderer (renderer/cstyle.py): C with
// `restrict` buffers, loops for every dimension, _Bool and __fp16, MAX as a conditional.
// Vectors (tg's host optimizer) are GCC-style vector_size types, which gcc and clang both
// compile, with small helpers for the unaligned loads and stores, splats and MAX.
#pragma once
#include "render/cstyle.h"

namespace tg {

class ClangRenderer : public CStyleRenderer {
public:
  ClangRenderer();
  std::string render_dtype(DType dtype, bool value = true) const override;
  std::string code_for_op(Op op, const std::vector<std::string>& a, DType dtype) const override;
  std::string render_bitcast(const std::string& x, DType from, DType to) const override;
  std::string render_cast(const std::string& x, DType from, DType to) const override;
  std::string render_prefix(const std::vector<const UOp*>& uops) const override;
  std::string render_vector_dtype(DType dtype, int lanes) const override;
  std::string render_vector_load(const std::string& buf, DType buf_dtype, const std::string& idx, int lanes,
                                 bool local = false) const override;
  std::string render_vector_store(const std::string& buf, DType buf_dtype, const std::string& idx,
                                  const std::string& value, int lanes, bool local = false) const override;
  std::string render_vector_load_range(const std::string& buf, DType buf_dtype, const std::string& idx,
                                       const std::string& lo, const std::string& hi, const std::string& whole,
                                       int lanes, int stride) const override;
  std::string render_splat(DType dtype, int lanes, const std::string& scalar) const override;
  std::string code_for_vector_op(Op op, const std::vector<std::string>& a, DType dtype,
                                 int lanes) const override;

protected:
  // The typedefs and helpers of the vector types these UOps use (guarded: sources concatenate).
  std::string vector_prefix(const std::vector<const UOp*>& uops) const;
  // tg_float_odd (double to half in two exact steps) when the UOps cast double to half. `bits` and
  // `from_bits` are printf formats for float <-> unsigned int bit casts.
  std::string half_cast_prefix(const std::vector<const UOp*>& uops, const std::string& bits,
                               const std::string& from_bits) const;
};

} // namespace tg
