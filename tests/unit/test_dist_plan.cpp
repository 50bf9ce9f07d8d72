// tg-run --dist's plan: which buffers move between processes before which kernel.
#include <gtest/gtest.h>

#include "launch/dist_plan.h"

namespace tg {
namespace {

// A program whose kernels are given as (process, buffers); buffer b lives on process owner[b].
struct Plan {
  Program p;
  DistLayout layout;
  Plan(int ranks, std::vector<int> owner) {
    layout.ranks = ranks;
    for (size_t b = 0; b < owner.size(); ++b) {
      layout.owner[int(b)] = owner[b];
      layout.bytes[int(b)] = 16;
    }
  }
  void kernel(int rank, std::vector<int> bufs) {
    ProgramKernel k;
    k.bufs = std::move(bufs);
    p.kernels.push_back(k);
    layout.kernel_rank.push_back(rank);
  }
  std::vector<Exchange> exchanges() const {
    std::vector<size_t> order(p.kernels.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    return plan_exchanges(p, layout, order);
  }
};

std::vector<size_t> positions_with_moves(const std::vector<Exchange>& plan) {
  std::vector<size_t> at;
  for (size_t i = 0; i < plan.size(); ++i)
    if (!plan[i].empty()) at.push_back(i);
  return at;
}

TEST(DistPlan, ACopyWaitsForItsReceiversOwnKernelsBeforeIt) {
  // process 0 runs a heavy kernel (buffer 2) between two copies from process 1: the second copy
  // must not move ahead of it, or process 0 would wait for process 1 before working
  Plan t(2, {1, 1, 0, 0, 0});
  t.kernel(0, {3, 0}); // copy of buffer 0 to process 0
  t.kernel(0, {2});    // process 0's own work
  t.kernel(0, {4, 1}); // copy of buffer 1
  std::vector<Exchange> plan = t.exchanges();
  EXPECT_EQ(positions_with_moves(plan), (std::vector<size_t>{0, 2}));
  EXPECT_EQ(plan[0].moves.size(), 1u);
  EXPECT_EQ(plan[2].moves.size(), 1u);
}

TEST(DistPlan, AKernelThatReadsNothingFromElsewhereHasNoExchange) {
  Plan t(2, {1, 0, 0});
  t.kernel(0, {1});    // reads nothing from elsewhere: nothing moves before it
  t.kernel(0, {2, 0}); // the copy moves right before itself
  EXPECT_EQ(positions_with_moves(t.exchanges()), (std::vector<size_t>{1}));
}

TEST(DistPlan, ACopyMovesAheadOfKernelsOfOtherProcessesOnly) {
  // process 2's kernel between two copies from process 0 to process 1: both move at once
  Plan t(3, {0, 0, 1, 1, 2});
  t.kernel(1, {2, 0});
  t.kernel(2, {4});
  t.kernel(1, {3, 1});
  std::vector<Exchange> plan = t.exchanges();
  EXPECT_EQ(positions_with_moves(plan), (std::vector<size_t>{0}));
  EXPECT_EQ(plan[0].moves.size(), 2u);
}

TEST(DistPlan, AnAllReducesShardsMeetInOneAllgatherAcrossTheKernelsBetweenThem) {
  // naive all-reduce over two processes: each copies the other's shard; process 0's work on
  // something else (buffer 6) stands between the copies
  Plan t(2, {0, 1, 0, 1, 0, 1, 0});
  t.kernel(0, {2, 1}); // process 0 receives process 1's shard (buffer 1)
  t.kernel(0, {6});
  t.kernel(1, {3, 0}); // process 1 receives process 0's shard
  t.kernel(0, {4, 0, 2});
  t.kernel(1, {5, 1, 3});
  std::vector<Exchange> plan = t.exchanges();
  ASSERT_EQ(positions_with_moves(plan), (std::vector<size_t>{0}));
  EXPECT_EQ(plan[0].allgathers, (std::vector<std::vector<int>>{{0, 1}}));
  EXPECT_TRUE(plan[0].moves.empty());
  EXPECT_EQ(plan[0].every_move().size(), 2u);
}

TEST(DistPlan, AReadOfWhatAnEarlierKernelOfTheRunWritesWaitsForIt) {
  Plan t(2, {1, 0, 0});
  t.kernel(0, {1, 0}); // copy buffer 0 into buffer 1
  t.kernel(1, {0});    // process 1 then writes buffer 0 again
  t.kernel(0, {2, 0}); // this copy needs the new value: its own exchange
  EXPECT_EQ(positions_with_moves(t.exchanges()), (std::vector<size_t>{0, 2}));
}

} // namespace
} // namespace tg
