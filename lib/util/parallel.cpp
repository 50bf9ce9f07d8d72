#include "util/parallel.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

namespace tg {

namespace {

constexpr size_t kWorkerStack = size_t(512) << 20; // reserved, not committed: deep recursion only

struct Shared {
  size_t n;
  const std::function<void(size_t)>* item;
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors;
};

void drain(Shared& s) {
  for (size_t i; (i = s.next.fetch_add(1)) < s.n;) {
    try {
      (*s.item)(i);
    } catch (...) {
      s.errors[i] = std::current_exception();
    }
  }
}

void* worker(void* arg) {
  drain(*static_cast<Shared*>(arg));
  return nullptr;
}

} // namespace

int host_threads() {
  if (const char* env = std::getenv("TG_THREADS")) {
    int n = std::atoi(env);
    return n >= 1 ? n : 1;
  }
  return int(std::max(1u, std::thread::hardware_concurrency()));
}

std::vector<std::exception_ptr> parallel_for(size_t n, int threads, const std::function<void(size_t)>& item) {
  Shared s{n, &item, {}, std::vector<std::exception_ptr>(n)};
  std::vector<pthread_t> started;
  const size_t workers = std::min(size_t(std::max(1, threads)), n);
  pthread_attr_t attr;
  if (workers > 1 && ::pthread_attr_init(&attr) == 0) {
    if (::pthread_attr_setstacksize(&attr, kWorkerStack) == 0)
      for (size_t t = 0; t < workers; ++t) {
        pthread_t th;
        if (::pthread_create(&th, &attr, worker, &s) != 0) break;
        started.push_back(th);
      }
    ::pthread_attr_destroy(&attr);
  }
  if (started.empty()) drain(s); // one thread, or none could start: the caller does it all
  for (pthread_t th : started) ::pthread_join(th, nullptr);
  return std::move(s.errors);
}

} // namespace tg
