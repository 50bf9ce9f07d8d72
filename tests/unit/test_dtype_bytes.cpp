// dtype/dtype_bytes: element loads, stores and casts, against numpy's astype.
#include <gtest/gtest.h>

#include <cstring>

#include "dtype/dtype_bytes.h"

using namespace tg;

namespace {

template <class T> std::vector<uint8_t> bytes_of(std::vector<T> v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

} // namespace

TEST(DTypeBytes, every_dtype_round_trips_its_values) {
  for (int d = 0; d < kNumDTypes; ++d) {
    DType dt = DType(d);
    for (int64_t v : {0, 1, 5, 100}) {
      std::vector<uint8_t> b(size_t(itemsize(dt)));
      store_element(b.data(), Scalar::of_int(dt == DType::Bool ? v != 0 : v), dt);
      EXPECT_EQ(load_element(b.data(), dt).as_double(), dt == DType::Bool ? double(v != 0) : double(v))
          << py_name(dt) << " " << v;
    }
  }
}

TEST(DTypeBytes, casts_as_numpy_astype) {
  // float64 -> float16 rounds once: 1 + 2^-11 + 2^-40 is above the halfway point, so it rounds up
  // (a float32 step first would land on the tie and round to even, down)
  auto h = cast_elements(bytes_of<double>({1.0 + 0x1p-11 + 0x1p-40, 65504.7, -2.5}), DType::Float64,
                         DType::Float16);
  EXPECT_EQ(load_element(h.data(), DType::Float16).f, 1.0 + 0x1p-10);
  EXPECT_EQ(load_element(h.data() + 2, DType::Float16).f, 65504.0);
  EXPECT_EQ(load_element(h.data() + 4, DType::Float16).f, -2.5);
  // floats truncate toward zero into ints; ints wrap
  auto i = cast_elements(bytes_of<float>({-2.7f, 2.7f, 300.0f}), DType::Float32, DType::Int8);
  EXPECT_EQ(int8_t(i[0]), -2);
  EXPECT_EQ(int8_t(i[1]), 2);
  EXPECT_EQ(int8_t(i[2]), 44); // 300 mod 256
  // uint64 past INT64_MAX becomes its float value, not a negative one
  auto f = cast_elements(bytes_of<uint64_t>({uint64_t(1) << 63}), DType::UInt64, DType::Float32);
  EXPECT_EQ(load_element(f.data(), DType::Float32).f, 0x1p63);
  // bool is nonzero
  auto b = cast_elements(bytes_of<double>({0.0, -0.5, 2.0}), DType::Float64, DType::Bool);
  EXPECT_EQ(b, (std::vector<uint8_t>{0, 1, 1}));
}
