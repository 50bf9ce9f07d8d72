// codegen layer: panel packing for host kernels (pack_panels.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "codegen/uops.h"

namespace tg {

// Rewrites a linearized host kernel so that an input read in a reduce loop at a large stride,
// the same elements for every iteration of the global loop around it (a matmul's B operand:
// B[k*N + j0 .. j0+31] for each k, for every row tile), is first copied into a contiguous local
// array before that global loop, and read from there. Global loops between that loop and the
// reduce loop that the index moves with (Kernel::block_columns' inner column blocks) give one
// panel per iteration, side by side in the same array. Returns how many panels it packed.
// `max_bytes` bounds the local arrays of one kernel (they live on the stack).
int pack_panels(std::vector<const UOp*>& uops, UOpGraph& g, int64_t max_bytes);

} // namespace tg
