// device layer, host code: what devices whose kernels run on this CPU (CLANG, LLVM) share:
// memory is host memory, and a loaded program is one launcher function per kernel,
// `void tg_launch_<name>(void** bufs, const int* vars)`. A kernel rendered in split form
// (ProgramKernel::vars holds core_start/core_end) runs its global range in parts on a thread
// pool — the same launch path GPUs use, with threads for work-groups.
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "device/device.h"

namespace tg {

class ThreadPool;

class HostAllocator : public Allocator {
public:
  // 64-byte aligned, zero-filled; with TG_CHECK_BOUNDS=1 guarded instead (bounds_check.h)
  void* alloc(size_t bytes) override;
  void free(void* buffer) override;
  void copyin(void* buffer, const void* host, size_t bytes) override;
  void copyout(void* host, const void* buffer, size_t bytes) override;
  void* host_view(void* buffer) override { return buffer; }
};

using HostLauncher = void (*)(void** bufs, const int* vars);

// The estimated cost (ProgramKernel::op_estimate + mem_estimate: ALU operations plus bytes
// moved) each part of a split kernel must carry: a kernel below twice this runs whole on the
// calling thread. Chosen on a 2-core Xeon VM (docs/architecture.md, "Devices"), where a split
// costs ~3-5 µs (hand-off plus data moving between cores) and the cheapest kernels do ~150-220
// units per ns: 2^18 keeps whole the small reduces that lose most (an LSTM's 4x64 @ 64x256:
// 2e5 units, 1.4 µs), yet splits every elementwise kernel that maps 2^16 or more floats to
// floats (9 units each at least), since the estimate counts a transcendental as one operation
// (a sin over 2^16 floats: 6.6e5 units, but ~0.6 ms on one core).
inline constexpr int64_t kMinPartCost = int64_t(1) << 18;

class HostProgram : public LoadedProgram {
public:
  // launchers[i] runs p.kernels[i].
  HostProgram(const Program& p, std::vector<HostLauncher> launchers);
  ~HostProgram() override;
  void launch(size_t i, void* const* bufs, const int32_t* vars, const LaunchDims& dims) override;
  bool run_lanes(int lanes, Lane lane, void* context) override;

  // How many parts kernel `i` runs in over a range of `extent`: 1 unless its estimated work
  // pays for the threads (kMinPartCost), at most one per thread and per iteration.
  int parts(size_t i, int64_t extent) const;

private:
  struct Split {
    int start = -1, end = -1; // indices of core_start/core_end in the kernel's vars
    int max_parts = 1;        // from the kernel's estimated cost
  };
  std::vector<HostLauncher> launchers_;
  std::vector<Split> splits_;
  std::vector<int32_t> part_vars_; // each part's int parameters: threads x the most vars of a kernel
  std::vector<size_t> nvars_;
  std::vector<std::string> names_;
  std::vector<size_t> nbufs_;
  std::unique_ptr<ThreadPool> pool_; // when a kernel is split and there is more than one thread
};

// A shared object with a launcher per kernel of `p` (tg_launch_<name>), dlopen'ed for as long
// as the returned program lives. An empty program needs no file.
std::unique_ptr<LoadedProgram> load_shared_object(const Program& p, const std::filesystem::path& library);

} // namespace tg
