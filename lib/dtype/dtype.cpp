#include "dtype/dtype.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

namespace tg {
namespace {

struct DTypeInfo {
  int itemsize;
  std::string_view c_name, py_name, npy_descr;
  std::string_view repr_name; // after "dtypes." in tinygrad's repr: its last alias (INVERSE_DTYPES_DICT)
};

// clang-format off
constexpr DTypeInfo kInfo[kNumDTypes] = {
  {1, "bool", "bool", "|b1", "bool"},
  {1, "char", "int8", "|i1", "char"},
  {1, "unsigned char", "uint8", "|u1", "uchar"},
  {2, "short", "int16", "<i2", "short"},
  {2, "unsigned short", "uint16", "<u2", "ushort"},
  {4, "int", "int32", "<i4", "int"},
  {4, "unsigned int", "uint32", "<u4", "uint"},
  {8, "long", "int64", "<i8", "long"},
  {8, "unsigned long", "uint64", "<u8", "ulong"},
  {2, "half", "float16", "<f2", "half"},
  {2, "__bf16", "bfloat16", "", "bfloat16"},
  {4, "float", "float32", "<f4", "float"},
  {8, "double", "float64", "<f8", "double"},
};

struct Alias { std::string_view name; DType dt; };
constexpr Alias kAliases[] = {
  {"half", DType::Float16}, {"float", DType::Float32}, {"double", DType::Float64},
  {"uchar", DType::UInt8}, {"ushort", DType::UInt16}, {"uint", DType::UInt32}, {"ulong", DType::UInt64},
  {"char", DType::Int8}, {"short", DType::Int16}, {"int", DType::Int32}, {"long", DType::Int64},
};
// clang-format on

const DTypeInfo& info(DType dt) { return kInfo[int(dt)]; }

// The promotion lattice as a parent table; least_upper_dtype is the lowest common ancestor by
// priority, computed over 13-bit ancestor sets.
uint16_t ancestors(DType dt) {
  static const auto table = [] {
    std::array<uint16_t, kNumDTypes> anc{};
    auto bit = [](DType d) { return uint16_t(1u << int(d)); };
    using D = DType;
    const std::vector<std::pair<D, std::vector<D>>> parents = {
        {D::Bool, {D::Int8, D::UInt8}},
        {D::Int8, {D::Int16}},
        {D::Int16, {D::Int32}},
        {D::Int32, {D::Int64}},
        {D::Int64, {D::Float16, D::BFloat16}},
        {D::UInt8, {D::Int16, D::UInt16}},
        {D::UInt16, {D::Int32, D::UInt32}},
        {D::UInt32, {D::Int64, D::UInt64}},
        {D::UInt64, {D::Float16, D::BFloat16}},
        {D::Float16, {D::Float32}},
        {D::BFloat16, {D::Float32}},
        {D::Float32, {D::Float64}},
    };
    // Parents always have a higher priority, so filling from the top down sees them done.
    anc[int(D::Float64)] = bit(D::Float64);
    for (int i = kNumDTypes - 2; i >= 0; --i) {
      uint16_t a = bit(D(i));
      for (auto& [child, ps] : parents)
        if (child == D(i))
          for (D p : ps) a |= anc[int(p)];
      anc[i] = a;
    }
    return anc;
  }();
  return table[int(dt)];
}

} // namespace

int itemsize(DType dt) { return info(dt).itemsize; }
std::string_view c_name(DType dt) { return info(dt).c_name; }
std::string_view py_name(DType dt) { return info(dt).py_name; }
std::string dtype_repr(DType dt) { return "dtypes." + std::string(info(dt).repr_name); }
std::string_view npy_descr(DType dt) { return info(dt).npy_descr; }
bool is_float(DType dt) { return dt >= DType::Float16; }
bool is_unsigned(DType dt) {
  return dt == DType::UInt8 || dt == DType::UInt16 || dt == DType::UInt32 || dt == DType::UInt64;
}
bool is_int(DType dt) { return dt != DType::Bool && !is_float(dt); }
bool float_cast_through_int64(DType to) {
  return to == DType::Int8 || to == DType::UInt8 || to == DType::Int16 || to == DType::UInt16;
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (kInfo[i].py_name == name) return DType(i);
  for (const auto& a : kAliases)
    if (a.name == name) return a.dt;
  return std::nullopt;
}

std::optional<DType> dtype_from_npy_descr(std::string_view descr) {
  for (int i = 0; i < kNumDTypes; ++i) {
    std::string_view d = kInfo[i].npy_descr;
    if (d.empty()) continue;
    // Single-byte types may be written with '|', '<' or '='.
    if (d == descr || (descr.size() == d.size() && d.substr(1) == descr.substr(1) &&
                       (descr[0] == '<' || descr[0] == '=' || descr[0] == '|')))
      return DType(i);
  }
  return std::nullopt;
}

DType least_upper_dtype(DType a, DType b) {
  uint16_t common = ancestors(a) & ancestors(b);
  return DType(std::countr_zero(common));
}
DType least_upper_float(DType dt) { return is_float(dt) ? dt : least_upper_dtype(dt, DType::Float32); }
DType sum_acc_dtype(DType dt) {
  if (is_unsigned(dt)) return least_upper_dtype(dt, DType::UInt32);
  if (is_int(dt) || dt == DType::Bool) return least_upper_dtype(dt, DType::Int32);
  return least_upper_dtype(dt, DType::Float32);
}

uint64_t Scalar::bits() const {
  switch (kind) {
  case Kind::Bool:
    return b;
  case Kind::Int:
    return uint64_t(i);
  case Kind::Float:
    return std::bit_cast<uint64_t>(f);
  }
  return 0;
}

bool Scalar::operator==(const Scalar& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
  case Kind::Bool:
    return b == o.b;
  case Kind::Int:
    return i == o.i;
  case Kind::Float:
    return std::memcmp(&f, &o.f, sizeof f) == 0; // nan == nan, -0 != 0: identity
  }
  return false;
}

