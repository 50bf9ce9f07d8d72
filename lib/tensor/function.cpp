#include "tensor/function.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tensor/tensor_impl.h"
#include "util/error.h"

namespace tg {

bool& no_grad() {
  static bool flag = false;
  return flag;
}

Tensor apply_function(std::shared_ptr<Function> fn, const std::vector<Tensor>& inputs) {
  bool any_true = false, any_none = false;
  for (const Tensor& t : inputs) {
    std::optional<bool> rg = t.requires_grad();
    fn->needs_input_grad.push_back(rg);
    any_true |= rg == true;
    any_none |= !rg.has_value();
  }
  fn->requires_grad = any_true   ? std::optional<bool>(true)
                      : any_none ? std::nullopt
                                 : std::optional<bool>(false);
  if (fn->requires_grad == true) fn->parents = inputs;
  std::vector<LazyBuffer> xs;
  xs.reserve(inputs.size());
  for (const Tensor& t : inputs) xs.push_back(t.lazydata());
  Tensor ret(fn->forward(xs), fn->requires_grad);
  if (fn->requires_grad == true && !no_grad()) ret.impl_->ctx = std::move(fn);
  return ret;
}

namespace fn {
namespace {

Scalar f(double v) { return Scalar::of_float(v); }
Scalar i(int64_t v) { return Scalar::of_int(v); }
bool needs(const Function& fn, size_t k) { return fn.needs_input_grad[k].value_or(false); }

} // namespace

LazyBuffer Contiguous::forward(const std::vector<LazyBuffer>& x) { return x[0].contiguous(); }
Grads Contiguous::backward(const LazyBuffer& g) { return {g}; }

LazyBuffer ContiguousBackward::forward(const std::vector<LazyBuffer>& x) { return x[0]; }
Grads ContiguousBackward::backward(const LazyBuffer& g) { return {g.contiguous()}; }

LazyBuffer Cast::forward(const std::vector<LazyBuffer>& x) {
  input_dtype = x[0].dtype();
  return x[0].cast(dtype, bitcast);
}
Grads Cast::backward(const LazyBuffer& g) { return {g.cast(input_dtype, bitcast)}; }

// ---- unary ----

LazyBuffer Neg::forward(const std::vector<LazyBuffer>& x) { return x[0].e(Op::NEG); }
Grads Neg::backward(const LazyBuffer& g) { return {g.e(Op::NEG)}; }

LazyBuffer Reciprocal::forward(const std::vector<LazyBuffer>& x) { return ret = x[0].e(Op::RECIP); }
Grads Reciprocal::backward(const LazyBuffer& g) { return {g.e(Op::NEG).e(Op::MUL, {ret}).e(Op::MUL, {ret})}; }

LazyBuffer Sin::forward(const std::vector<LazyBuffer>& xs) {
  x = xs[0];
  return x.e(Op::SIN);
}
Grads Sin::backward(const LazyBuffer& g) {
  return {x.const_like(f(std::numbers::pi / 2)).e(Op::ADD, {x.e(Op::NEG)}).e(Op::SIN).e(Op::MUL, {g})};
}

LazyBuffer Relu::forward(const std::vector<LazyBuffer>& x) {
  return ret = x[0].e(Op::MAX, {x[0].const_like(i(0))});
}
Grads Relu::backward(const LazyBuffer& g) {
  return {ret.const_like(i(0)).e(Op::CMPLT, {ret}).cast(g.dtype()).e(Op::MUL, {g})};
}

LazyBuffer Log::forward(const std::vector<LazyBuffer>& xs) {
  x = xs[0];
  return x.e(Op::LOG2).e(Op::MUL, {x.const_like(f(std::log(2.0)))});
}
Grads Log::backward(const LazyBuffer& g) { return {g.e(Op::MUL, {x.e(Op::RECIP)})}; }

LazyBuffer Exp::forward(const std::vector<LazyBuffer>& x) {
  return ret = x[0].e(Op::MUL, {x[0].const_like(f(1 / std::log(2.0)))}).e(Op::EXP2);
}
Grads Exp::backward(const LazyBuffer& g) { return {ret.e(Op::MUL, {g})}; }

LazyBuffer Sqrt::forward(const std::vector<LazyBuffer>& x) { return ret = x[0].e(Op::SQRT); }
Grads Sqrt::backward(const LazyBuffer& g) {
  return {g.e(Op::MUL, {ret.e(Op::MUL, {ret.const_like(i(2))}).e(Op::RECIP)})};
}

LazyBuffer Sigmoid::forward(const std::vector<LazyBuffer>& xs) {
  const LazyBuffer& x = xs[0];
  LazyBuffer e = x.e(Op::MUL, {x.const_like(f(-1 / std::log(2.0)))}).e(Op::EXP2);
  return ret = x.const_like(i(1)).e(Op::ADD, {e}).e(Op::RECIP);
}
Grads Sigmoid::backward(const LazyBuffer& g) {
  return {ret.e(Op::MUL, {ret.const_like(i(1)).e(Op::ADD, {ret.e(Op::NEG)})}).e(Op::MUL, {g})};
}

LazyBuffer Sign::forward(const std::vector<LazyBuffer>& xs) {
  const LazyBuffer& x = xs[0];
  LazyBuffer neg_or_pos =
      x.e(Op::CMPLT, {x.const_like(i(0))}).e(Op::WHERE, {x.const_like(i(-1)), x.const_like(i(1))});
  return x.e(Op::CMPNE, {x.const_like(i(0))}).e(Op::WHERE, {neg_or_pos, x.const_like(i(0))});
}
Grads Sign::backward(const LazyBuffer& g) { return {g.const_like(i(0))}; }

// ---- binary ----

LazyBuffer Less::forward(const std::vector<LazyBuffer>& x) { return x[0].e(Op::CMPLT, {x[1]}); }
Grads Less::backward(const LazyBuffer&) { return {std::nullopt, std::nullopt}; }

LazyBuffer Neq::forward(const std::vector<LazyBuffer>& x) { return x[0].e(Op::CMPNE, {x[1]}); }
Grads Neq::backward(const LazyBuffer&) { return {std::nullopt, std::nullopt}; }

LazyBuffer Xor::forward(const std::vector<LazyBuffer>& x) { return x[0].e(Op::XOR, {x[1]}); }
Grads Xor::backward(const LazyBuffer&) {
  fail("RuntimeError", "backward not implemented for <class 'tinygrad.function.Xor'>");
}

LazyBuffer Add::forward(const std::vector<LazyBuffer>& x) { return x[0].e(Op::ADD, {x[1]}); }
Grads Add::backward(const LazyBuffer& g) {
  return {needs(*this, 0) ? std::optional(g) : std::nullopt,
          needs(*this, 1) ? std::optional(g) : std::nullopt};
}

LazyBuffer Mul::forward(const std::vector<LazyBuffer>& xs) {
  x = xs[0], y = xs[1];
  return x.e(Op::MUL, {y});
}
Grads Mul::backward(const LazyBuffer& g) {
  return {needs(*this, 0) ? std::optional(y.e(Op::MUL, {g})) : std::nullopt,
          needs(*this, 1) ? std::optional(x.e(Op::MUL, {g})) : std::nullopt};
}

LazyBuffer Div::forward(const std::vector<LazyBuffer>& xs) {
  x = xs[0], y = xs[1];
  return is_int(x.dtype()) ? x.e(Op::IDIV, {y}) : x.e(Op::MUL, {y.e(Op::RECIP)});
}
Grads Div::backward(const LazyBuffer& g) {
  Grads out{std::nullopt, std::nullopt};
  if (needs(*this, 0)) out[0] = g.e(Op::MUL, {y.e(Op::RECIP)});
  if (needs(*this, 1)) out[1] = g.e(Op::NEG).e(Op::MUL, {x}).e(Op::MUL, {y.e(Op::MUL, {y}).e(Op::RECIP)});
  return out;
}

// ---- ternary ----

LazyBuffer Where::forward(const std::vector<LazyBuffer>& xs) {
  x = xs[0];
  return x.e(Op::WHERE, {xs[1], xs[2]});
}
Grads Where::backward(const LazyBuffer& g) {
  Grads out{std::nullopt, std::nullopt, std::nullopt};
  if (needs(*this, 1)) out[1] = x.e(Op::WHERE, {g, g.const_like(i(0))});
  if (needs(*this, 2)) out[2] = x.e(Op::WHERE, {g.const_like(i(0)), g});
  return out;
}

// ---- reduce ----

LazyBuffer Sum::forward(const std::vector<LazyBuffer>& x) {
  input_shape = x[0].shape();
  return x[0].r(Op::SUM, axis);
}
Grads Sum::backward(const LazyBuffer& g) { return {g.expand(input_shape)}; }

LazyBuffer Max::forward(const std::vector<LazyBuffer>& xs) {
  x = xs[0];
  return ret = x.r(Op::REDUCE_MAX, axis);
}
Grads Max::backward(const LazyBuffer& g) {
  // 1s where the max was taken (possibly several places), each sharing the gradient equally
  LazyBuffer not_max = x.e(Op::CMPNE, {ret.expand(x.shape())}).cast(DType::Float32);
  LazyBuffer max_is_1s = x.const_like(f(1.0)).cast(DType::Float32).e(Op::ADD, {not_max.e(Op::NEG)});
  LazyBuffer div = max_is_1s.r(Op::SUM, axis).expand(x.shape());
  return {max_is_1s.e(Op::MUL, {div.e(Op::RECIP)}).cast(g.dtype()).e(Op::MUL, {g.expand(x.shape())})};
}

// ---- movement ----

LazyBuffer Expand::forward(const std::vector<LazyBuffer>& x) {
  for (size_t k = 0; k < shape.size() && k < x[0].shape().size(); ++k)
    if (x[0].shape()[k] != shape[k]) expanded_axis.push_back(int(k));
  return x[0].expand(shape);
}
Grads Expand::backward(const LazyBuffer& g) {
  return {g.cast(sum_acc_dtype(g.dtype())).r(Op::SUM, expanded_axis).cast(g.dtype())};
}

LazyBuffer Reshape::forward(const std::vector<LazyBuffer>& x) {
  input_shape = x[0].shape();
  return x[0].reshape(shape);
}
Grads Reshape::backward(const LazyBuffer& g) { return {g.reshape(input_shape)}; }

LazyBuffer Permute::forward(const std::vector<LazyBuffer>& x) { return x[0].permute(order); }
Grads Permute::backward(const LazyBuffer& g) {
  std::vector<int> inverse(order.size());
  for (size_t k = 0; k < order.size(); ++k) inverse[order[k]] = int(k);
  return {g.permute(inverse)};
}

LazyBuffer Pad::forward(const std::vector<LazyBuffer>& x) {
  for (size_t k = 0; k < arg.size(); ++k) narg.push_back({arg[k].first, x[0].shape()[k] + arg[k].first});
  return x[0].pad_symbolic(arg);
}
Grads Pad::backward(const LazyBuffer& g) { return {g.shrink_symbolic(narg)}; }

LazyBuffer Shrink::forward(const std::vector<LazyBuffer>& x) {
  for (size_t k = 0; k < arg.size(); ++k) narg.push_back({arg[k].first, x[0].shape()[k] - arg[k].second});
  return x[0].shrink_symbolic(arg);
}
Grads Shrink::backward(const LazyBuffer& g) { return {g.pad_symbolic(narg)}; }

LazyBuffer Flip::forward(const std::vector<LazyBuffer>& x) {
  for (size_t k = 0; k < x[0].shape().size(); ++k)
    arg.push_back(std::find(axis.begin(), axis.end(), int(k)) != axis.end() ? -1 : 1);
  return x[0].stride(arg);
}
Grads Flip::backward(const LazyBuffer& g) { return {g.stride(arg)}; }

} // namespace fn
} // namespace tg
