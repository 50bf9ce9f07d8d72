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
  // Per argument, the bytes of its buffer the kernel's accesses can reach (highest index + 1,
  // times the item size): tg-run refuses a program whose buffers are smaller.
  Shape extents; // symbolic where the kernel's views are: tg-run checks them at its --var values
  // int parameters after the buffers, in order: symbolic variables, and on host devices
  // core_start/core_end, the part of global dimension 0 one call computes.
  std::vector<std::string> vars;
  // Launch grid: work-groups (GPU) or, on host devices, the range tg-run splits over threads.
  Shape global_size{1, 1, 1}; // symbolic where the kernel's launch dims are: tg-run evaluates it
  std::vector<int64_t> local_size{1, 1, 1};
  bool init = false; // computes a state's first value (see ScheduleKernel::init)
  // "" for a compiled kernel; "random": no source, tg-run fills bufs[0] with numpy's
  // default_rng(seed) numbers (tinygrad's custom_random), the seed plus bufs[1]'s int64 if any.
  std::string custom{};
  int64_t seed = 0;
  int64_t work = 0; // loop iterations in all (prod of the full shape): a cost estimate
  // tinygrad's Program.op_estimate and mem_estimate: ALU operations, and bytes loaded and stored,
  // per launch (tg-run --time prints GFLOP/s and GB/s from them).
  int64_t op_estimate = 0, mem_estimate = 0;
  // The device it runs on, of the program's device type ("CLANG:1" under CLANG, "LLVM:1" under
  // LLVM); "" for the default device. Buffers name theirs in BufferInfo::device.
  std::string device{};
};

struct Program {
  std::string device; // a registered device name (device/registry.h)
  std::vector<BufferInfo> buffers;
  std::vector<ProgramKernel> kernels;
  std::vector<NamedBuffer> inputs;
  std::vector<NamedBuffer> outputs;
  std::vector<NamedBuffer> states;
  std::vector<VarBinding> vars; // the symbolic variables, bound by tg-run --var (default: the script's)
};

} // namespace tg
