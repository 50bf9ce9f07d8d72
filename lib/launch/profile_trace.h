// launch layer, `tg-run --profile FILE.json`: the launches of a run as a Chrome / Perfetto trace
// (the Trace Event Format: chrome://tracing and ui.perfetto.dev open it). One track for the
// steps, one for the device's kernels; each kernel event carries its name, step, GFLOP/s, GB/s
// and the bytes and operations the program estimates for it.
#pragma once
#include <string>
#include <vector>

#include "codegen/program.h"
#include "launch/runner.h"

namespace tg {

std::string profile_trace_json(const Program& program, const std::vector<KernelEvent>& events);

} // namespace tg
