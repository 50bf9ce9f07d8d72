// codegen layer: a kernel AST's structure as bytes, so that kernels with the same AST (a
// ResNet's repeated blocks: 599 kernels, 133 distinct) are optimized and lowered once.
#pragma once
#include <string>
#include <vector>

#include "ops/ops.h"

namespace tg {

// Equal keys mean equal ASTs: every op, arg (dtypes, axes, buffer indices, constants bit for
// bit, ShapeTrackers) and which sources are shared. Iterative: ASTs can be thousands deep.
std::string ast_key(const std::vector<LazyOpPtr>& ast);

} // namespace tg
