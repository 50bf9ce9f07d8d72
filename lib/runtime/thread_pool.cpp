#include "runtime/thread_pool.h"

namespace tg {

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::work(int index) {
  unsigned seen = 0;
  for (;;) {
    const std::function<void(int)>* job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= parts_) continue;
      job = job_;
    }
    (*job)(index);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
}

void ThreadPool::run(int parts, const std::function<void(int)>& part) {
  if (parts <= 1 || workers_.empty()) {
    for (int k = 0; k < parts; ++k) part(k);
    return;
  }
  int shared = parts < size() ? parts : size(); // parts beyond the pool run on this thread
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &part;
    parts_ = shared;
    pending_ = shared - 1;
    ++generation_;
  }
  start_.notify_all();
  part(0);
  for (int k = shared; k < parts; ++k) part(k);
  std::unique_lock<std::mutex> lock(mu_);
  done_.wait(lock, [&] { return pending_ == 0; });
  job_ = nullptr;
}

} // namespace tg
