// Creation: scalars, nested lists (numpy's conversion rules, as 0.9.1 goes through numpy),
// bytes, placeholders and the full/zeros/ones/arange/eye helpers.
#include <cmath>
#include <cstring>

#include "tensor/tensor_impl.h"
#include "util/error.h"

namespace tg {
namespace {

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

template <class T> void put(std::vector<uint8_t>& out, T v) {
  size_t at = out.size();
  out.resize(at + sizeof v);
  std::memcpy(out.data() + at, &v, sizeof v);
}

void pack_int(std::vector<uint8_t>& out, int64_t v, DType dt) {
  switch (dt) {
  case DType::Bool:
    put<uint8_t>(out, v != 0);
    break;
  case DType::Int8:
    put<int8_t>(out, int8_t(v));
    break;
  case DType::UInt8:
    put<uint8_t>(out, uint8_t(v));
    break;
  case DType::Int16:
    put<int16_t>(out, int16_t(v));
    break;
  case DType::UInt16:
    put<uint16_t>(out, uint16_t(v));
    break;
  case DType::Int32:
    put<int32_t>(out, int32_t(v));
    break;
  case DType::UInt32:
    put<uint32_t>(out, uint32_t(v));
    break;
  case DType::Int64:
    put<int64_t>(out, v);
    break;
  case DType::UInt64:
    put<uint64_t>(out, uint64_t(v));
    break;
  case DType::Float16:
    put<uint16_t>(out, float_to_half(float(v)));
    break;
  case DType::BFloat16:
    put<uint16_t>(out, float_to_bf16(float(v)));
    break;
  case DType::Float32:
    put<float>(out, float(v));
    break;
  case DType::Float64:
    put<double>(out, double(v));
    break;
  }
}

void pack_float(std::vector<uint8_t>& out, double v, DType dt) {
  switch (dt) {
  case DType::Bool:
    put<uint8_t>(out, v != 0);
    break;
  case DType::Float16:
    put<uint16_t>(out, float_to_half(to_float_round_odd(v)));
    break;
  case DType::BFloat16:
    put<uint16_t>(out, float_to_bf16(to_float_round_odd(v)));
    break;
  case DType::Float32:
    put<float>(out, float(v));
    break;
  case DType::Float64:
    put<double>(out, v);
    break;
  default:
    pack_int(out, float_to_int(v), dt);
    break;
  }
}

} // namespace

Tensor Tensor::scalar(const Scalar& v, std::optional<DType> dtype, std::optional<bool> requires_grad) {
  return Tensor(LazyBuffer::loadop(Op::LOAD_CONST, {}, dtype.value_or(dtype_of(v)), v), requires_grad);
}

Tensor Tensor::from_list(const std::vector<Scalar>& flat, const Shape& shape, std::optional<DType> dtype,
                         std::optional<bool> requires_grad) {
  check(int64_t(flat.size()) == prod(shape), "ValueError",
        "list has " + std::to_string(flat.size()) + " elements, shape " + py::tuple_repr(shape) + " needs " +
            std::to_string(prod(shape)));
  bool all_bool = !flat.empty(), any_float = false;
  for (const Scalar& s : flat) {
    all_bool &= s.kind == Scalar::Kind::Bool;
    any_float |= s.kind == Scalar::Kind::Float;
  }
  DType dt = dtype                           ? *dtype
             : all_bool                      ? DType::Bool
             : (!flat.empty() && !any_float) ? kDefaultInt
                                             : kDefaultFloat;
  // bfloat16 goes through a float32 buffer and a cast, as 0.9.1 does.
  DType storage = dt == DType::BFloat16 ? DType::Float32 : dt;
  std::vector<uint8_t> bytes;
  bytes.reserve(flat.size() * itemsize(storage));
  for (const Scalar& s : flat) {
    if (any_float)
      pack_float(bytes, s.as_double(), storage);
    else
      pack_int(bytes, s.as_int(), storage);
  }
  LazyBuffer lb = LazyBuffer::from_data(std::move(bytes), shape, storage);
  if (dt == DType::BFloat16) lb = Tensor(lb).cast(DType::BFloat16).lazydata();
  return Tensor(lb, requires_grad);
}

Tensor Tensor::from_bytes(const std::vector<uint8_t>& bytes, std::optional<DType>) {
  // Tensor(bytes) is always uint8 in 0.9.1: the dtype argument is not applied to bytes.
  return Tensor(LazyBuffer::from_data(bytes, {int64_t(bytes.size())}, DType::UInt8));
}

Tensor Tensor::placeholder(const std::string& name, const Shape& shape, DType dtype, bool requires_grad) {
  return Tensor(LazyBuffer::placeholder(name, shape, dtype), requires_grad);
}

Tensor Tensor::empty(const Shape& shape, std::optional<DType> dtype) {
  return Tensor(LazyBuffer::loadop(Op::EMPTY, shape, dtype.value_or(kDefaultFloat)));
}

Tensor Tensor::full(const Shape& shape, const Scalar& fill, std::optional<DType> dtype) {
  return scalar(fill, dtype).reshape(Shape(shape.size(), 1)).expand(shape);
}
Tensor Tensor::zeros(const Shape& shape, std::optional<DType> dtype) {
  return full(shape, Scalar::of_float(0.0), dtype);
}
Tensor Tensor::ones(const Shape& shape, std::optional<DType> dtype) {
  return full(shape, Scalar::of_float(1.0), dtype);
}

Tensor Tensor::arange(const Scalar& start_in, std::optional<Scalar> stop_in, const Scalar& step,
                      std::optional<DType> dtype) {
  Scalar start = stop_in ? start_in : Scalar::of_int(0);
  Scalar stop = stop_in ? *stop_in : start_in;
  bool any_float = start.kind == Scalar::Kind::Float || stop.kind == Scalar::Kind::Float ||
                   step.kind == Scalar::Kind::Float;
  DType dt = dtype.value_or(any_float ? kDefaultFloat : kDefaultInt);
  if (step.as_double() == 0)
    fail("ZeroDivisionError", any_float ? "float division by zero" : "division by zero");
  int64_t n = int64_t(std::ceil((stop.as_double() - start.as_double()) / step.as_double()));
  return cumsum_impl(full({n}, step, dt), 0, false).add(Operand(py::sub(start, step))).cast(dt);
}

Tensor Tensor::eye(int64_t dim, std::optional<DType> dtype) {
  return ones({dim, 1}, dtype)
      .pad({std::nullopt, std::pair<int64_t, int64_t>{0, dim}})
      .flatten()
      .shrink({std::pair<int64_t, int64_t>{0, dim * dim}})
      .reshape({dim, dim});
}

Tensor Tensor::full_like(const Scalar& fill, std::optional<DType> dtype) const {
  return full(shape(), fill, dtype.value_or(this->dtype()));
}
Tensor Tensor::zeros_like(std::optional<DType> dtype) const { return full_like(Scalar::of_int(0), dtype); }
Tensor Tensor::ones_like(std::optional<DType> dtype) const { return full_like(Scalar::of_int(1), dtype); }

} // namespace tg
