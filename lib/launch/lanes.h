// launch layer: kernels of one program running at the same time in one process, each lane (a
// thread) launching its kernels in program order, each kernel whole on that thread; before a
// kernel a lane waits until the other lanes have run the kernels it depends on (those that last
// touched one of its buffers). Results are bit for bit those of one kernel at a time: every
// kernel computes the same values from the same inputs. Lanes are the program's devices (two
// CLANG devices on a 2-core machine use both cores, as tinygrad's devices each have their own
// queue) or, on one device, independent chains of kernels too small to split over threads (a
// bidirectional LSTM's two directions).
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

// The kernels with `init` of p, on at most `threads` lanes: by device where the devices' estimated
// work is even enough, else by chain where that is estimated to beat one kernel at a time with
// big kernels split over every thread. No plan (lanes 0) where neither pays, or with random
// kernels (filled on the host).
LanePlan plan_lanes(const Program& p, bool init, int threads);

} // namespace tg
