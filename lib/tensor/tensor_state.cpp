// State: realize() turns a tensor into a buffer that outlives one run of the program, and
// assign() writes into such a buffer (tensor.py's realize/replace/assign, for a pipeline where
// nothing runs at trace time).
#include "tensor/tensor_device.h"
#include "tensor/tensor_impl.h"
#include "util/error.h"

namespace tg {

bool Tensor::is_state() const { return lazy_graph()[lazy_graph().storage(lazydata().id())].is_state(); }

Tensor& Tensor::realize(const std::string& name) {
  if (is_sharded()) { // each shard is a buffer of its own device: "NAME@CLANG:1"
    std::vector<LazyBuffer> shards;
    for (const LazyBuffer& s : lazydata().lbs()) {
      Tensor shard(s);
      std::string base = name;
      if (base.empty()) {
        const LazyGraph& g = lazy_graph();
        for (size_t i = g.states().size();; ++i)
          if (!g.has_state(base = "state." + std::to_string(i)) &&
              !g.has_state(base + "@" + script_device_name(s.device())))
            break;
      }
      shard.realize(shard.is_state() ? "" : base + "@" + script_device_name(s.device()));
      shards.push_back(shard.lazydata());
    }
    impl_->lazydata = LazyBuffer::multi(std::move(shards), lazydata().multi_axis(), lazydata().real());
    return *this;
  }
  if (is_state() || lazydata().base().node().is_input()) return *this;
  // A value of this step's data (an input, a state's updated version) is computed on every
  // step anyway: making it a state would freeze its first value.
  if (lazydata().node().step) return *this;
  return make_state(name);
}

Tensor& Tensor::make_state(const std::string& name) {
  const LazyGraph& g = lazy_graph();
  std::string n = name;
  if (n.empty()) {
    // "state.N" with the first N not taken (a script may name one state.3 itself).
    for (size_t i = g.states().size();; ++i)
      if (!g.has_state(n = "state." + std::to_string(i))) break;
  } else {
    check(!g.has_state(n), "ValueError", "a state named '" + n + "' already exists");
  }
  impl_->lazydata = LazyBuffer::state(n, lazydata());
  return *this;
}

Tensor& Tensor::replace(const Tensor& x) {
  check(!x.requires_grad().value_or(false) && !impl_->ctx, "AssertionError", "");
  check(shape() == x.shape(), "AssertionError",
        "replace shape mismatch " + py::tuple_repr(shape()) + " != " + py::tuple_repr(x.shape()));
  impl_->lazydata = x.lazydata();
  return *this;
}

Tensor& Tensor::assign(const Operand& xo) {
  Tensor x = xo.tensor ? *xo.tensor : Tensor::scalar(xo.value, dtype()).placed_like(*this);
  if (x.lazydata() == lazydata()) return *this; // a self assign is a no-op
  check(shape() == x.shape(), "AssertionError",
        "assign shape mismatch " + py::tuple_repr(shape()) + " != " + py::tuple_repr(x.shape()));
  check(dtype() == x.dtype(), "AssertionError",
        "assign dtype mismatch " + py::dtype_repr(dtype()) + " != " + py::dtype_repr(x.dtype()));
  check(!x.requires_grad().value_or(false), "AssertionError", "");
  if (is_sharded() || x.is_sharded()) {
    if (!(is_sharded() && x.is_sharded() && devices() == x.devices())) {
      auto repr = [](const Tensor& t) {
        return t.is_sharded() ? devices_repr(t.lazydata().devices()) : "'" + t.device() + "'";
      };
      fail("AssertionError", "assign device mismatch " + repr(*this) + " != " + repr(x));
    }
    check(lazydata().multi_axis() == x.lazydata().multi_axis(), "AssertionError", "axis must match on MultiLazyBuffer");
    bool states = true;
    for (const LazyBuffer& s : lazydata().lbs()) states &= Tensor(s).is_state();
    if (!states) return replace(x);
    impl_->lazydata = lazydata().assign(x.lazydata());
    return *this;
  }
  // An input is data from a file, as the oracle's Tensor(numpy array): not realized, so replaced.
  if (!is_state()) return replace(x);
  // The buffer's next version, seen through this tensor's view of it.
  impl_->lazydata = lazydata().assign(x.lazydata()).view(lazydata().st());
  return *this;
}

void Tensor::setitem(const std::vector<Index>& indices, const Operand& vo) {
  check(lazydata().st().contiguous(), "AssertionError", "setitem target needs to be contiguous");
  Tensor v = vo.tensor ? *vo.tensor : Tensor::scalar(vo.value, dtype()).placed_like(*this);
  if (requires_grad().value_or(false) || v.requires_grad().value_or(false))
    fail("NotImplementedError", "setitem with requires_grad is not supported");
  // realize(): in tinygrad an input is realized data too, so here it becomes a state as well.
  if (!is_state()) make_state("");
  Tensor assign_to = getitem(indices);
  // contiguous to prevent const folding (tensor.py)
  v = broadcast_to(v.cast(assign_to.dtype()), broadcast_shape({assign_to.shape(), v.shape()})).contiguous();
  assign_to.assign(v);
  // A view of this buffer was written: this tensor now reads the buffer's next version. An
  // index that is not a view (tensor indices) wrote a copy, as in tinygrad: nothing changes.
  const LazyGraph& g = lazy_graph();
  LazyBuffer written = assign_to.lazydata().base();
  if (written.node().op == Op::ASSIGN && g.storage(written.id()) == g.storage(lazydata().id()))
    impl_->lazydata = written.view(lazydata().st());
}

} // namespace tg
