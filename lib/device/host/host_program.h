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
};

using HostLauncher = void (*)(void** bufs, const int* vars);

class HostProgram : public LoadedProgram {
public:
  // launchers[i] runs p.kernels[i].
  HostProgram(const Program& p, std::vector<HostLauncher> launchers);
  ~HostProgram() override;
  void launch(size_t i, void* const* bufs, const int32_t* vars, const LaunchDims& dims) override;

private:
  struct Split {
    int start = -1, end = -1; // indices of core_start/core_end in the kernel's vars
  };
  std::vector<HostLauncher> launchers_;
  std::vector<Split> splits_;
  std::vector<size_t> nvars_;
  std::vector<std::string> names_;
  std::vector<size_t> nbufs_;
  std::unique_ptr<ThreadPool> pool_; // when a kernel is split and there is more than one thread
};

// A shared object with a launcher per kernel of `p` (tg_launch_<name>), dlopen'ed for as long
// as the returned program lives. An empty program needs no file.
std::unique_ptr<LoadedProgram> load_shared_object(const Program& p, const std::filesystem::path& library);

} // namespace tg
