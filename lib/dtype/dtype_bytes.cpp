// Element bytes. See dtype_bytes.h.
#include "dtype/dtype_bytes.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace tg {

namespace {

template <class T> T get(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T> void put(uint8_t* p, T v) { std::memcpy(p, &v, sizeof v); }

// float64 -> float32 rounded to odd, so a following float32 -> float16 rounding is exact
// (numpy converts float64 to float16 directly).
float to_float_round_odd(double d) {
  float f = float(d);
  if (std::isfinite(f) && double(f) != d) {
    if (std::fabs(double(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits |= 1;
    std::memcpy(&f, &bits, 4);
  }
  return f;
}

// numpy's float64 -> integer cast on x86: truncation, out of range gives the minimum int64.
int64_t float_to_int(double d) {
  if (!(d >= -9.2233720368547758e18 && d < 9.2233720368547758e18)) return std::numeric_limits<int64_t>::min();
  return int64_t(d);
}

void store_int(uint8_t* p, int64_t v, DType dt) {
  switch (dt) {
  case DType::Bool:
    return put<uint8_t>(p, v != 0);
  case DType::Int8:
    return put<int8_t>(p, int8_t(v));
  case DType::UInt8:
    return put<uint8_t>(p, uint8_t(v));
  case DType::Int16:
    return put<int16_t>(p, int16_t(v));
  case DType::UInt16:
    return put<uint16_t>(p, uint16_t(v));
  case DType::Int32:
    return put<int32_t>(p, int32_t(v));
  case DType::UInt32:
    return put<uint32_t>(p, uint32_t(v));
  case DType::Int64:
    return put<int64_t>(p, v);
  case DType::UInt64:
    return put<uint64_t>(p, uint64_t(v));
  case DType::Float16:
    return put<uint16_t>(p, float_to_half(float(v)));
  case DType::BFloat16:
    return put<uint16_t>(p, float_to_bf16(float(v)));
  case DType::Float32:
    return put<float>(p, float(v));
  case DType::Float64:
    return put<double>(p, double(v));
  }
}

void store_float(uint8_t* p, double v, DType dt) {
  switch (dt) {
  case DType::Bool:
    return put<uint8_t>(p, v != 0);
  case DType::Float16:
    return put<uint16_t>(p, float_to_half(to_float_round_odd(v)));
  case DType::BFloat16:
    return put<uint16_t>(p, float_to_bf16(to_float_round_odd(v)));
  case DType::Float32:
    return put<float>(p, float(v));
  case DType::Float64:
    return put<double>(p, v);
  default:
    return store_int(p, float_to_int(v), dt);
  }
}

} // namespace

Scalar load_element(const uint8_t* p, DType dt) {
  switch (dt) {
  case DType::Bool:
    return Scalar::of_bool(get<uint8_t>(p) != 0);
  case DType::Int8:
    return Scalar::of_int(get<int8_t>(p));
  case DType::UInt8:
    return Scalar::of_int(get<uint8_t>(p));
  case DType::Int16:
    return Scalar::of_int(get<int16_t>(p));
  case DType::UInt16:
    return Scalar::of_int(get<uint16_t>(p));
  case DType::Int32:
    return Scalar::of_int(get<int32_t>(p));
  case DType::UInt32:
    return Scalar::of_int(get<uint32_t>(p));
  case DType::Int64:
    return Scalar::of_int(get<int64_t>(p));
  case DType::UInt64:
    return Scalar::of_int(int64_t(get<uint64_t>(p)));
  case DType::Float16:
    return Scalar::of_float(half_to_float(get<uint16_t>(p)));
  case DType::BFloat16:
    return Scalar::of_float(bf16_to_float(get<uint16_t>(p)));
  case DType::Float32:
    return Scalar::of_float(get<float>(p));
  case DType::Float64:
    return Scalar::of_float(get<double>(p));
  }
  return Scalar::of_int(0);
}

void store_element(uint8_t* p, const Scalar& v, DType dt) {
  if (v.kind == Scalar::Kind::Float)
    store_float(p, v.f, dt);
  else
    store_int(p, v.as_int(), dt);
}

std::vector<uint8_t> cast_elements(const std::vector<uint8_t>& bytes, DType from, DType to) {
  const size_t in = size_t(itemsize(from)), out = size_t(itemsize(to)), n = bytes.size() / in;
  std::vector<uint8_t> result(n * out);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* p = bytes.data() + i * in;
    if (from == DType::UInt64 && is_float(to)) // above INT64_MAX it must not wrap first
      store_float(result.data() + i * out, double(get<uint64_t>(p)), to);
    else
      store_element(result.data() + i * out, load_element(p, from), to);
  }
  return result;
}

} // namespace tg
