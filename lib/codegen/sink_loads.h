// codegen layer: loads moved past the loop they do not need (host kernels of tg's optimizer).
#pragma once
#include <vector>

#include "codegen/uops.h"

namespace tg {

// Moves each read of an input that only the code after a loop uses (a fused epilogue's batch
// norm parameters, a residual input), and the arithmetic on it that only that code uses, from
// before the loop to just after it. tinygrad's toposort places such loads as soon as they can
// run, before the reduce; with a register tile of 16 vector accumulators, a residual tile of 16
// more vectors then lives across the whole reduce loop and the accumulators spill (ResNet-50's
// 1x1 conv + BN + residual + ReLU: 92 GFLOP/s, where the same conv without the residual runs at
// 170). Loads of buffers the kernel writes stay where they are; no value changes.
void sink_loads_past_loops(std::vector<const UOp*>& uops);

} // namespace tg
