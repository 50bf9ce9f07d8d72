// numpy's legacy RandomState(seed).random_sample, bit for bit: expected values printed by numpy
// 2.x (ONNX's reference Dropout draws its mask from it).
#include <gtest/gtest.h>

#include "random/mt19937.h"

using namespace tg;

TEST(Mt19937, random_sample_matches_numpy_random_state) {
  Mt19937 r(0);
  EXPECT_EQ(r.random_sample(), 0.5488135039273248);
  EXPECT_EQ(r.random_sample(), 0.7151893663724195);
  EXPECT_EQ(r.random_sample(), 0.6027633760716439);
  Mt19937 s(123);
  EXPECT_EQ(s.random_sample(), 0.6964691855978616);
  EXPECT_EQ(s.random_sample(), 0.28613933495037946);
}

TEST(Mt19937, draws_past_the_first_state_block_and_the_largest_seed_match_numpy) {
  Mt19937 r(5); // 400 samples take 800 words: the state is regenerated once on the way
  double last = 0;
  for (int i = 0; i < 400; ++i) last = r.random_sample();
  EXPECT_EQ(last, 0.9717360181200004);
  EXPECT_EQ(Mt19937(4294967295u).random_sample(), 0.0976320289940138);
}

TEST(Mt19937, gauss_matches_numpy_standard_normal) {
  Mt19937 r(0); // np.random.RandomState(0).standard_normal(3)
  EXPECT_DOUBLE_EQ(r.gauss(), 1.764052345967664);
  EXPECT_DOUBLE_EQ(r.gauss(), 0.4001572083672233);
  EXPECT_DOUBLE_EQ(r.gauss(), 0.9787379841057392);
}
