// numpy's default_rng, bit for bit: expected values printed by numpy 1.26 / 2.x
// (np.random.default_rng(seed).integers(0, 2**64, dtype=np.uint64) for raw 64-bit draws).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "random/numpy_rng.h"

using namespace tg;

TEST(NumpyRng, raw_draws_match_numpy_for_small_and_multiword_seeds) {
  Pcg64 a(0);
  EXPECT_EQ(a.next64(), 0xa30febcfd9c2825fULL);
  EXPECT_EQ(a.next64(), 0x4510bdf882d9d721ULL);
  EXPECT_EQ(a.next64(), 0x0a7d3da94ecde8b8ULL);
  Pcg64 b(5);
  EXPECT_EQ(b.next64(), 0xce14abeeabb8e5a8ULL);
  Pcg64 c((uint64_t(1) << 33) + 1); // two 32-bit words of entropy
  EXPECT_EQ(c.next64(), 0x72cb55b7a4acbbc2ULL);
  EXPECT_EQ(c.next64(), 0x6e4e482cf03b98abULL);
}

TEST(NumpyRng, float32_draws_use_both_halves_of_a_64_bit_draw) {
  std::vector<float> out(3);
  numpy_random_fill(7, DType::Float32, out.size(), reinterpret_cast<uint8_t*>(out.data()));
  EXPECT_EQ(out[0], 0x1.e3ca94p-1f);
  EXPECT_EQ(out[1], 0x1.400c82p-1f);
  EXPECT_EQ(out[2], 0x1.5e4cd4p-1f);
}

TEST(NumpyRng, bounded_integers_match_numpy) {
  Pcg64 r(7);
  for (int64_t want : {1934, 1279, 1400, 1836, 1183, 1587}) EXPECT_EQ(r.next_int(0, 2047), want);
}

TEST(NumpyRng, half_is_integers_over_2048) {
  std::vector<uint16_t> out(2);
  numpy_random_fill(7, DType::Float16, out.size(), reinterpret_cast<uint8_t*>(out.data()));
  EXPECT_EQ(half_to_float(out[0]), 1934.0f / 2048);
  EXPECT_EQ(half_to_float(out[1]), 1279.0f / 2048);
}

TEST(NumpyRng, float64_is_the_float32_draw_widened_and_ints_are_zero) {
  std::vector<double> d(1);
  numpy_random_fill(7, DType::Float64, 1, reinterpret_cast<uint8_t*>(d.data()));
  EXPECT_EQ(d[0], double(0x1.e3ca94p-1f));
  int32_t i = -1;
  numpy_random_fill(7, DType::Int32, 1, reinterpret_cast<uint8_t*>(&i));
  EXPECT_EQ(i, 0);
}
