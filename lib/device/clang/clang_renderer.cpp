#include "device/clang/clang_renderer.h"

namespace tg {

namespace {

constexpr const char* kBf16Helpers = R"(#ifndef TG_BF16_HELPERS
#define TG_BF16_HELPERS
static inline float tg_bf16_to_float(unsigned short x) {
  return __builtin_bit_cast(float, (unsigned int)x << 16);
}
static inline unsigned short tg_float_to_bf16(float x) {
  unsigned int u = __builtin_bit_cast(unsigned int, x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
  return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static inline float tg_bf16_round(float x) { return tg_bf16_to_float(tg_float_to_bf16(x)); }
#endif
)";

RendererOpts clang_opts() {
  RendererOpts o;
  o.device = "CLANG";
  o.splits_outer_loop = true;
  return o;
}

CStyleRenderer::Language clang_language() {
  CStyleRenderer::Language l;
  l.buffer_suffix = " restrict";
  return l;
}

} // namespace

ClangRenderer::ClangRenderer() : CStyleRenderer(clang_opts(), clang_language()) {}

std::string ClangRenderer::render_dtype(DType dtype, bool value) const {
  if (dtype == DType::Bool) return "_Bool";
  if (dtype == DType::Float16) return "__fp16";
  return CStyleRenderer::render_dtype(dtype, value);
}

std::string ClangRenderer::code_for_op(Op op, const std::vector<std::string>& a, DType dtype) const {
  if (op == Op::MAX) return "((" + a[0] + ">" + a[1] + ")?" + a[0] + ":" + a[1] + ")";
  return CStyleRenderer::code_for_op(op, a, dtype);
}

std::string ClangRenderer::render_bitcast(const std::string& x, DType from, DType to) const {
  std::string bits = from == DType::BFloat16 ? "tg_float_to_bf16(" + x + ")" : x;
  if (to == DType::BFloat16) return "tg_bf16_to_float(__builtin_bit_cast(unsigned short, " + bits + "))";
  return "__builtin_bit_cast(" + render_dtype(to) + ", " + bits + ")";
}

std::string ClangRenderer::render_prefix(const std::vector<const UOp*>& uops) const {
  std::string out = "#include <tgmath.h>\n";
  for (const UOp* u : uops)
    if (u->dtype == DType::BFloat16) return out + kBf16Helpers;
  return out;
}

} // namespace tg
