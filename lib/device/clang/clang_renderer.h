// CLANG device, renderer: tinygrad 0.9.1's ClangRenderer (renderer/cstyle.py): C with
// `restrict` buffers, loops for every dimension, _Bool and __fp16, MAX as a conditional.
#pragma once
#include "render/cstyle.h"

namespace tg {

class ClangRenderer : public CStyleRenderer {
public:
  ClangRenderer();
  std::string render_dtype(DType dtype, bool value = true) const override;
  std::string code_for_op(Op op, const std::vector<std::string>& a, DType dtype) const override;
  std::string render_bitcast(const std::string& x, DType from, DType to) const override;
  std::string render_prefix(const std::vector<const UOp*>& uops) const override;
};

} // namespace tg
