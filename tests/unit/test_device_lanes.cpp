// The devices of one program at once: which lane runs which kernel, and what each waits for.
#include <gtest/gtest.h>

#include "launch/device_lanes.h"

namespace tg {
namespace {

struct Lanes {
  Program p;
  explicit Lanes(int buffers) {
    p.device = "CLANG";
    for (int b = 0; b < buffers; ++b) p.buffers.push_back(BufferInfo{b});
  }
  void kernel(const std::string& device, std::vector<int> bufs, int64_t work = 1000) {
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

TEST(DeviceLanes, OneKernelAtATimeWhereLanesCannotPay) {
  Lanes uneven(2);
  uneven.kernel("CLANG:1", {0}, 1000);
  uneven.kernel("CLANG:2", {1}, 100); // a tenth of the other's work
  EXPECT_EQ(plan_lanes(uneven.p, false, 2).lanes, 0);
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
