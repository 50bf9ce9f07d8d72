#include "device/host/bounds_check.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

#include "util/error.h"

namespace tg {

namespace {
std::atomic<bool> g_required{false};
// why the checks are on, for the report
std::atomic<const char*> g_reason{"TG_CHECK_BOUNDS"};
} // namespace

namespace {

struct Region {
  uintptr_t map; // start of the mapping: [guard page][data pages][guard page]
  size_t map_size;
  uintptr_t data; // the buffer: data .. data + bytes, ending at the second guard page
  size_t bytes;
};

// Read by the fault handler without the lock: regions change only between launches, on the
// thread that allocates, while a fault comes from a kernel running.
std::mutex g_lock;
std::vector<Region> g_regions;
std::atomic<const char*> g_kernel{nullptr};
struct sigaction g_previous_segv, g_previous_bus;
constexpr unsigned char kCanary = 0xa5;

size_t page_size() {
  static const size_t size = size_t(sysconf(_SC_PAGESIZE));
  return size;
}

void say(const char* text) {
  size_t n = std::strlen(text);
  while (n > 0) {
    ssize_t w = write(STDERR_FILENO, text, n);
    if (w <= 0) return;
    text += w;
    n -= size_t(w);
  }
}

void on_fault(int sig, siginfo_t* info, void* context) {
  uintptr_t at = reinterpret_cast<uintptr_t>(info->si_addr);
  for (const Region& r : g_regions) {
    if (at < r.map || at >= r.map + r.map_size) continue;
    char line[512];
    const char* kernel = g_kernel.load();
    const char* tool = program_invocation_short_name;
    std::snprintf(line, sizeof line, "%s: kernel '%s' accessed byte %lld of a %zu-byte buffer (%s)\n", tool,
                  kernel ? kernel : "?", (long long)(at - r.data), r.bytes, g_reason.load());
    say(line);
    // exit_group, not _exit: ASan warns about a noreturn call made on a signal stack
    syscall(SYS_exit_group, 1);
  }
  // Not a guard page: whoever handled the signal before us does.
  const struct sigaction& prev = sig == SIGBUS ? g_previous_bus : g_previous_segv;
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction) return prev.sa_sigaction(sig, info, context);
  } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
    return prev.sa_handler(sig);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_previous_segv);
    sigaction(SIGBUS, &sa, &g_previous_bus);
  });
}

} // namespace

bool bounds_checking() {
  static const bool on = [] {
    const char* v = std::getenv("TG_CHECK_BOUNDS");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return on || g_required.load(std::memory_order_relaxed);
}

void require_bounds_checking() {
  if (!bounds_checking())
    g_reason.store("TG_CHECK_BOUNDS, on for a program this machine's tg-codegen did not write");
  g_required.store(true, std::memory_order_relaxed);
}

void* guarded_alloc(size_t bytes) {
  install_handler();
  const size_t page = page_size();
  // End exactly at the guard page, aligned as the largest power of two (up to 8, the widest
  // scalar) that divides the size, so that even a one-element overrun faults.
  size_t align = 8;
  while (align > 1 && bytes % align != 0) align /= 2;
  size_t data_pages = (bytes + page - 1) / page;
  size_t map_size = (data_pages + 2) * page;
  void* map = mmap(nullptr, map_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) fail("RuntimeError", "out of memory allocating " + std::to_string(bytes) + " bytes");
  uintptr_t base = reinterpret_cast<uintptr_t>(map);
  if (data_pages > 0 &&
      mprotect(reinterpret_cast<void*>(base + page), data_pages * page, PROT_READ | PROT_WRITE)) {
    munmap(map, map_size);
    fail("RuntimeError", std::string("cannot map a guarded buffer: ") + std::strerror(errno));
  }
  uintptr_t end = base + (data_pages + 1) * page;
  uintptr_t data = end - bytes; // aligned to `align`, as end is to a page
  // The first data page's bytes before the buffer get a canary: a write there (below the
  // buffer's start, within the page) is found when the kernel returns.
  if (data_pages > 0) std::memset(reinterpret_cast<void*>(base + page), kCanary, data - (base + page));
  std::lock_guard<std::mutex> hold(g_lock);
  g_regions.push_back({base, map_size, data, bytes});
  return reinterpret_cast<void*>(data);
}

void guarded_free(void* buffer) {
  uintptr_t at = reinterpret_cast<uintptr_t>(buffer);
  std::lock_guard<std::mutex> hold(g_lock);
  for (size_t i = 0; i < g_regions.size(); ++i)
    if (g_regions[i].data == at) {
      munmap(reinterpret_cast<void*>(g_regions[i].map), g_regions[i].map_size);
      g_regions[i] = g_regions.back();
      g_regions.pop_back();
      return;
    }
}

void set_running_kernel(const char* name) { g_kernel.store(name); }

void check_canaries(const char* kernel, void* const* buffers, size_t count) {
  std::lock_guard<std::mutex> hold(g_lock);
  const size_t page = page_size();
  for (size_t b = 0; b < count; ++b) {
    uintptr_t at = reinterpret_cast<uintptr_t>(buffers[b]);
    for (const Region& r : g_regions) {
      if (r.data != at || r.bytes == 0) continue;
      const unsigned char* slack = reinterpret_cast<const unsigned char*>(r.map + page);
      size_t n = r.data - (r.map + page);
      for (size_t i = 0; i < n; ++i)
        if (slack[i] != kCanary)
          fail("RuntimeError", "kernel '" + std::string(kernel) + "' wrote byte " +
                                   std::to_string(int64_t(i) - int64_t(n)) + " of a " +
                                   std::to_string(r.bytes) + "-byte buffer (" + g_reason.load() + ")");
      break;
    }
  }
}

} // namespace tg
