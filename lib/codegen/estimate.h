// codegen layer: a kernel's cost estimates, tinygrad 0.9.1's op_estimate and mem_estimate, so
// `tg-run --time` can print GFLOP/s and GB/s and `jq` can read them before anything runs.
#pragma once
#include <cstdint>
#include <vector>

#include "codegen/uops.h"
#include "ops/ops.h"

namespace tg {

struct CostEstimate {
  int64_t flops = 0; // ALU operations
  int64_t mem = 0;   // bytes loaded and stored
};

// ops.py's get_lazyop_info: an AST's flops (each node's once: elementwise and reduce ops count
// their input's elements; casts are free) and the bytes of each buffer it reads or writes (its
// view's real size).
CostEstimate ast_estimate(const LazyOp& root);
// uops.py's flops_mem: each ALU, LOAD and STORE times the trip counts of the loops around it.
// A host kernel's split outer loop counts its whole range.
CostEstimate uops_estimate(const std::vector<const UOp*>& uops);
// linearizer.py's to_program: the smaller of the two, the UOps' counted over every work-item
// (run_count: the launch's work-items; 1 on hosts, whose loops are in the UOps).
CostEstimate kernel_estimate(const LazyOp& root, const std::vector<const UOp*>& uops, int64_t run_count);

} // namespace tg
