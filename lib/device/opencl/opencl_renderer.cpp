#include "device/opencl/opencl_renderer.h"

namespace tg {

namespace {

// Guarded: a program's kernels are compiled as one source.
constexpr const char* kBf16Helpers = R"(#ifndef TG_BF16_HELPERS
#define TG_BF16_HELPERS
float tg_bf16_to_float(ushort x) { return as_float((uint)x << 16); }
ushort tg_float_to_bf16(float x) {
  uint u = as_uint(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
  return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
float tg_bf16_round(float x) { return tg_bf16_to_float(tg_float_to_bf16(x)); }
#endif
)";

RendererOpts opencl_opts() {
  RendererOpts o;
  o.device = "GPU";
  o.has_local = true;
  o.has_shared = true;
  o.global_max = {0x8FFFFFFF, 0x8FFFFFFF, 0x8FFFFFFF};
  o.local_max = {0x8FFFFFFF, 0x8FFFFFFF, 0x8FFFFFFF};
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
  default:
    return CStyleRenderer::render_dtype(dtype, value);
  }
}

std::string OpenCLRenderer::render_bitcast(const std::string& x, DType from, DType to) const {
  std::string bits = from == DType::BFloat16 ? "tg_float_to_bf16(" + x + ")" : x;
  if (to == DType::BFloat16) return "tg_bf16_to_float(as_ushort(" + bits + "))";
  return "as_" + render_dtype(to) + "(" + bits + ")";
}

std::string OpenCLRenderer::render_const(const Scalar& value, DType dtype) const {
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
  if (half) out += "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n";
  if (bf16) out += kBf16Helpers;
  return out;
}

} // namespace tg