std::string Scalar::repr() const {
  switch (kind) {
  case Kind::Bool:
    return b ? "True" : "False";
  case Kind::Int:
    return std::to_string(i);
  case Kind::Float: {
    if (std::isnan(f)) return "nan";
    if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
    char buf[64];
    // Python's repr: shortest round-trip; %.17g then trimmed is close enough for messages.
    for (int prec = 1; prec <= 17; ++prec) {
      std::snprintf(buf, sizeof buf, "%.*g", prec, f);
      if (std::strtod(buf, nullptr) == f) break;
    }
    std::string s = buf;
    if (s.find_first_of(".eninf") == std::string::npos) s += ".0";
    return s;
  }
  }
  return "";
}

DType dtype_of(const Scalar& s) {
  return s.kind == Scalar::Kind::Float ? kDefaultFloat
         : s.kind == Scalar::Kind::Int ? kDefaultInt
                                       : DType::Bool;
}

Scalar as_const(const Scalar& v, DType dt) {
  if (is_int(dt)) return Scalar::of_int(v.as_int());
  if (is_float(dt)) return Scalar::of_float(v.as_double());
  return Scalar::of_bool(v.truthy());
}

float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
  if (exp == 0) {
    if (mant == 0)
      bits = sign;
    else { // subnormal: normalise
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 0x1f)
    bits = sign | 0x7f800000 | (mant << 13);
  else
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  return std::bit_cast<float>(bits);
}

uint16_t float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f), sign = (x >> 16) & 0x8000;
  uint32_t absx = x & 0x7fffffff;
  if (absx >= 0x7f800000) return uint16_t(sign | 0x7c00 | (absx > 0x7f800000 ? 0x200 : 0));
  if (absx >= 0x477ff000) return uint16_t(sign | 0x7c00); // rounds to inf
  if (absx < 0x38800000) {                                // subnormal or zero: round to nearest even at 2^-24
    float v = std::bit_cast<float>(absx) * 16777216.0f;   // scale so 1 ulp == 1
    uint32_t m = uint32_t(std::nearbyint(v));
    return uint16_t(sign | m);
  }
  uint32_t mant = absx & 0x7fffff, exp = (absx >> 23) - 127 + 15;
  uint32_t h = (exp << 10) | (mant >> 13), rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
  return uint16_t(sign | h);
}

float bf16_to_float(uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); }
uint16_t float_to_bf16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffff) > 0x7f800000) return uint16_t((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return uint16_t(x >> 16);
}

Scalar truncate(const Scalar& v, DType dt) {
  switch (dt) {
  case DType::Bool:
    return Scalar::of_bool(v.truthy());
  case DType::Int8:
    return Scalar::of_int(int8_t(v.as_int()));
  case DType::UInt8:
    return Scalar::of_int(uint8_t(v.as_int()));
  case DType::Int16:
    return Scalar::of_int(int16_t(v.as_int()));
  case DType::UInt16:
    return Scalar::of_int(uint16_t(v.as_int()));
  case DType::Int32:
    return Scalar::of_int(int32_t(v.as_int()));
  case DType::UInt32:
    return Scalar::of_int(uint32_t(v.as_int()));
  case DType::Int64:
  case DType::UInt64:
    return Scalar::of_int(v.as_int());
  case DType::Float16:
    return Scalar::of_float(half_to_float(float_to_half(float(v.as_double()))));
  case DType::BFloat16:
    return Scalar::of_float(bf16_to_float(float_to_bf16(float(v.as_double()))));
  case DType::Float32:
    return Scalar::of_float(float(v.as_double()));
  case DType::Float64:
    return Scalar::of_float(v.as_double());
  }
  return v;
}

} // namespace tg
