// numpy's legacy generator, bit for bit: np.random.RandomState(seed) with an integer seed is
// MT19937 seeded by init_genrand, and random_sample() takes 53 bits from two 32-bit draws.
// ONNX's reference Dropout (and so its test data, and tinygrad's onnx Dropout) draws from it.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace tg {

class Mt19937 {
public:
  explicit Mt19937(uint32_t seed);
  uint32_t next32();
  double random_sample() { // numpy's legacy_double: (a >> 5, b >> 6) as a 53-bit fraction
    uint32_t a = next32() >> 5, b = next32() >> 6;
    return (double(a) * 67108864.0 + double(b)) / 9007199254740992.0;
  }

  // numpy's legacy_gauss: the polar method, two normals per accepted pair, the second kept for
  // the next call (RandomState.standard_normal / normal).
  double gauss();

private:
  std::array<uint32_t, 624> mt_;
  int pos_;
  bool has_gauss_ = false;
  double gauss_ = 0.0;
};

} // namespace tg
