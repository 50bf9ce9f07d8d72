// Creation: scalars, nested lists (numpy's conversion rules, as 0.9.1 goes through numpy),
// bytes, placeholders and the full/zeros/ones/arange/eye helpers.
#include <cmath>
#include <cstring>

#include "dtype/dtype_bytes.h"
#include "tensor/tensor_impl.h"
#include "util/error.h"

namespace tg {

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
  const size_t isz = size_t(itemsize(storage));
  std::vector<uint8_t> bytes(flat.size() * isz);
  for (size_t i = 0; i < flat.size(); ++i) // a float anywhere makes every element a float, as numpy
    store_element(bytes.data() + i * isz, any_float ? Scalar::of_float(flat[i].as_double()) : flat[i],
                  storage);
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

Tensor Tensor::full(const Shape& shape, const Scalar& fill, std::optional<DType> dtype,
                    std::optional<bool> requires_grad) {
  return scalar(fill, dtype, requires_grad).reshape(Shape(shape.size(), 1)).expand(shape);
}
Tensor Tensor::zeros(const Shape& shape, std::optional<DType> dtype, std::optional<bool> requires_grad) {
  return full(shape, Scalar::of_float(0.0), dtype, requires_grad);
}
Tensor Tensor::ones(const Shape& shape, std::optional<DType> dtype, std::optional<bool> requires_grad) {
  return full(shape, Scalar::of_float(1.0), dtype, requires_grad);
}

Tensor Tensor::from_node(const sint& n, std::optional<DType> dtype) {
  DType dt = dtype.value_or(DType::Int32);
  if (n.is_int()) return scalar(Scalar::of_int(int64_t(n)), dt, false);
  if (n.min() < 0) fail("NotImplementedError", "tg: a tensor of " + n.str() + ", which can be negative");
  return full({n}, Scalar::of_int(1), dt, false).sum();
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

Tensor Tensor::full_like(const Scalar& fill, std::optional<DType> dtype,
                         std::optional<bool> requires_grad) const {
  return full(shape(), fill, dtype.value_or(this->dtype()), requires_grad).placed_like(*this);
}
Tensor Tensor::zeros_like(std::optional<DType> dtype, std::optional<bool> requires_grad) const {
  return full_like(Scalar::of_int(0), dtype, requires_grad);
}
Tensor Tensor::ones_like(std::optional<DType> dtype, std::optional<bool> requires_grad) const {
  return full_like(Scalar::of_int(1), dtype, requires_grad);
}

} // namespace tg
