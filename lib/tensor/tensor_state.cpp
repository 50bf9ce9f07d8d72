// State: realize() turns a tensor into a buffer that outlives one run of the program, and
// assign() writes into such a buffer (tensor.py's realize/replace/assign, for a pipeline where
// nothing runs at trace time).
#include "tensor/tensor_impl.h"
#include "util/error.h"

namespace tg {

namespace {
bool is_input(const LazyNode& b) { return b.op == Op::EMPTY && !b.name.empty(); }
} // namespace

bool Tensor::is_state() const {
  // A state's placeholder is a named EMPTY with a serial (LazyBuffer::state); an input's has none.
  const LazyNode& b = lazydata().base().node();
  return (is_input(b) && std::holds_alternative<Scalar>(b.arg)) || b.op == Op::ASSIGN;
}

Tensor& Tensor::realize(const std::string& name) {
  if (is_state() || is_input(lazydata().base().node())) return *this;
  const std::vector<GraphState>& states = lazy_graph().states;
  std::string n = name;
  if (n.empty()) {
    // "state.N" with the first N not taken (a script may name one state.3 itself).
    for (size_t i = states.size();; ++i) {
      n = "state." + std::to_string(i);
      bool taken = false;
      for (const GraphState& s : states) taken |= s.name == n;
      if (!taken) break;
    }
  } else {
    for (const GraphState& s : states)
      check(s.name != n, "ValueError", "a state named '" + n + "' already exists");
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
  Tensor x = xo.tensor ? *xo.tensor : Tensor::scalar(xo.value, dtype());
  if (x.lazydata() == lazydata()) return *this; // a self assign is a no-op
  check(shape() == x.shape(), "AssertionError",
        "assign shape mismatch " + py::tuple_repr(shape()) + " != " + py::tuple_repr(x.shape()));
  check(dtype() == x.dtype(), "AssertionError",
        "assign dtype mismatch " + py::dtype_repr(dtype()) + " != " + py::dtype_repr(x.dtype()));
  check(!x.requires_grad().value_or(false), "AssertionError", "");
  // An input is data from a file, as the oracle's Tensor(numpy array): not realized, so replaced.
  if (!is_state()) return replace(x);
  // The program writes the whole buffer: a view that is not the buffer itself has no place to go.
  check(lazydata().st().contiguous() && lazydata().size() == lazydata().base().size(), "RuntimeError",
        "assign into a view of a state is not supported; assign the whole tensor " +
            py::tuple_repr(lazydata().base().shape()));
  impl_->lazydata = lazydata().assign(x.lazydata());
  return *this;
}

} // namespace tg
