#include "runtime/thread_pool.h"

#include <chrono>
#include <climits>

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace tg {

namespace {

// How long a worker stays awake after its last part, waiting for the next launch, and how long
// the caller waits awake for the workers' parts before it sleeps. Waking a sleeping thread
// costs 5-20 µs on a virtual machine (docs/architecture.md, "Devices"), ~2 µs a hand-off; the
// launches of one program come microseconds apart, so the workers stay awake through a program
// and sleep once it is done. The first kPureSpin of a wait spins on the pause instruction; the
// rest yields the core between looks, so that on a machine with more runnable threads than
// cores a waiting thread does not keep the one it waits for (or the caller) off the CPU.
constexpr std::chrono::microseconds kPureSpin{20};
constexpr std::chrono::microseconds kWorkerSpin{500};
constexpr std::chrono::microseconds kCallerSpin{500};

inline void cpu_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Waits awake until ready() (true) or the budget is spent (ready()'s last answer).
template <class Ready> bool spin_until(Ready ready, std::chrono::nanoseconds budget) {
  if (budget.count() <= 0) return ready();
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      if (ready()) return true;
      cpu_pause();
    }
    const auto waited = std::chrono::steady_clock::now() - start;
    if (waited >= budget) return ready();
    if (waited >= kPureSpin) std::this_thread::yield();
  }
}

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
              std::atomic<uint32_t>::is_always_lock_free);

// Sleeps while *word == expected (returns at once if it is not; may return spuriously).
void wait_while(std::atomic<uint32_t>& word, uint32_t expected) {
#ifdef __linux__
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
#else
  word.wait(expected);
#endif
}

void wake(std::atomic<uint32_t>& word, int count) {
#ifdef __linux__
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, count, nullptr, nullptr, 0);
#else
  (void)count;
  word.notify_all();
#endif
}

// More threads than cores: a spinning worker would take a core from one that has a part to run.
std::chrono::nanoseconds spin_budget(size_t threads, std::chrono::nanoseconds budget) {
  unsigned cores = std::thread::hardware_concurrency();
  return cores != 0 && threads > cores ? std::chrono::nanoseconds(0) : budget;
}

} // namespace

ThreadPool::ThreadPool(int threads) : threads_(threads > 1 ? threads : 1) {
  workers_.reserve(size_t(threads_ - 1));
  try {
    for (int i = 1; i < threads_; ++i) workers_.emplace_back([this] { work(); });
  } catch (...) { // (no thread could start: the ones that did must not outlive the pool)
    stop_workers();
    throw;
  }
}

ThreadPool::~ThreadPool() { stop_workers(); }

void ThreadPool::stop_workers() {
  stop_.store(true);
  generation_.fetch_add(1);
  wake(generation_, INT_MAX);
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::work() {
  const auto spin = spin_budget(size_t(threads_), kWorkerSpin);
  uint32_t seen = 0; // the generation at construction
  for (;;) {
    if (!spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; }, spin)) {
      // Announce the sleep before the last look (run() bumps the generation, then reads
      // sleepers_): either run() sees this sleeper and wakes it, or the look sees the launch.
      sleepers_.fetch_add(1);
      while (generation_.load() == seen) wait_while(generation_, seen);
      sleepers_.fetch_sub(1);
    }
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_acquire)) return;
    while (claim_and_run(seen)) {
    }
  }
}

bool ThreadPool::claim_and_run(uint32_t generation) {
  uint64_t ticket = ticket_.load(std::memory_order_acquire);
  uint32_t parts, k;
  do {
    if (uint32_t(ticket >> 32) != generation) return false;
    // (read before the claim: when the claim succeeds, the launch is still this generation's,
    // since it cannot end with a part unclaimed)
    parts = parts_.load(std::memory_order_relaxed);
    k = uint32_t(ticket);
    if (k >= parts) return false;
  } while (!ticket_.compare_exchange_weak(ticket, ticket + 1, std::memory_order_acq_rel,
                                          std::memory_order_acquire));
  part_.load(std::memory_order_relaxed)(context_.load(std::memory_order_relaxed), int(k));
  finish_part(parts);
  return true;
}

void ThreadPool::finish_part(uint32_t parts) {
  // The caller announces its sleep before its last look at done_ (as the workers do above).
  if (done_.fetch_add(1) + 1 == parts && caller_sleeping_.load()) wake(done_, 1);
}

void ThreadPool::wait_for_parts(uint32_t parts) {
  const auto spin = spin_budget(size_t(threads_), kCallerSpin);
  if (spin_until([&] { return done_.load(std::memory_order_acquire) == parts; }, spin)) return;
  caller_sleeping_.store(true);
  for (uint32_t done; (done = done_.load()) != parts;) wait_while(done_, done);
  caller_sleeping_.store(false, std::memory_order_relaxed);
}

void ThreadPool::run(int parts, PartFunction part, void* context) {
  if (parts <= 1 || threads_ == 1) {
    for (int k = 0; k < parts; ++k) part(context, k);
    return;
  }
  part_.store(part, std::memory_order_relaxed);
  context_.store(context, std::memory_order_relaxed);
  parts_.store(uint32_t(parts), std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  const uint32_t generation = generation_.load(std::memory_order_relaxed) + 1;
  ticket_.store(uint64_t(generation) << 32, std::memory_order_release); // publishes the launch
  generation_.store(generation);
  if (sleepers_.load() > 0) wake(generation_, parts - 1);
  while (claim_and_run(generation)) {
  }
  wait_for_parts(uint32_t(parts));
}

} // namespace tg
