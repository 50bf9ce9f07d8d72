// runtime layer, threads: a fixed pool that runs the parts of one kernel launch at once (the
// CLANG device's kernels are loops; tg-run splits a kernel's outermost independent loop).
// A launch costs microseconds: workers spin briefly (with a pause instruction) after a launch
// before they sleep on a futex, so the launches of one program find them awake; parts are
// claimed from a shared counter, so a worker that is still asleep delays nothing (the caller
// takes its part); and run() allocates nothing.
#pragma once
#include <atomic>
#include <cstdint>
#include <thread>
#include <type_traits>
#include <vector>

namespace tg {

class ThreadPool {
public:
  explicit ThreadPool(int threads); // threads - 1 workers; the caller is the last one
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return threads_; }

  // Calls part(context, k) exactly once for every k in [0, parts), on the calling thread and the
  // workers, and returns when every part is done. Parts must not throw. Not reentrant: one
  // run at a time per pool.
  using PartFunction = void (*)(void* context, int part);
  void run(int parts, PartFunction part, void* context);

  // The same for any callable part(k), taken by reference (no copy, no allocation).
  template <class Part> void run(int parts, Part&& part) {
    using P = std::remove_reference_t<Part>;
    run(
        parts, [](void* c, int k) { (*static_cast<P*>(c))(k); },
        const_cast<void*>(static_cast<const void*>(&part)));
  }

private:
  void work();
  void stop_workers();
  bool claim_and_run(uint32_t generation); // runs one unclaimed part of that launch, if any
  void finish_part(uint32_t parts);
  void wait_for_parts(uint32_t parts);

  const int threads_;
  std::vector<std::thread> workers_; // started after threads_ is set: work() reads it
  // The launch: written by run() before it publishes `ticket_`, read after a worker claims a part.
  std::atomic<PartFunction> part_{nullptr};
  std::atomic<void*> context_{nullptr};
  std::atomic<uint32_t> parts_{0};
  // generation << 32 | next unclaimed part: claiming is one compare-and-swap, and a claim for a
  // past launch fails.
  alignas(64) std::atomic<uint64_t> ticket_{0};
  // futex word: the launch's generation; sleeping workers wait for it to change
  alignas(64) std::atomic<uint32_t> generation_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  // futex word: parts of the current launch done; the caller may sleep on it
  alignas(64) std::atomic<uint32_t> done_{0};
  std::atomic<bool> caller_sleeping_{false};
};

// (How many: host_threads() in util/parallel.h.)

} // namespace tg
