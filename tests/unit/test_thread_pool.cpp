// The thread pool under repeated launches: every part runs exactly once per launch, whether the
// workers are spinning, asleep or busy, and a split host launch covers its range exactly once.
// (Correctness only; the launch cost is a figure in `make bench`.)
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <thread>
#include <vector>

#include "codegen/renderer.h"
#include "device/host/host_program.h"
#include "runtime/thread_pool.h"

using namespace tg;

namespace {

// Counts, per part, the runs of each launch; a launch's parts record its number.
struct Counter {
  std::vector<std::atomic<int>> hits;
  std::vector<std::atomic<int>> launch_of;
  explicit Counter(int parts) : hits(size_t(parts)), launch_of(size_t(parts)) {}
};

void expect_each_part_once(ThreadPool& pool, int parts, int launches, std::chrono::microseconds gap) {
  Counter c(parts);
  for (int l = 0; l < launches; ++l) {
    pool.run(parts, [&](int k) {
      c.hits[size_t(k)].fetch_add(1);
      c.launch_of[size_t(k)].store(l);
    });
    // every part of this launch is done when run returns
    for (int k = 0; k < parts; ++k) {
      ASSERT_EQ(c.hits[size_t(k)].load(), l + 1) << parts << " parts, launch " << l << ", part " << k;
      ASSERT_EQ(c.launch_of[size_t(k)].load(), l);
    }
    if (gap.count() > 0) std::this_thread::sleep_for(gap); // let the workers fall asleep
  }
}

} // namespace

TEST(ThreadPool, runs_every_part_exactly_once_under_back_to_back_launches) {
  for (int threads : {2, 3, 4}) {
    ThreadPool pool(threads);
    for (int parts : {2, 3, 4, 7}) expect_each_part_once(pool, parts, 2000, std::chrono::microseconds(0));
  }
}

TEST(ThreadPool, runs_every_part_exactly_once_when_the_workers_were_asleep) {
  ThreadPool pool(2);
  expect_each_part_once(pool, 2, 20, std::chrono::milliseconds(3));
  ThreadPool wide(4);
  expect_each_part_once(wide, 3, 20, std::chrono::milliseconds(3));
}

TEST(ThreadPool, one_part_and_a_pool_of_one_run_on_the_caller) {
  const std::thread::id caller = std::this_thread::get_id();
  ThreadPool pool(3), alone(1);
  EXPECT_EQ(alone.size(), 1);
  int runs = 0;
  pool.run(1, [&](int k) {
    EXPECT_EQ(k, 0);
    EXPECT_EQ(std::this_thread::get_id(), caller);
    ++runs;
  });
  alone.run(5, [&](int) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    ++runs;
  });
  pool.run(0, [&](int) { ++runs; });
  EXPECT_EQ(runs, 6);
}

TEST(ThreadPool, parts_see_what_the_caller_wrote_and_the_caller_sees_theirs) {
  ThreadPool pool(2);
  std::vector<int> in(64), out(64);
  for (int l = 0; l < 1000; ++l) {
    for (int i = 0; i < 64; ++i) in[size_t(i)] = l * 64 + i; // plain writes before the launch
    pool.run(4, [&](int k) {
      for (int i = k * 16; i < (k + 1) * 16; ++i) out[size_t(i)] = in[size_t(i)] * 2;
    });
    for (int i = 0; i < 64; ++i) ASSERT_EQ(out[size_t(i)], (l * 64 + i) * 2); // plain reads after it
  }
}

TEST(ThreadPool, a_pool_destroyed_at_once_or_after_sleeping_joins_its_workers) {
  { ThreadPool pool(4); }
  {
    ThreadPool pool(2);
    pool.run(2, [](int) {});
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  SUCCEED();
}

namespace {

// A launcher that marks the iterations [core_start, min(core_end, n)) of its range in bufs[0]
// (ints; n in bufs[1]): vars are {core_end, core_start} as codegen orders them.
void mark_range(void** bufs, const int* vars) {
  auto* hits = static_cast<std::atomic<int>*>(bufs[0]);
  const int n = *static_cast<int*>(bufs[1]);
  for (int i = vars[1]; i < (vars[0] < n ? vars[0] : n); ++i) hits[i].fetch_add(1);
}

Program split_program(int64_t extent, int64_t op_estimate) {
  Program p;
  p.device = "CLANG";
  ProgramKernel k;
  k.name = "E_marks";
  k.bufs = {0, 1};
  k.vars = {kSplitEndVar, kSplitStartVar};
  k.global_size = {extent, 1, 1};
  k.work = extent;
  k.op_estimate = op_estimate;
  p.kernels.push_back(k);
  return p;
}

struct ScopedThreads {
  explicit ScopedThreads(const char* n) { setenv("TG_THREADS", n, 1); }
  ~ScopedThreads() { unsetenv("TG_THREADS"); }
};

} // namespace

TEST(ThreadPool, a_split_host_launch_covers_its_range_once_under_repeated_launches) {
  ScopedThreads threads("3");
  for (int extent : {1, 2, 3, 10, 1000}) {
    HostProgram program(split_program(extent, int64_t(1) << 40), {mark_range});
    EXPECT_EQ(program.parts(0, extent), extent < 3 ? extent : 3);
    std::vector<std::atomic<int>> hits(static_cast<size_t>(extent));
    int n = extent;
    void* bufs[2] = {hits.data(), &n};
    const int32_t vars[2] = {INT32_MAX, 0};
    LaunchDims dims;
    dims.global = {extent, 1, 1};
    for (int l = 1; l <= 300; ++l) {
      program.launch(0, bufs, vars, dims);
      for (int i = 0; i < extent; ++i)
        ASSERT_EQ(hits[size_t(i)].load(), l) << "extent " << extent << ", item " << i;
    }
  }
}

TEST(ThreadPool, a_host_kernel_too_small_to_pay_for_threads_runs_whole) {
  ScopedThreads threads("2");
  HostProgram small(split_program(1000, kMinPartCost), {mark_range});
  EXPECT_EQ(small.parts(0, 1000), 1);
  HostProgram big(split_program(1000, 2 * kMinPartCost), {mark_range});
  EXPECT_EQ(big.parts(0, 1000), 2);
}
