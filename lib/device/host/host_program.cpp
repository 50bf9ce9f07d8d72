#include "device/host/host_program.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <iterator>
#include <mutex>
#include <sys/mman.h>
#include <unordered_map>

#include "device/host/bounds_check.h"
#include "runtime/thread_pool.h"
#include "util/error.h"
#include "util/parallel.h"

namespace tg {

namespace {
// Large buffers come from mmap: the kernel zero-fills their pages when first touched, so a
// buffer pays for the bytes a program uses, not for a memset of all of them (a buffer table
// edited to 2^32 elements allocates at once instead of writing 16 GB of zeros).
constexpr size_t kMappedBytes = size_t(1) << 20;
std::mutex g_mapped_mu;
std::unordered_map<void*, size_t> g_mapped; // mapped buffer -> length
} // namespace

void* HostAllocator::alloc(size_t bytes) {
  if (bounds_checking()) return guarded_alloc(bytes);
  size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded == 0) rounded = 64;
  if (rounded >= kMappedBytes) {
    void* p =
        ::mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) fail("RuntimeError", "out of memory allocating " + std::to_string(bytes) + " bytes");
    std::lock_guard<std::mutex> lock(g_mapped_mu);
    g_mapped.emplace(p, rounded);
    return p;
  }
  void* p = std::aligned_alloc(64, rounded);
  if (!p) fail("RuntimeError", "out of memory allocating " + std::to_string(bytes) + " bytes");
  std::memset(p, 0, rounded);
  return p;
}

void HostAllocator::free(void* buffer) {
  if (bounds_checking()) return guarded_free(buffer);
  {
    std::lock_guard<std::mutex> lock(g_mapped_mu);
    if (auto it = g_mapped.find(buffer); it != g_mapped.end()) {
      ::munmap(it->first, it->second);
      g_mapped.erase(it);
      return;
    }
  }
  std::free(buffer);
}

void HostAllocator::copyin(void* buffer, const void* host, size_t bytes) {
  if (bytes) std::memcpy(buffer, host, bytes);
}

void HostAllocator::copyout(void* host, const void* buffer, size_t bytes) {
  if (bytes) std::memcpy(host, buffer, bytes);
}

HostProgram::HostProgram(const Program& p, std::vector<HostLauncher> launchers)
    : launchers_(std::move(launchers)) {
  const int threads = host_threads();
  bool any_split = false, any_pooled = false;
  size_t most_vars = 0;
  for (const ProgramKernel& k : p.kernels) {
    Split s;
    for (size_t v = 0; v < k.vars.size(); ++v) {
      if (k.vars[v] == kSplitStartVar) s.start = int(v);
      if (k.vars[v] == kSplitEndVar) s.end = int(v);
    }
    if ((s.start < 0) != (s.end < 0))
      fail("RuntimeError", "kernel '" + k.name + "' has only one of core_start and core_end");
    // A kernel without estimates (an artifact written before they existed) counts its iterations.
    int64_t cost = k.op_estimate > 0 || k.mem_estimate > 0 ? k.op_estimate + k.mem_estimate : k.work;
    s.max_parts = int(std::clamp<int64_t>(cost / kMinPartCost, 1, threads));
    any_split |= s.start >= 0;
    any_pooled |= s.start >= 0 && s.max_parts > 1;
    splits_.push_back(s);
    nvars_.push_back(k.vars.size());
    most_vars = std::max(most_vars, k.vars.size());
    names_.push_back(k.name);
    nbufs_.push_back(k.bufs.size());
  }
  if (any_split) part_vars_.resize(size_t(threads) * most_vars);
  if (any_pooled) pool_ = std::make_unique<ThreadPool>(threads);
}

HostProgram::~HostProgram() = default;

int HostProgram::parts(size_t i, int64_t extent) const {
  const Split& s = splits_.at(i);
  if (s.start < 0 || !pool_) return 1;
  return int(std::clamp<int64_t>(extent, 1, s.max_parts));
}

