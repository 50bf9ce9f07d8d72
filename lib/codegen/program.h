// The program artifact (tg-codegen's output): rendered source per kernel for one device,
// with the buffer table and named inputs/outputs carried over from the schedule.
#pragma once
#include <string>
#include <vector>

#include "schedule/schedule.h"

namespace tg {

struct ProgramKernel {
  std::string name;      // function name in src, e.g. "r_4_8"
  std::string src;       // complete translation unit for the device
  std::vector<int> bufs; // BufferInfo ids in argument order
  std::vector<int64_t> global_size{1, 1, 1};
  std::vector<int64_t> local_size{1, 1, 1};
  bool init = false; // computes a state's first value (see ScheduleKernel::init)
  // Extent of the outermost loop when its iterations are independent (a global dimension):
  // tg-run may split it across threads; 0 = run whole. work: loop iterations in all.
  int64_t parallel = 0;
  int64_t work = 0;
};

struct Program {
  std::string device; // "CLANG"
  std::vector<BufferInfo> buffers;
  std::vector<ProgramKernel> kernels;
  std::vector<NamedBuffer> inputs;
  std::vector<NamedBuffer> outputs;
  std::vector<NamedBuffer> states;
};

} // namespace tg
