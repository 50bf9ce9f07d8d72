// Tensor handle basics: construction from a LazyBuffer, properties, detach and backward.
#include <functional>
#include <unordered_set>

#include "tensor/tensor_impl.h"
#include "util/error.h"

namespace tg {

Index Index::of_tensor(const Tensor& t) {
  Index x;
  x.kind = Kind::Tensor;
  x.tensor = std::make_shared<Tensor>(t);
  return x;
}

Tensor::Tensor() : Tensor(LazyBuffer::loadop(Op::EMPTY, {0}, kDefaultFloat)) {}

Tensor::Tensor(LazyBuffer lb, std::optional<bool> requires_grad) : impl_(std::make_shared<Impl>()) {
  impl_->lazydata = lb;
  impl_->requires_grad = requires_grad;
}

const LazyBuffer& Tensor::lazydata() const {
  // A state is one buffer, as in tinygrad: a tensor that reads it (or a view of it) reads its
  // newest version, also after an assign made through another tensor (`w[1:3].assign(v)`
  // then `w`). Nodes built before that assign keep the version they were built from.
  LazyBuffer& lb = impl_->lazydata;
  if (!impl_->follows_state) return lb;
  const LazyGraph& g = lazy_graph();
  if (lb.is_multi()) { // each shard is a buffer of its own
    bool moved = false;
    std::vector<LazyBuffer> shards;
    for (const LazyBuffer& s : lb.lbs()) {
      Tensor shard(s);
      shards.push_back(shard.lazydata());
      moved |= shards.back() != s;
    }
    if (moved) lb = LazyBuffer::multi(std::move(shards), lb.multi_axis(), lb.real());
    return lb;
  }
  NodeId b = g.base(lb.id()), buffer = g.storage(b);
  if (g[buffer].is_state()) {
    NodeId latest = g.latest_version(buffer);
    if (latest != b) {
      bool detached = lb.is_detached();
      lb = LazyBuffer(latest).view(lb.st());
      if (detached) lb = lb.detach();
    }
  }
  return lb;
}

int64_t Tensor::len() const {
  if (shape().empty()) fail("TypeError", "len() of a 0-d tensor");
  return shape()[0];
}

std::optional<bool> Tensor::requires_grad() const { return impl_->requires_grad; }
void Tensor::set_requires_grad(std::optional<bool> v) { impl_->requires_grad = v; }
std::shared_ptr<Tensor> Tensor::grad() const { return impl_->grad; }
void Tensor::set_grad(std::shared_ptr<Tensor> g) { impl_->grad = std::move(g); }

Tensor Tensor::snapshot() const {
  Tensor t(lazydata(), requires_grad());
  t.impl_->follows_state = false;
  return t;
}

Tensor Tensor::detach() const { return Tensor(lazydata().detach(), false); }

namespace {

// Python's `b > a` for dims as symbolic.py answers it: Node.__gt__ is LtNode(-b, -a), whose
// bounds decide it (False for the same node), else an undecided LtNode, which is truthy
// (Node.__bool__); `int > Node` is the reflected LtNode(node, int).
bool sym_greater(const sint& b, const sint& a) {
  if (a.is_int() && b.is_int()) return int64_t(b) > int64_t(a);
  if (a.is_int() || b.is_int() || !(a == b)) {
    if (b.is_int()) return !(a.min() >= int64_t(b)); // Node < int: False when a.min >= b
    if (b.min() > a.max()) return true;
    return !(b.max() <= a.min());
  }
  return false;
}

} // namespace

// tensor.py's _broadcast_shape: per dim 0 if any is 0, else max() of the sizes (Python's max,
// with symbolic.py's comparisons for a symbolic dim); broadcast_to then refuses what does not fit.
Shape broadcast_shape(const std::vector<Shape>& shapes) {
  size_t n = 0;
  for (const Shape& s : shapes) n = std::max(n, s.size());
  Shape out(n, 1);
  for (size_t d = 0; d < n; ++d) {
    std::optional<sint> best;
    bool zero = false;
    for (const Shape& s : shapes) {
      sint v = d + s.size() >= n ? s[d + s.size() - n] : sint(1);
      zero |= v.is_int() && int64_t(v) == 0;
      if (!best || sym_greater(v, *best)) best = v;
    }
    out[d] = zero ? sint(0) : *best;
  }
  return out;
}

Tensor& Tensor::backward() {
  check(shape().empty(), "AssertionError",
        "backward can only be called for scalar tensors, but it has shape " + py::tuple_repr(shape()) + ")");
  // Tensor._deepwalk: parents before children, only tensors made by a Function.
  std::vector<Tensor> order;
  std::unordered_set<const Impl*> visited;
  std::function<void(const Tensor&)> walk = [&](const Tensor& node) {
    visited.insert(node.impl_.get());
    if (!node.impl_->ctx) return;
    for (const Tensor& p : node.impl_->ctx->parents)
      if (!visited.count(p.impl_.get())) walk(p);
    order.push_back(node);
  };
  walk(*this);

  impl_->grad =
      std::make_shared<Tensor>(Tensor::scalar(Scalar::of_float(1.0), dtype(), false).placed_like(*this));
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Tensor& t0 = *it;
    if (!t0.impl_->grad)
      fail("RuntimeError", "tensor <Tensor " + py::tuple_repr(t0.shape()) + " " +
                               std::string(py_name(t0.dtype())) + " with grad None> has no grad");
    Function& ctx = *t0.impl_->ctx;
    auto grads = ctx.backward(t0.impl_->grad->lazydata());
    for (size_t k = 0; k < ctx.parents.size() && k < grads.size(); ++k) {
      Tensor& t = ctx.parents[k];
      if (!grads[k] || t.requires_grad() != true) continue;
      Tensor g(*grads[k], false);
      check(g.shape() == t.shape(), "AssertionError",
            "grad shape must match tensor shape, " + py::tuple_repr(g.shape()) +
                " != " + py::tuple_repr(t.shape()));
      t.impl_->grad = std::make_shared<Tensor>(t.impl_->grad ? t.impl_->grad->add(g) : g);
    }
    t0.impl_->ctx.reset();
  }
  return *this;
}

} // namespace tg
