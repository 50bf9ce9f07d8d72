// The devices of one program at once: which lane runs which kernel, and what each waits for.
#include <gtest/gtest.h>

#include "launch/lanes.h"

namespace tg {
namespace {

struct Lanes {
  Program p;
  explicit Lanes(int buffers) {
    p.device = "CLANG";
    for (int b = 0; b < buffers; ++b) p.buffers.push_back(BufferInfo{b});
  }
  // (default: ~70 us of estimated work, enough to pay for starting lanes)
  void kernel(const std::string& device, std::vector<int> bufs, int64_t work = 10000000) {
    ProgramKernel k;
    k.device = device;
    k.bufs = std::move(bufs);
    k.op_estimate = work;
    p.kernels.push_back(k);
  }
};

TEST(DeviceLanes, TwoDevicesOfEqualWorkRunOnTwoLanesAndACopyWaitsForItsSource) {
  Lanes t(4);
  t.kernel("CLANG:1", {0});    // 0: lane a
  t.kernel("CLANG:2", {1});    // 1: lane b
  t.kernel("CLANG:2", {2, 0}); // 2: a copy of buffer 0 to CLANG:2: waits for kernel 0
  t.kernel("CLANG:1", {3});    // 3: needs nothing from the other lane
  LanePlan plan = plan_lanes(t.p, false, 2);
  ASSERT_EQ(plan.lanes, 2);
  const int a = plan.kernels[0].front() == 0 ? 0 : 1, b = 1 - a;
  EXPECT_EQ(plan.kernels[size_t(a)], (std::vector<size_t>{0, 3}));
  EXPECT_EQ(plan.kernels[size_t(b)], (std::vector<size_t>{1, 2}));
  EXPECT_TRUE(plan.waits[size_t(b)][0].empty());
  EXPECT_EQ(plan.waits[size_t(b)][1], (std::vector<std::pair<int, size_t>>{{a, 1}}));
  EXPECT_TRUE(plan.waits[size_t(a)][1].empty());
}

TEST(DeviceLanes, AWriteWaitsForTheOtherLanesReadOfTheOldValue) {
  Lanes t(3);
  t.kernel("CLANG:1", {0});
  t.kernel("CLANG:2", {1, 0}); // reads buffer 0
  t.kernel("CLANG:1", {0, 2}); // then writes it: after the read
  LanePlan plan = plan_lanes(t.p, false, 2);
  ASSERT_EQ(plan.lanes, 2);
  const int a = plan.kernels[0].front() == 0 ? 0 : 1, b = 1 - a;
  EXPECT_EQ(plan.waits[size_t(a)][1], (std::vector<std::pair<int, size_t>>{{b, 1}}));
}

TEST(DeviceLanes, TwoIndependentChainsOfSmallKernelsOnOneDeviceRunSideBySide) {
  // two recurrences (buffers 0 -> 2 -> 4 ... and 1 -> 3 -> 5 ...), each kernel ~10 us of work
  // that is not split over threads, reading one shared constant (buffer 20)
  Lanes t(21);
  t.p.buffers[20].role = BufferRole::Constant;
  for (int s = 0; s < 8; ++s) {
    t.kernel("", {2 * s + 2, 2 * s, 20}, 1500000);
    t.kernel("", {2 * s + 3, 2 * s + 1, 20}, 1500000);
  }
  t.kernel("", {18, 16, 17}, 1000); // joins them
  LanePlan plan = plan_lanes(t.p, false, 2);
  ASSERT_EQ(plan.lanes, 2);
  const int a = plan.kernels[0].front() == 0 ? 0 : 1, b = 1 - a;
  for (size_t pos = 0; pos < 8; ++pos) {
    EXPECT_EQ(plan.kernels[size_t(a)][pos], 2 * pos);
    EXPECT_EQ(plan.kernels[size_t(b)][pos], 2 * pos + 1);
    EXPECT_TRUE(plan.waits[size_t(a)][pos].empty()); // the chains never wait for each other
    EXPECT_TRUE(plan.waits[size_t(b)][pos].empty());
  }
  // the join waits for the other chain's last kernel
  const int join = plan.kernels[0].back() == 16 ? 0 : 1;
  EXPECT_EQ(plan.waits[size_t(join)].back(), (std::vector<std::pair<int, size_t>>{{1 - join, 8}}));

  Lanes one_chain(9); // each kernel needs the one before: nothing to run side by side
  for (int s = 0; s < 8; ++s) one_chain.kernel("", {s + 1, s}, 1500000);
  EXPECT_EQ(plan_lanes(one_chain.p, false, 2).lanes, 0);
  Lanes tiny(21); // chains of kernels far cheaper than starting the lanes
  for (int s = 0; s < 8; ++s) {
    tiny.kernel("", {2 * s + 2, 2 * s}, 1000);
    tiny.kernel("", {2 * s + 3, 2 * s + 1}, 1000);
  }
  EXPECT_EQ(plan_lanes(tiny.p, false, 2).lanes, 0);
}

TEST(DeviceLanes, OneKernelAtATimeWhereLanesCannotPay) {
  Lanes uneven(4);
  uneven.kernel("CLANG:1", {0, 2}, 10000000);
  uneven.kernel("CLANG:1", {2, 3}, 10000000);
  uneven.kernel("CLANG:2", {1}, 1000000); // a twentieth of the other's work
  EXPECT_EQ(plan_lanes(uneven.p, false, 2).lanes, 0);
  Lanes short_step(2); // even, but a step of a microsecond: starting the lanes costs more
  short_step.kernel("CLANG:1", {0}, 1000);
  short_step.kernel("CLANG:2", {1}, 1000);
  EXPECT_EQ(plan_lanes(short_step.p, false, 2).lanes, 0);
  Lanes one_thread(2);
  one_thread.kernel("CLANG:1", {0});
  one_thread.kernel("CLANG:2", {1});
  EXPECT_EQ(plan_lanes(one_thread.p, false, 1).lanes, 0);
  Lanes random(2);
  random.kernel("CLANG:1", {0});
  random.kernel("CLANG:2", {1});
  random.p.kernels[1].custom = "random";
  EXPECT_EQ(plan_lanes(random.p, false, 2).lanes, 0);
  Lanes other_range(2); // the init kernels are a range of their own
  other_range.kernel("CLANG:1", {0});
  other_range.kernel("CLANG:2", {1});
  other_range.p.kernels[1].init = true;
  EXPECT_EQ(plan_lanes(other_range.p, false, 2).lanes, 0);
}

} // namespace
} // namespace tg
