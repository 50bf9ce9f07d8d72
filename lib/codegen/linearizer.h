// codegen layer, linearizer: tinygrad 0.9.1's codegen/linearizer.py for targets without
// local memory (CLANG, LLVM). Global dims become loops (RANGE), reduce dims become inner
// RANGE loops around DEFINE_ACC accumulators, upcasted dims are unrolled into copies of the
// body, and each buffer access goes through its ShapeTracker's (index, valid) expressions.
#pragma once
#include <map>
#include <string>

#include "codegen/kernel.h"
#include "codegen/uops.h"

namespace tg {

// The kernel's UOp graph: a SINK over every STORE plus every buffer's DEFINE_GLOBAL (so each
// buffer keeps its parameter even when the kernel never reads it). Not yet rewritten. On
// targets with work-items the global (and local) dims are SPECIAL ids, and the launch sizes
// come with the graph; elsewhere they are loops and the sizes are empty.
struct LinearizedKernel {
  const UOp* sink = nullptr;
  Shape global_size; // (x, y, z) order, as launched; symbolic dims evaluated at launch
  std::vector<int64_t> local_size;
};
LinearizedKernel linearize_kernel(const Kernel& k, UOpGraph& g);

// Symbolic index math as UOps: Num -> CONST, Var -> its loop (or a DEFINE_VAR), Mul/Div/Mod/Lt
// -> ALU with a constant, Sum -> chained ADD, And -> chained MUL of bools.
const UOp* expr_to_uop(const Expr& e, const std::map<std::string, const UOp*>& loops, UOpGraph& g);

} // namespace tg