namespace {

// One launch of a split kernel: part k runs [extent * k / parts, extent * (k + 1) / parts).
struct SplitLaunch {
  HostLauncher launcher;
  void** bufs;
  const int32_t* vars;
  size_t nvars;
  int start, end; // indices of core_start/core_end in vars
  int64_t extent;
  int parts;
  int32_t* part_vars; // parts x nvars

  void operator()(int k) const {
    int32_t* mine = part_vars + size_t(k) * nvars;
    std::copy(vars, vars + nvars, mine);
    mine[start] = int32_t(extent * k / parts);
    // The last part's end is open: the kernel stops at its own bound (see split_outer_loop).
    mine[end] = k + 1 == parts ? INT32_MAX : int32_t(extent * (k + 1) / parts);
    launcher(bufs, mine);
  }
};

} // namespace

namespace {
thread_local bool t_in_lane = false; // launches run whole on this thread (run_lanes)
} // namespace

bool HostProgram::run_lanes(int lanes, Lane lane, void* context) {
  // (bounds checking reports through exceptions, which a lane must not throw)
  if (bounds_checking() || lanes > host_threads()) return false;
  if (!pool_) pool_ = std::make_unique<ThreadPool>(host_threads()); // (no kernel splits)
  if (lanes > pool_->size()) return false;
  auto one = [&](int l) {
    t_in_lane = true;
    lane(context, l);
    t_in_lane = false;
  };
  pool_->run(lanes, one);
  return true;
}

void HostProgram::launch(size_t i, void* const* bufs, const int32_t* vars, const LaunchDims& dims) {
  void** args = const_cast<void**>(bufs);
  const Split& s = splits_.at(i);
  struct Running { // names the kernel in a TG_CHECK_BOUNDS report
    explicit Running(const std::string& name) { set_running_kernel(name.c_str()); }
    ~Running() { set_running_kernel(nullptr); }
  } running(names_[i]);
  if (s.start < 0) {
    launchers_[i](args, vars);
  } else if (t_in_lane) { // the whole range on this thread, with its own copy of the parameters
    int32_t small[32];
    std::vector<int32_t> large(nvars_[i] > std::size(small) ? nvars_[i] : 0);
    int32_t* mine = large.empty() ? small : large.data();
    std::copy(vars, vars + nvars_[i], mine);
    mine[s.start] = 0;
    mine[s.end] = INT32_MAX;
    launchers_[i](args, mine);
  } else {
    const int64_t extent = dims.global[0];
    const int n = parts(i, extent);
    SplitLaunch split{launchers_[i], args, vars, nvars_[i], s.start, s.end, extent, n, part_vars_.data()};
    if (n <= 1)
      split(0);
    else
      pool_->run(n, split);
  }
  if (bounds_checking()) check_canaries(names_[i].c_str(), bufs, nbufs_[i]);
}

namespace {

class SharedObject : public HostProgram {
public:
  SharedObject(const Program& p, void* handle, std::vector<HostLauncher> launchers)
      : HostProgram(p, std::move(launchers)), handle_(handle) {}
  ~SharedObject() override { dlclose(handle_); }

private:
  void* handle_;
};

} // namespace

std::unique_ptr<LoadedProgram> load_shared_object(const Program& p, const std::filesystem::path& library) {
  if (p.kernels.empty()) return std::make_unique<HostProgram>(p, std::vector<HostLauncher>{});
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) fail("RuntimeError", "cannot load " + library.string() + ": " + dlerror());
  std::vector<HostLauncher> launchers;
  for (const ProgramKernel& k : p.kernels) {
    void* sym = dlsym(handle, ("tg_launch_" + k.name).c_str());
    if (!sym) {
      dlclose(handle);
      fail("RuntimeError", "kernel '" + k.name + "' missing from " + library.string());
    }
    launchers.push_back(reinterpret_cast<HostLauncher>(sym));
  }
  return std::make_unique<SharedObject>(p, handle, std::move(launchers));
}

} // namespace tg
