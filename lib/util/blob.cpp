#include "util/blob.h"

namespace tg {

namespace {
constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
uint64_t mix(uint64_t h, uint64_t w) {
  h = (h ^ w) * kMul;
  return h ^ (h >> 29);
}
} // namespace

uint64_t Blob::hash() const {
  if (uint64_t h = hash_.load(std::memory_order_relaxed)) return h;
  // Four independent lanes of 8-byte words: ~4x the speed of one multiply chain (a byte-wise
  // FNV-1a over 100 MB of weights took 140 ms per tool).
  uint64_t lane[4] = {1, 2, 3, 4};
  size_t i = 0;
  for (; i + 32 <= size_; i += 32)
    for (int k = 0; k < 4; ++k) {
      uint64_t w;
      std::memcpy(&w, data_ + i + 8 * k, 8);
      lane[k] = mix(lane[k], w);
    }
  uint64_t h = mix(mix(mix(lane[0], lane[1]), lane[2]), lane[3]);
  for (; i < size_; ++i) h = mix(h, data_[i]);
  h = mix(h, size_);
  if (h == 0) h = 1;
  hash_.store(h, std::memory_order_relaxed);
  return h;
}

} // namespace tg
