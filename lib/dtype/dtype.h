// dtype layer: tinygrad 0.9.1's scalar dtypes, their promotion lattice and value truncation.
// A DType is a small enum; every property is a table lookup. Depends on nothing.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tg {

// Order = tinygrad priority, so `a < b` compares priorities like DType's dataclass order.
enum class DType : uint8_t {
  Bool,
  Int8,
  UInt8,
  Int16,
  UInt16,
  Int32,
  UInt32,
  Int64,
  UInt64,
  Float16,
  BFloat16,
  Float32,
  Float64
};
constexpr int kNumDTypes = 13;

int itemsize(DType dt);
std::string_view c_name(DType dt);    // tinygrad's DType.name: "float", "unsigned char", "__bf16"
std::string_view py_name(DType dt);   // "float32", "uint8": the name after `dtypes.`
std::string_view npy_descr(DType dt); // numpy's descr: "<f4", "|b1"; "" where numpy has none
std::string dtype_repr(DType dt);     // tinygrad's repr: "dtypes.float", "dtypes.uchar"
bool is_float(DType dt);
bool is_int(DType dt); // signed or unsigned
bool is_unsigned(DType dt);
// Host devices convert a float to this integer type through int64, which makes an out-of-range
// value (undefined in C and poison in LLVM) wrap as numpy's does on x86 (-4.5 -> uint8 252): the
// 8- and 16-bit types. (int32 keeps tinygrad's plain conversion and text; uint32 too, where
// tinygrad's clang, on AVX-512, gives cvttss2usi's 0xffffffff for a negative value.)
bool float_cast_through_int64(DType to);
std::optional<DType> dtype_from_name(std::string_view name); // accepts aliases: float, half, uint ...
std::optional<DType> dtype_from_npy_descr(std::string_view descr);

constexpr DType kDefaultFloat = DType::Float32;
constexpr DType kDefaultInt = DType::Int32;

DType least_upper_dtype(DType a, DType b);
DType least_upper_float(DType dt);
DType sum_acc_dtype(DType dt);

// A scalar constant as tinygrad's ConstType (bool | int | float). Ints keep 64 bits; a uint64
// beyond INT64_MAX is stored by its bit pattern.
struct Scalar {
  enum class Kind : uint8_t { Bool, Int, Float } kind = Kind::Float;
  bool b = false;
  int64_t i = 0;
  double f = 0.0;

  static Scalar of_bool(bool v) {
    Scalar s;
    s.kind = Kind::Bool;
    s.b = v;
    return s;
  }
  static Scalar of_int(int64_t v) {
    Scalar s;
    s.kind = Kind::Int;
    s.i = v;
    return s;
  }
  static Scalar of_float(double v) {
    Scalar s;
    s.kind = Kind::Float;
    s.f = v;
    return s;
  }
  double as_double() const { return kind == Kind::Float ? f : kind == Kind::Int ? double(i) : double(b); }
  int64_t as_int() const { return kind == Kind::Int ? i : kind == Kind::Bool ? int64_t(b) : int64_t(f); }
  bool truthy() const { return kind == Kind::Float ? f != 0.0 : kind == Kind::Int ? i != 0 : b; }
  bool operator==(const Scalar& o) const; // identity: nan == nan, -0.0 != 0.0
  // The value's bit pattern in its kind: with `kind`, equal exactly when operator== is (a hash
  // or map key for constants).
  uint64_t bits() const;
  std::string repr() const; // Python repr: True, 3, 1.5, inf, nan
};

// dtypes.from_py for one scalar.
DType dtype_of(const Scalar& s);
// dtypes.as_const: the scalar in the dtype's Python kind (int(), float(), bool()).
Scalar as_const(const Scalar& v, DType dt);
// The value a dtype can actually hold: wraps ints, rounds to half/bfloat16/float32.
Scalar truncate(const Scalar& v, DType dt);

float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bf16_to_float(uint16_t h);
uint16_t float_to_bf16(float f);

} // namespace tg
