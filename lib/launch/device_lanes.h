// launch layer: the devices of one program running at the same time in one process (two CLANG
// devices on a 2-core machine use both cores, as tinygrad's devices each have their own queue).
// Each lane is a thread that launches the kernels of its devices in program order, each kernel
// whole on that thread; before a kernel it waits until the other lanes have run the kernels it
// depends on (those that last touched one of its buffers). Results are bit for bit those of
// one kernel at a time: every kernel computes the same values from the same inputs.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "codegen/program.h"

namespace tg {

struct LanePlan {
  int lanes = 0;                            // 0 or 1: one kernel at a time, as the program lists them
  std::vector<std::vector<size_t>> kernels; // per lane: its kernels in program order
  // per lane, per position: (another lane, how many of its kernels must have run first)
  std::vector<std::vector<std::vector<std::pair<int, size_t>>>> waits;
};

// The kernels with `init` of p, on at most `threads` lanes. One lane (no plan) where the program
// has one device there, random kernels (filled on the host), or where the devices' estimated work is too
// uneven for whole kernels on one thread each to beat kernels split over every thread.
LanePlan plan_lanes(const Program& p, bool init, int threads);

} // namespace tg
