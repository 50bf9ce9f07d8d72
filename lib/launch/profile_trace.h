// launch layer, `tg-run --profile FILE.json`: the launches of a run as a Chrome / Perfetto trace
// (the Trace Event Format: chrome://tracing and ui.perfetto.dev open it). One track for the
// steps, one for the device's kernels; each kernel event carries its name, step, GFLOP/s, GB/s
// and the bytes and operations the program estimates for it. Under --dist, one process per rank.
#pragma once
#include <string>
#include <vector>

#include "codegen/program.h"
#include "dist/transport.h"
#include "launch/runner.h"

namespace tg {

std::string profile_trace_json(const Program& program, const std::vector<KernelEvent>& events);

// Under --dist: one process per rank in one trace, its events shifted to rank 0's clock.
// `per_rank[r]`: rank r's events.
std::string profile_trace_json(const Program& program, const std::vector<std::vector<KernelEvent>>& per_rank);

// Every rank's events at rank 0, their start times on rank 0's clock (`run_start_us`: each
// rank's run start on its steady clock). Every rank calls it; the others get nothing back.
std::vector<std::vector<KernelEvent>>
gather_events(Transport& transport, const std::vector<KernelEvent>& mine, double run_start_us);

} // namespace tg
