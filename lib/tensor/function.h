// tensor layer, autograd Functions: tinygrad 0.9.1's function.py. Each Function maps input
// LazyBuffers to an output LazyBuffer (forward) and a gradient to per-input gradients
// (backward), keeping what backward needs. apply() runs forward and records the context on the
// result when any input requires grad, as Function.apply does.
#pragma once
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "tensor/tensor.h"

namespace tg {

struct Function {
  std::vector<std::optional<bool>> needs_input_grad;
  std::optional<bool> requires_grad; // True if any input needs grad, None if any is None, else False
  std::vector<Tensor> parents;       // kept only when requires_grad

  virtual ~Function() = default;
  virtual std::string_view name() const = 0;
  virtual LazyBuffer forward(const std::vector<LazyBuffer>& x) = 0;
  // One entry per input; nullopt where no gradient flows.
  virtual std::vector<std::optional<LazyBuffer>> backward(const LazyBuffer& grad_output) = 0;
};

// Tensor.no_grad: while true, apply() records no context.
bool& no_grad();

Tensor apply_function(std::shared_ptr<Function> fn, const std::vector<Tensor>& inputs);
template <class F, class... Args> Tensor apply(const std::vector<Tensor>& inputs, Args&&... args) {
  return apply_function(std::make_shared<F>(std::forward<Args>(args)...), inputs);
}

namespace fn {

using Grads = std::vector<std::optional<LazyBuffer>>;
using Pairs = std::vector<std::pair<int64_t, int64_t>>;

#define TG_FUNCTION(Name)                                                                                    \
  std::string_view name() const override { return #Name; }                                                   \
  LazyBuffer forward(const std::vector<LazyBuffer>& x) override;                                             \
  Grads backward(const LazyBuffer& grad_output) override;

struct Contiguous : Function {
  TG_FUNCTION(Contiguous)
};
struct ContiguousBackward : Function {
  TG_FUNCTION(ContiguousBackward)
};
struct Cast : Function {
  Cast(DType dtype, bool bitcast = false) : dtype(dtype), bitcast(bitcast) {}
  DType dtype, input_dtype = DType::Float32;
  bool bitcast;
  TG_FUNCTION(Cast)
};
struct Neg : Function {
  TG_FUNCTION(Neg)
};
struct Reciprocal : Function {
  LazyBuffer ret;
  TG_FUNCTION(Reciprocal)
};
struct Sin : Function {
  LazyBuffer x;
  TG_FUNCTION(Sin)
};
struct Relu : Function {
  LazyBuffer ret;
  TG_FUNCTION(Relu)
};
struct Log : Function {
  LazyBuffer x;
  TG_FUNCTION(Log)
};
struct Exp : Function {
  LazyBuffer ret;
  TG_FUNCTION(Exp)
};
struct Sqrt : Function {
  LazyBuffer ret;
  TG_FUNCTION(Sqrt)
};
struct Sigmoid : Function {
  LazyBuffer ret;
  TG_FUNCTION(Sigmoid)
};
struct Sign : Function {
  TG_FUNCTION(Sign)
};
struct Less : Function {
  TG_FUNCTION(Less)
};
struct Neq : Function {
  TG_FUNCTION(Neq)
};
struct Xor : Function {
  TG_FUNCTION(Xor)
};
struct Add : Function {
  TG_FUNCTION(Add)
};
struct Mul : Function {
  LazyBuffer x, y;
  TG_FUNCTION(Mul)
};
struct Div : Function {
  LazyBuffer x, y;
  TG_FUNCTION(Div)
};
struct Where : Function {
  LazyBuffer x;
  TG_FUNCTION(Where)
};
struct Sum : Function {
  explicit Sum(Axes axis) : axis(std::move(axis)) {}
  Axes axis;
  Shape input_shape;
  TG_FUNCTION(Sum)
};
struct Max : Function {
  explicit Max(Axes axis) : axis(std::move(axis)) {}
  Axes axis;
  LazyBuffer x, ret;
  TG_FUNCTION(Max)
};
struct Expand : Function {
  explicit Expand(Shape shape) : shape(std::move(shape)) {}
  Shape shape;
  Axes expanded_axis;
  TG_FUNCTION(Expand)
};
struct Reshape : Function {
  explicit Reshape(Shape shape) : shape(std::move(shape)) {}
  Shape shape, input_shape;
  TG_FUNCTION(Reshape)
};
struct Permute : Function {
  explicit Permute(std::vector<int> order) : order(std::move(order)) {}
  std::vector<int> order;
  TG_FUNCTION(Permute)
};
struct Pad : Function {
  explicit Pad(DimPairs arg) : arg(std::move(arg)) {}
  DimPairs arg, narg; // (amounts may be symbolic: cat along a symbolic axis)
  TG_FUNCTION(Pad)
};
struct Shrink : Function {
  explicit Shrink(DimPairs arg) : arg(std::move(arg)) {}
  DimPairs arg, narg; // (ends may be symbolic)
  TG_FUNCTION(Shrink)
};
struct Flip : Function {
  explicit Flip(std::vector<int> axis) : axis(std::move(axis)) {}
  std::vector<int> axis;
  std::vector<int64_t> arg;
  TG_FUNCTION(Flip)
};

#undef TG_FUNCTION

} // namespace fn
} // namespace tg
