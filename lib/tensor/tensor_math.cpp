// Elementwise math: _broadcasted with 0.9.1's dtype rule for Python scalars, the binary and
// comparison operators, pow's identities, where, casts, and the unary ops and activations, each
// written in terms of Functions and other methods exactly as tensor.py writes it.
#include <cmath>
#include <numbers>

#include "tensor/tensor_impl.h"
#include "util/error.h"

namespace tg {
namespace {

Scalar fl(double v) { return Scalar::of_float(v); }
Scalar in(int64_t v) { return Scalar::of_int(v); }
bool is_py_int(const Scalar& s) { return s.kind != Scalar::Kind::Float; } // bool is an int in Python

} // namespace

// ---- broadcasting ----

Tensor broadcast_to(const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  if (x.ndim() > int(shape.size()))
    fail("ValueError", "cannot broadcast tensor to fewer dimensions. shape=" + py::tuple_repr(x.shape()) +
                           " to shape=" + py::tuple_repr(shape));
  Shape padded(shape.size() - x.shape().size(), 1);
  padded.insert(padded.end(), x.shape().begin(), x.shape().end());
  for (size_t k = 0; k < shape.size(); ++k)
    if (padded[k] != 1 && padded[k] != shape[k])
      fail("ValueError",
           "cannot broadcast from shape=" + py::tuple_repr(x.shape()) + " to shape=" + py::tuple_repr(shape));
  return apply<fn::Expand>({x.reshape(padded)}, shape);
}

Tensor as_tensor_like(const Tensor& x, const Operand& y) {
  if (y.tensor) return *y.tensor;
  DType y_dtype =
      (is_float(x.dtype()) || (is_int(x.dtype()) && is_py_int(y.value))) ? x.dtype() : dtype_of(y.value);
  return Tensor::scalar(as_const(y.value, y_dtype), y_dtype, false).placed_like(x);
}

std::pair<Tensor, Tensor> broadcasted(const Tensor& self, const Operand& y_in, bool reverse,
                                      bool match_dtype) {
  Tensor x = self, y = as_tensor_like(self, y_in);
  if (match_dtype && x.dtype() != y.dtype()) {
    DType out = least_upper_dtype(x.dtype(), y.dtype());
    x = x.cast(out), y = y.cast(out);
  }
  if (reverse) std::swap(x, y);
  Shape out_shape = broadcast_shape({x.shape(), y.shape()});
  return {broadcast_to(x, out_shape), broadcast_to(y, out_shape)};
}

Operand to_const_val(const Tensor& self, const Operand& x) {
  if (!x.tensor) return x;
  const Tensor& t = *x.tensor;
  if (t.lazydata().is_unrealized_unmasked_const() && t.requires_grad() != true &&
      broadcasted(self, x).first.shape() == self.shape())
    return Operand(t.lazydata().const_value());
  return x;
}

Operand operand_neg(const Operand& x) {
  return x.tensor ? Operand(x.tensor->neg()) : Operand(py::neg(x.value));
}
Operand operand_mul(const Operand& x, const Scalar& s) {
  return x.tensor ? Operand(x.tensor->mul(s)) : Operand(py::mul(x.value, s));
}

// ---- binary ----

Tensor Tensor::add(const Operand& x, bool reverse) const {
  auto [a, b] = broadcasted(*this, x, reverse);
  return apply<fn::Add>({a, b});
}
Tensor Tensor::sub(const Operand& x, bool reverse) const {
  auto [a, b] = broadcasted(*this, x, reverse);
  return a.add(b.neg());
}
Tensor Tensor::mul(const Operand& x, bool reverse) const {
  auto [a, b] = broadcasted(*this, x, reverse);
  return apply<fn::Mul>({a, b});
}
Tensor Tensor::div(const Operand& x, bool reverse, bool upcast) const {
  auto [num, den] = broadcasted(*this, x, reverse);
  if (upcast) num = num.cast(least_upper_float(num.dtype())), den = den.cast(least_upper_float(den.dtype()));
  return apply<fn::Div>({num, den});
}
Tensor Tensor::xor_(const Operand& x, bool reverse) const {
  auto [a, b] = broadcasted(*this, x, reverse);
  return apply<fn::Xor>({a, b});
}
Tensor Tensor::lshift(int64_t x) const {
  check(is_unsigned(dtype()) && x >= 0, "AssertionError",
        "not supported self.dtype=" + py::dtype_repr(dtype()) + " x=" + std::to_string(x));
  return mul(in(int64_t(uint64_t(1) << x)));
}
Tensor Tensor::rshift(int64_t x) const {
  check(is_unsigned(dtype()) && x >= 0, "AssertionError",
        "not supported self.dtype=" + py::dtype_repr(dtype()) + " x=" + std::to_string(x));
  return div(in(int64_t(uint64_t(1) << x)), false, false);
}

Tensor Tensor::pow(const Operand& x_in, bool reverse) const {
  Operand x = to_const_val(*this, x_in);
  if (!x.tensor && !reverse) {
    Scalar v = x.value.kind == Scalar::Kind::Bool ? in(x.value.as_int()) : x.value;
    bool isf = v.kind == Scalar::Kind::Float;
    double d = v.as_double();
    if (d < 0) return reciprocal().pow(py::neg(v));
    if (d == 0) return mul(in(0)).add(in(1), true);
    if (std::isnan(d)) fail("ValueError", "cannot convert float NaN to integer");
    if (std::isinf(d)) fail("OverflowError", "cannot convert float infinity to integer");
    if (double(int64_t(d - 0.5)) + 0.5 == d) return pow(in(int64_t(d - 0.5))).mul(sqrt());
    if (double(int64_t(d)) == d) {
      Scalar half = isf ? fl(std::floor(d / 2)) : in(py::floordiv(v.i, 2));
      bool even = isf ? std::fmod(d, 2.0) == 0 : py::mod(v.i, 2) == 0;
      Tensor sq = pow(half).square();
      return even ? sq.mul(in(1)) : sq.mul(*this);
    }
  }
  if (!x.tensor && reverse && x.value.as_double() > 0) return mul(fl(std::log(x.value.as_double()))).exp();
  auto [base, exponent] = broadcasted(*this, x, reverse);
  Tensor ret = base.abs().log().mul(exponent).exp();
  // the sign of a negative base with an odd exponent, via cos's period; nan for non-integer exponents
  Tensor negative_base = base.lt(in(0)).detach().where(in(1), in(0));
  Tensor correct_sign =
      negative_base.mul(exponent.mul(fl(std::numbers::pi)).cos().sub(in(1))).add(in(1), true);
  Tensor inject_nan = negative_base.mul(exponent.ne(exponent.trunc())).detach().where(fl(NAN), in(1));
  return base.eq(in(0)).mul(exponent.eq(in(0))).detach().where(in(1), ret.mul(correct_sign).mul(inject_nan));
}

Tensor Tensor::maximum(const Operand& x) const {
  Tensor mid = mul(fl(0.5)).add(operand_mul(x, fl(0.5))).cast(dtype());
  return lt(x).detach().where(x, eq(x).detach().where(mid, *this));
}
Tensor Tensor::minimum(const Operand& x) const { return neg().maximum(operand_neg(x)).neg(); }

Tensor Tensor::where(const Operand& x_in, const Operand& y_in) const {
  Operand x = x_in, y = y_in;
  if (x.tensor) {
    auto [a, b] = broadcasted(*x.tensor, y);
    x = a, y = b;
  } else if (y.tensor) {
    auto [b, a] = broadcasted(*y.tensor, x);
    x = a, y = b;
  }
  auto [cond0, xt] = broadcasted(*this, x, false, false);
  auto [cond, yt] = broadcasted(cond0, y, false, false);
  auto [xb, yb] = broadcasted(xt, yt);
  return apply<fn::Where>({cond.cast(DType::Bool), xb, yb});
}
Tensor Tensor::masked_fill(const Tensor& mask, const Operand& value) const {
  return mask.where(value, *this);
}
Tensor Tensor::lerp(const Tensor& end, const Operand& weight) const {
  return add(end.sub(*this).mul(weight));
}
Tensor Tensor::clip(double min_, double max_) const { return clip(Operand(min_), Operand(max_)); }
Tensor Tensor::clip(const Operand& min_, const Operand& max_) const { return maximum(min_).minimum(max_); }

// ---- comparisons ----

Tensor Tensor::lt(const Operand& x) const {
  auto [a, b] = broadcasted(*this, x, false);
  return apply<fn::Less>({a, b});
}
Tensor Tensor::gt(const Operand& x) const {
  auto [a, b] = broadcasted(*this, x, true);
  return apply<fn::Less>({a, b});
}
Tensor Tensor::ge(const Operand& x) const { return lt(x).logical_not(); }
Tensor Tensor::le(const Operand& x) const { return gt(x).logical_not(); }
Tensor Tensor::ne(const Operand& x) const {
  auto [a, b] = broadcasted(*this, x);
  return apply<fn::Neq>({a, b});
}
Tensor Tensor::eq(const Operand& x) const { return ne(x).logical_not(); }

// ---- dtype ----

Tensor Tensor::cast(DType dt) const { return dtype() == dt ? *this : apply<fn::Cast>({*this}, dt); }
Tensor Tensor::bitcast(DType dt) const {
  if (requires_grad() == true) fail("RuntimeError", "can't backprop through bitcast");
  return dtype() != dt ? apply<fn::Cast>({*this}, dt, true) : *this;
}

// ---- unary ----

Tensor Tensor::logical_not() const {
  auto [a, b] = broadcasted(cast(DType::Bool), Scalar::of_bool(true));
  return apply<fn::Neq>({a, b});
}
Tensor Tensor::neg() const { return dtype() != DType::Bool ? apply<fn::Neg>({*this}) : logical_not(); }
Tensor Tensor::contiguous() const { return apply<fn::Contiguous>({*this}); }
Tensor Tensor::contiguous_backward() const { return apply<fn::ContiguousBackward>({*this}); }
Tensor Tensor::log() const { return apply<fn::Log>({cast(least_upper_float(dtype()))}); }
Tensor Tensor::log2() const { return log().div(fl(std::log(2.0))); }
Tensor Tensor::exp() const { return apply<fn::Exp>({cast(least_upper_float(dtype()))}); }
Tensor Tensor::exp2() const { return apply<fn::Exp>({mul(fl(std::log(2.0)))}); }
Tensor Tensor::relu() const { return apply<fn::Relu>({*this}); }
Tensor Tensor::sigmoid() const { return apply<fn::Sigmoid>({cast(least_upper_float(dtype()))}); }
Tensor Tensor::sqrt() const { return apply<fn::Sqrt>({cast(least_upper_float(dtype()))}); }
Tensor Tensor::rsqrt() const { return reciprocal().sqrt(); }
Tensor Tensor::sin() const { return apply<fn::Sin>({cast(least_upper_float(dtype()))}); }
Tensor Tensor::cos() const { return sub(fl(std::numbers::pi / 2), true).sin(); }
Tensor Tensor::tan() const { return sin().div(cos()); }
Tensor Tensor::trunc() const { return cast(DType::Int32).cast(dtype()); }
Tensor Tensor::ceil() const {
  Tensor b = trunc();
  return gt(b).where(b.add(in(1)), b);
}
Tensor Tensor::floor() const {
  Tensor b = trunc();
  return lt(b).where(b.sub(in(1)), b);
}
Tensor Tensor::round() const {
  Tensor b = cast(DType::Int32).div(fl(2.0));
  return gt(in(0)).eq(b.cast(DType::Int32).eq(b)).where(sub(fl(0.5)).ceil(), add(fl(0.5)).floor());
}
Tensor Tensor::square() const { return mul(*this); }
Tensor Tensor::sign() const { return apply<fn::Sign>({*this}); }
Tensor Tensor::abs() const { return mul(sign()); }
Tensor Tensor::reciprocal() const { return apply<fn::Reciprocal>({cast(least_upper_float(dtype()))}); }

// ---- activations ----

Tensor Tensor::tanh() const { return mul(fl(2.0), true).sigmoid().mul(fl(2.0), true).sub(fl(1.0)); }
Tensor Tensor::elu(double alpha) const {
  return relu().sub(exp().sub(in(1), true).relu().mul(fl(alpha), true));
}
Tensor Tensor::celu(double alpha) const {
  return maximum(in(0)).add(div(fl(alpha)).exp().sub(in(1)).mul(fl(alpha), true).minimum(in(0)));
}
Tensor Tensor::swish() const { return mul(sigmoid()); }
Tensor Tensor::silu() const { return swish(); }
Tensor Tensor::relu6() const { return relu().sub(sub(in(6)).relu()); }
Tensor Tensor::hardswish() const { return mul(add(in(3)).relu6()).mul(fl(1.0 / 6)); }
Tensor Tensor::sinh() const { return exp().sub(neg().exp()).div(in(2)); }
Tensor Tensor::cosh() const { return exp().add(neg().exp()).div(in(2)); }
Tensor Tensor::atanh() const { return add(in(1), true).div(sub(in(1), true)).log().div(in(2)); }
Tensor Tensor::asinh() const { return add(square().add(in(1)).sqrt()).log(); }
Tensor Tensor::acosh() const { return add(square().sub(in(1)).sqrt()).log(); }
Tensor Tensor::hardtanh(double min_val, double max_val) const { return clip(min_val, max_val); }
Tensor Tensor::gelu() const {
  Tensor inner = add(pow(in(3)).mul(fl(0.044715), true)).mul(fl(std::sqrt(2 / std::numbers::pi)), true);
  return mul(fl(0.5), true).mul(inner.tanh().add(in(1), true));
}
Tensor Tensor::quick_gelu() const { return mul(mul(fl(1.702)).sigmoid()); }
Tensor Tensor::leakyrelu(double neg_slope) const { return relu().sub(mul(fl(-neg_slope), true).relu()); }
Tensor Tensor::mish() const { return mul(softplus().tanh()); }
Tensor Tensor::softplus(double beta) const {
  return mul(fl(beta)).exp().add(in(1), true).log().mul(fl(1 / beta), true);
}
Tensor Tensor::softsign() const { return div(abs().add(in(1), true)); }

} // namespace tg
