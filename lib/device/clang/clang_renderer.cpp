#include "device/clang/clang_renderer.h"

namespace tg {

namespace {

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
  if (uses_dtype(uops, DType::BFloat16))
    return out + bf16_helpers({"static inline ", "unsigned short", "unsigned int",
                               "__builtin_bit_cast(float, %s)", "__builtin_bit_cast(unsigned int, %s)"});
  return out;
}

} // namespace tg
