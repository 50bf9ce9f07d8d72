// runtime layer, threads: a fixed pool that runs the parts of one kernel launch at once (the
// CLANG device's kernels are loops; tg-run splits a kernel's outermost independent loop).
#pragma once
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tg {

class ThreadPool {
public:
  explicit ThreadPool(int threads); // threads - 1 workers; the caller is the last one
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return int(workers_.size()) + 1; }
  // Calls part(k) for every k in [0, parts) — part 0, and any beyond size(), on the calling
  // thread — and returns when every part is done.
  void run(int parts, const std::function<void(int)>& part);

private:
  void work(int index);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable start_, done_;
  const std::function<void(int)>* job_ = nullptr;
  int parts_ = 0, pending_ = 0;
  unsigned generation_ = 0;
  bool stop_ = false;
};

// (How many: host_threads() in util/parallel.h.)

} // namespace tg
