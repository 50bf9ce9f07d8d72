// ops layer: evaluating one ALU op on Python-like scalars (tinygrad's python_alu + truncate),
// used for constant folding in the lazy graph.
#pragma once
#include <vector>

#include "ops/ops.h"

namespace tg {

// The value of `op` over `operands` as tinygrad 0.9.1's exec_alu computes it for `dtype`.
Scalar exec_alu(Op op, DType dtype, const std::vector<Scalar>& operands);
// tinygrad's truncate table: wraps ints, rounds float32; float16 only saturates to inf.
Scalar truncate_const(const Scalar& v, DType dtype);

} // namespace tg
