// MT19937 as Matsumoto and Nishimura's reference (mt19937ar.c), which numpy's legacy
// RandomState uses. See mt19937.h.
#include "random/mt19937.h"

#include <cmath>

namespace tg {

Mt19937::Mt19937(uint32_t seed) {
  mt_[0] = seed;
  for (uint32_t i = 1; i < 624; ++i) mt_[i] = 1812433253u * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + i;
  pos_ = 624;
}

uint32_t Mt19937::next32() {
  if (pos_ >= 624) { // regenerate the whole state
    for (int i = 0; i < 624; ++i) {
      uint32_t y = (mt_[size_t(i)] & 0x80000000u) | (mt_[size_t((i + 1) % 624)] & 0x7fffffffu);
      mt_[size_t(i)] = mt_[size_t((i + 397) % 624)] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    pos_ = 0;
  }
  uint32_t y = mt_[size_t(pos_++)];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

double Mt19937::gauss() {
  if (has_gauss_) {
    has_gauss_ = false;
    return gauss_;
  }
  double x1, x2, r2;
  do {
    x1 = 2.0 * random_sample() - 1.0;
    x2 = 2.0 * random_sample() - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  double f = std::sqrt(-2.0 * std::log(r2) / r2);
  gauss_ = f * x1, has_gauss_ = true;
  return f * x2;
}

} // namespace tg
