// dtype layer: one element's bytes as a value and back, with numpy's conversions (astype on
// x86): the one place that knows how each dtype is laid out in memory.
#pragma once
#include <cstdint>
#include <vector>

#include "dtype/dtype.h"

namespace tg {

// The element of `dt` at p: a Bool, an Int (uint64 above INT64_MAX wraps) or a Float.
Scalar load_element(const uint8_t* p, DType dt);
// `v` converted to `dt` at p: ints wrap; floats truncate toward zero into ints (out of range:
// INT64_MIN, as numpy on x86); float64 reaches float16/bfloat16 with one rounding; bool is v != 0.
void store_element(uint8_t* p, const Scalar& v, DType dt);
// Every element of `bytes` (a `from` array) converted to `to`, as numpy's astype.
std::vector<uint8_t> cast_elements(const std::vector<uint8_t>& bytes, DType from, DType to);

} // namespace tg
