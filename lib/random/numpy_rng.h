// numpy's default generator, bit for bit: np.random.default_rng(seed) is SeedSequence(seed)
// feeding PCG64 (XSL-RR 128/64). tinygrad 0.9.1's default Tensor.rand (custom_random) draws
// from it, so tg-run fills random buffers with these numbers.
#pragma once
#include <cstddef>
#include <cstdint>

#include "dtype/dtype.h"

namespace tg {

class Pcg64 {
public:
  explicit Pcg64(uint64_t seed); // default_rng(seed): SeedSequence(seed).generate_state(4, uint64)
  uint64_t next64();
  uint32_t next32(); // numpy keeps the high half of a 64-bit draw for the next call
  float next_float() { return float(next32() >> 8) * (1.0f / 16777216.0f); } // random(dtype=float32)
  // integers(low, high) with high exclusive: Lemire's bounded method on 32-bit draws, as
  // random_bounded_uint64_fill does for ranges that fit 32 bits.
  int64_t next_int(int64_t low, int64_t high);

private:
  unsigned __int128 state_, inc_;
  bool has_uint32_ = false;
  uint32_t uinteger_ = 0;
};

// tinygrad's custom_random(out): default_rng(seed), then for half `integers(0, 2047, n) / 2048`,
// for anything else `random(n, dtype=float32)` cast to the dtype. Writes n items of dtype.
void numpy_random_fill(uint64_t seed, DType dtype, size_t n, uint8_t* out);

} // namespace tg
