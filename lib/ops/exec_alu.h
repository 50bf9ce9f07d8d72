// ops layer: the one evaluator of ALU ops on constants (tinygrad's exec_alu: python_alu, then
// truncate), used by the lazy graph's constant folding, the UOp folder and the ONNX importer.
#pragma once
#include <optional>
#include <vector>

#include "ops/ops.h"

namespace tg {

// The value of `op` over `operands` as tinygrad 0.9.1's exec_alu computes it for `dtype`:
// Python arithmetic on the operands' values (ints exact, as Python's are unbounded), then
// truncated to `dtype`. `operand_dtype` says how the operands hold their values (an unsigned
// 64-bit int above 2^63 included); without it, it is `dtype`, or for a comparison whatever the
// operands' kinds say. Where Python raises (integer modulo by zero, a shift by a negative
// count, a bit op on floats, int(inf)) this raises the same error.
Scalar exec_alu(Op op, DType dtype, const std::vector<Scalar>& operands,
                std::optional<DType> operand_dtype = std::nullopt);
// exec_alu, or nothing where it raises: for folders that leave such an op to run instead.
std::optional<Scalar> try_exec_alu(Op op, DType dtype, const std::vector<Scalar>& operands,
                                   std::optional<DType> operand_dtype = std::nullopt);
// tinygrad's truncate table: wraps ints, rounds float32; float16 only saturates to inf.
Scalar truncate_const(const Scalar& v, DType dtype);

} // namespace tg
