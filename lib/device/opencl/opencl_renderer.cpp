#include "device/opencl/opencl_renderer.h"

#include "util/error.h"

namespace tg {

namespace {

// float -> nearest half (ties to even) -> float, without cl_khr_fp16.
constexpr const char* kHalfHelpers = R"(#ifndef TG_HALF_HELPERS
#define TG_HALF_HELPERS
float tg_half_round(float f) {
  uint x = as_uint(f), sign = x & 0x80000000u, ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return f;
  if (ax >= 0x477ff000u) return as_float(sign | 0x7f800000u);
  if (ax < 0x38800000u) return as_float(sign | as_uint(rint(as_float(ax) * 16777216.0f) / 16777216.0f));
  ax = (ax + 0x0fffu + ((ax >> 13) & 1u)) & ~0x1fffu;
  return as_float(sign | ax);
}
#endif
)";

RendererOpts opencl_opts() {
  RendererOpts o;
  o.device = "GPU";
  o.has_local = true;
  o.has_shared = true;
  o.global_max = {0x8FFFFFFF, 0x8FFFFFFF, 0x8FFFFFFF};
  o.local_max = {0x8FFFFFFF, 0x8FFFFFFF, 0x8FFFFFFF};
  o.supports_float4 = true;
  return o;
}

CStyleRenderer::Language opencl_language() {
  CStyleRenderer::Language l;
  l.kernel_prefix = "__kernel ";
  l.buffer_prefix = "__global ";
  l.smem_align = "__attribute__ ((aligned (16))) ";
  l.smem_prefix = "__local ";
  l.barrier = "barrier(CLK_LOCAL_MEM_FENCE);";
  l.group_id = "get_group_id(%d)";
  l.local_id = "get_local_id(%d)";
  l.global_id = "get_global_id(%d)";
  l.float4 = "(float4)";
  return l;
}

} // namespace

OpenCLRenderer::OpenCLRenderer() : CStyleRenderer(opencl_opts(), opencl_language()) {}

std::string OpenCLRenderer::render_dtype(DType dtype, bool value) const {
  switch (dtype) {
  case DType::Bool:
    return value ? "bool" : "uchar";
  case DType::Int8:
    return "char";
  case DType::UInt8:
    return "uchar";
  case DType::UInt16:
    return "ushort";
  case DType::UInt32:
    return "uint";
  case DType::UInt64:
    return "ulong";
  case DType::BFloat16:
    return value ? "float" : "ushort";
  case DType::Float16:
    return value ? "float" : "half";
  default:
    return CStyleRenderer::render_dtype(dtype, value);
  }
}

std::string OpenCLRenderer::render_bitcast(const std::string& x, DType from, DType to) const {
  if (from == DType::Float16 || to == DType::Float16)
    fail("RuntimeError", "render: bitcast of half is not supported on GPU");
  std::string bits = from == DType::BFloat16 ? "tg_float_to_bf16(" + x + ")" : x;
  if (to == DType::BFloat16) return "tg_bf16_to_float(as_ushort(" + bits + "))";
  return "as_" + render_dtype(to) + "(" + bits + ")";
}

std::string OpenCLRenderer::render_cast(const std::string& x, DType from, DType to) const {
  if (to == DType::Float16) return "tg_half_round((float)(" + x + "))";
  return CStyleRenderer::render_cast(x, from, to);
}

std::string OpenCLRenderer::render_load(const std::string& buf, DType buf_dtype,
                                        const std::string& idx) const {
  if (buf_dtype == DType::Float16) return "vload_half(0, " + buf + "+" + idx + ")";
  return CStyleRenderer::render_load(buf, buf_dtype, idx);
}

std::string OpenCLRenderer::render_store(const std::string& buf, DType buf_dtype, const std::string& idx,
                                         const std::string& value) const {
  if (buf_dtype == DType::Float16) return "vstore_half(" + value + ", 0, " + buf + "+" + idx + ");";
  return CStyleRenderer::render_store(buf, buf_dtype, idx, value);
}

std::string OpenCLRenderer::render_assign(DType dtype, const std::string& value) const {
  return dtype == DType::Float16 ? "tg_half_round(" + value + ")" : value;
}

std::string OpenCLRenderer::render_const(const Scalar& value, DType dtype) const {
  if (dtype == DType::Int32 && as_const(value, dtype).i == INT32_MIN) return "(-2147483647-1)";
  // OpenCL C has no `ll` suffix: 64-bit literals take `l`/`ul`.
  if (dtype == DType::Int64 || dtype == DType::UInt64) {
    Scalar v = as_const(value, dtype);
    std::string lit = dtype == DType::UInt64 ? std::to_string(uint64_t(v.i)) + "ul"
                      : v.i == INT64_MIN     ? "(-9223372036854775807l-1)"
                                             : std::to_string(v.i) + "l";
    std::string out = "(" + render_dtype(dtype) + ")(" + lit + ")";
    return dtype == DType::Int64 && v.i < 0 ? "(" + out + ")" : out;
  }
  return CStyleRenderer::render_const(value, dtype);
}

std::string OpenCLRenderer::render_prefix(const std::vector<const UOp*>& uops) const {
  std::string out;
  bool half = false, bf16 = false;
  for (const UOp* u : uops) {
    half |= u->dtype == DType::Float16;
    bf16 |= u->dtype == DType::BFloat16;
  }
  if (half) out += kHalfHelpers;
  if (bf16) out += bf16_helpers({"", "ushort", "uint", "as_float(%s)", "as_uint(%s)"});
  return out;
}

} // namespace tg
