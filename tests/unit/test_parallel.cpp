// util/parallel.h: every item runs once, errors come back by index, deep recursion fits.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "util/parallel.h"

using namespace tg;

TEST(ParallelFor, runs_every_item_once_on_any_thread_count) {
  for (int threads : {1, 2, 8}) {
    std::vector<std::atomic<int>> hits(1000);
    auto errors = parallel_for(hits.size(), threads, [&](size_t i) { hits[i]++; });
    ASSERT_EQ(errors.size(), hits.size());
    for (size_t i = 0; i < hits.size(); i++) {
      EXPECT_EQ(hits[i].load(), 1) << i;
      EXPECT_FALSE(errors[i]);
    }
  }
  EXPECT_TRUE(parallel_for(0, 4, [](size_t) { FAIL(); }).empty());
}

TEST(ParallelFor, errors_are_returned_by_item_and_the_rest_still_run) {
  std::atomic<int> ran{0};
  auto errors = parallel_for(50, 4, [&](size_t i) {
    ran++;
    if (i == 7 || i == 30) throw std::runtime_error("item " + std::to_string(i));
  });
  EXPECT_EQ(ran.load(), 50);
  for (size_t i = 0; i < errors.size(); i++) EXPECT_EQ(bool(errors[i]), i == 7 || i == 30) << i;
  try {
    std::rethrow_exception(errors[7]);
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "item 7");
  }
}

namespace {
int depth(int n) {
  volatile char pad[256] = {};
  return n == 0 ? pad[0] : 1 + depth(n - 1) + pad[1];
}
} // namespace

TEST(ParallelFor, workers_have_deep_stacks) {
  // 200k frames of ~300 bytes: far past a default 8 MB thread stack
  std::vector<int> got(2);
  auto errors = parallel_for(2, 2, [&](size_t i) { got[i] = depth(200000); });
  EXPECT_EQ(got, (std::vector<int>{200000, 200000}));
}
