#include "random/numpy_rng.h"

#include <cstring>
#include <vector>

namespace tg {
namespace {

using u128 = unsigned __int128;

constexpr u128 u128_of(uint64_t hi, uint64_t lo) { return (u128(hi) << 64) | lo; }
constexpr u128 kMultiplier = u128_of(0x2360ed051fc65da4ULL, 0x4385df649fccf645ULL);

// SeedSequence (numpy/random/bit_generator.pyx) with the default pool of 4 words and no spawn
// key: the seed's 32-bit words are hashed into the pool, the pool words mixed with each other.
constexpr uint32_t kInitA = 0x43b0d7e5, kMultA = 0x931e8875, kInitB = 0x8b51f9dd, kMultB = 0x58f38ded;
constexpr uint32_t kMixMultL = 0xca01f9dd, kMixMultR = 0x4973f715;
constexpr int kPoolSize = 4;

uint32_t hashmix(uint32_t value, uint32_t& hash_const) {
  value ^= hash_const;
  hash_const *= kMultA;
  value *= hash_const;
  value ^= value >> 16;
  return value;
}

uint32_t mix(uint32_t x, uint32_t y) {
  uint32_t result = kMixMultL * x - kMixMultR * y;
  return result ^ (result >> 16);
}

// generate_state(4, np.uint64) for SeedSequence(seed).
void seed_state(uint64_t seed, uint64_t out[4]) {
  std::vector<uint32_t> entropy;
  if (seed == 0) entropy.push_back(0);
  for (uint64_t s = seed; s != 0; s >>= 32) entropy.push_back(uint32_t(s));
  uint32_t pool[kPoolSize];
  uint32_t hash_const = kInitA;
  for (int i = 0; i < kPoolSize; ++i)
    pool[i] = hashmix(size_t(i) < entropy.size() ? entropy[size_t(i)] : 0, hash_const);
  for (int src = 0; src < kPoolSize; ++src)
    for (int dst = 0; dst < kPoolSize; ++dst)
      if (src != dst) pool[dst] = mix(pool[dst], hashmix(pool[src], hash_const));
  for (size_t src = kPoolSize; src < entropy.size(); ++src)
    for (int dst = 0; dst < kPoolSize; ++dst) pool[dst] = mix(pool[dst], hashmix(entropy[src], hash_const));
  uint32_t words[8];
  hash_const = kInitB;
  for (int i = 0; i < 8; ++i) {
    uint32_t v = pool[i % kPoolSize];
    v ^= hash_const;
    hash_const *= kMultB;
    v *= hash_const;
    v ^= v >> 16;
    words[i] = v;
  }
  for (int i = 0; i < 4; ++i) out[i] = uint64_t(words[2 * i]) | (uint64_t(words[2 * i + 1]) << 32);
}

} // namespace

Pcg64::Pcg64(uint64_t seed) {
  uint64_t s[4];
  seed_state(seed, s);
  // pcg_setseq_128_srandom_r(initstate = s[0]:s[1], initseq = s[2]:s[3])
  state_ = 0;
  inc_ = (u128_of(s[2], s[3]) << 1) | 1;
  state_ = state_ * kMultiplier + inc_;
  state_ += u128_of(s[0], s[1]);
  state_ = state_ * kMultiplier + inc_;
}

uint64_t Pcg64::next64() {
  state_ = state_ * kMultiplier + inc_;
  uint64_t x = uint64_t(state_ >> 64) ^ uint64_t(state_);
  unsigned rot = unsigned(state_ >> 122);
  return (x >> rot) | (x << ((64 - rot) & 63));
}

uint32_t Pcg64::next32() {
  if (has_uint32_) {
    has_uint32_ = false;
    return uinteger_;
  }
  uint64_t next = next64();
  has_uint32_ = true;
  uinteger_ = uint32_t(next >> 32);
  return uint32_t(next);
}

int64_t Pcg64::next_int(int64_t low, int64_t high) {
  uint32_t rng = uint32_t(high - low - 1); // callers keep the range within 32 bits
  if (rng == 0) return low;
  uint32_t rng_excl = rng + 1;
  uint64_t m = uint64_t(next32()) * rng_excl;
  uint32_t leftover = uint32_t(m);
  if (leftover < rng_excl) {
    uint32_t threshold = (UINT32_MAX - rng) % rng_excl;
    while (leftover < threshold) {
      m = uint64_t(next32()) * rng_excl;
      leftover = uint32_t(m);
    }
  }
  return low + int64_t(m >> 32);
}

void numpy_random_fill(uint64_t seed, DType dtype, size_t n, uint8_t* out) {
  Pcg64 rng(seed);
  if (dtype == DType::Float16) {
    for (size_t i = 0; i < n; ++i) {
      uint16_t h = float_to_half(float(double(rng.next_int(0, 2047)) / 2048.0)); // exact in half
      std::memcpy(out + 2 * i, &h, 2);
    }
    return;
  }
  size_t size = size_t(itemsize(dtype));
  for (size_t i = 0; i < n; ++i) {
    float f = rng.next_float();
    uint8_t* dst = out + i * size;
    // numpy's astype from float32: [0, 1) truncates to 0 in any int type; bool is f != 0.
    if (dtype == DType::Float32)
      std::memcpy(dst, &f, 4);
    else if (dtype == DType::Float64) {
      double d = f;
      std::memcpy(dst, &d, 8);
    } else if (dtype == DType::BFloat16) {
      uint16_t b = float_to_bf16(f);
      std::memcpy(dst, &b, 2);
    } else if (dtype == DType::Bool)
      *dst = f != 0.0f;
    else
      std::memset(dst, 0, size);
  }
}

} // namespace tg
