#include "lazy/lazybuffer.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "ops/exec_alu.h"
#include "util/error.h"

namespace tg {

namespace {
thread_local LazyGraph* current_graph = nullptr;
} // namespace

LazyGraph& lazy_graph() {
  if (current_graph) return *current_graph;
  static LazyGraph process_graph;
  return process_graph;
}

GraphScope::GraphScope(LazyGraph& g) : prev_(current_graph) { current_graph = &g; }
GraphScope::~GraphScope() { current_graph = prev_; }

namespace {

LazyBuffer create(LazyNode node) {
  // An empty buffer is a constant 0, whatever op made it (create_lazybuffer).
  if (prod(node.shape) == 0 && node.op != Op::VIEW) {
    node.op = Op::LOAD_CONST;
    node.arg = Scalar::of_int(0);
    node.srcs.clear();
  }
  if (node.op == Op::LOAD_CONST) node.arg = as_const(std::get<Scalar>(node.arg), node.dtype);
  return LazyBuffer(lazy_graph().add(std::move(node)));
}

// A node made from sources lives on the first one's device (lazy.py: self.device).
LazyBuffer create_base(Op op, const Shape& shape, DType dtype, LazyArg arg,
                       const std::vector<LazyBuffer>& srcs, const std::string* device = nullptr) {
  LazyNode n{op, dtype, shape, {}, std::move(arg), ShapeTracker::from_shape(shape), {}, {}, {}};
  for (const LazyBuffer& s : srcs) n.srcs.push_back(s.id());
  if (device)
    n.device = *device;
  else if (!srcs.empty())
    n.device = srcs[0].node().device;
  return create(std::move(n));
}

bool unmasked(const ShapeTracker& st) {
  return std::all_of(st.views.begin(), st.views.end(), [](const View& v) { return !v.mask; });
}

} // namespace

LazyBuffer LazyBuffer::loadop(Op op, const Shape& shape, DType dtype, LazyArg arg,
                              std::vector<LazyBuffer> srcs, const std::string& device) {
  // Each Tensor.empty() is its own buffer (tinygrad creates EMPTY without the lazy cache): a
  // serial number in the arg keeps hash-consing from merging them.
  if (op == Op::EMPTY && std::holds_alternative<std::monostate>(arg))
    arg = Scalar::of_int(lazy_graph().next_empty_serial());
  return create_base(op, shape, dtype, std::move(arg), srcs, &device);
}

LazyBuffer LazyBuffer::placeholder(const std::string& name, const Shape& shape, DType dtype) {
  LazyNode n{Op::EMPTY, dtype, shape, {}, {}, ShapeTracker::from_shape(shape), name, {}};
  return LazyBuffer(lazy_graph().add(std::move(n)));
}

LazyBuffer LazyBuffer::state(const std::string& name, const LazyBuffer& init) {
  // The serial keeps a state distinct from an input of the same shape (the name is checked
  // for uniqueness by the caller, but identity must not depend on it).
  LazyNode n{Op::EMPTY,
             init.dtype(),
             init.shape(),
             {},
             Scalar::of_int(-lazy_graph().next_state_serial()),
             ShapeTracker::from_shape(init.shape()),
             name,
             {}};
  n.device = init.device();
  LazyBuffer ret(lazy_graph().add(std::move(n)));
  lazy_graph().add_state({name, ret.id(), init.id()});
  return ret;
}

LazyBuffer LazyBuffer::assign(const LazyBuffer& x) const {
  if (multi_) {
    check(x.is_multi() && x.lbs().size() == lbs().size(), "AssertionError",
          "axis must match on MultiLazyBuffer");
    std::vector<LazyBuffer> out;
    for (size_t i = 0; i < lbs().size(); ++i) out.push_back(lbs()[i].assign(x.lbs()[i]).view(lbs()[i].st()));
    // Which shards hold data is the value's: tinygrad replaces a tensor not yet realized (a
    // state here, which tg makes earlier than tinygrad realizes it) by the value it is given.
    return multi(std::move(out), multi_axis(), x.real());
  }
  check(x.size() == size(), "AssertionError",
        "assign target must have same size self.size=" + std::to_string(size()) +
            " != x.size=" + std::to_string(x.size()));
  // Assigning again to a tensor that holds an ASSIGN writes the same buffer again.
  LazyBuffer target(lazy_graph().storage(id()));
  // An empty window writes nothing (tinygrad's ASSIGN of size 0 is a CONST): gpt2's cache
  // update for a zero-length prompt.
  if (size() == 0) return target;
  LazyBuffer ret;
  if (st().contiguous() && size() == target.size()) {
    ret =
        loadop(Op::ASSIGN, target.shape(), dtype(), {}, {x.reshape(target.shape()), target}, target.device());
  } else {
    // Part of the buffer (lazy.py's arg=(self.st,)): the node is the whole buffer's next
    // version, so later reads of the buffer see the write; x is stored through the view.
    check(x.shape() == shape(), "AssertionError", "assign of a view needs a value of the view's shape");
    ret = loadop(Op::ASSIGN, target.shape(), dtype(), st(), {x, target}, target.device());
  }
  lazy_graph().add_assign(ret.id());
  return ret;
}

LazyBuffer LazyBuffer::from_data(Blob data, const Shape& shape, DType dtype, const std::string& device,
                                 const std::string& name) {
  if (prod(shape) == 0)
    return loadop(Op::LOAD_CONST, {}, dtype, Scalar::of_int(0), {}, device)
        .reshape(Shape(shape.size(), 1))
        .expand(shape);
  LazyNode n{Op::COPY, dtype, shape, {}, {}, ShapeTracker::from_shape(shape), name, std::move(data)};
  n.device = device;
  return LazyBuffer(lazy_graph().add(std::move(n)));
}

LazyBuffer LazyBuffer::const_like(const Scalar& val, std::optional<Shape> shape) const {
  if (multi_) return multi_const_like(val, shape);
  Shape s = shape ? *shape : this->shape();
  return loadop(Op::LOAD_CONST, {}, dtype(), val, {}, device()).reshape(Shape(s.size(), 1)).expand(s);
}

LazyBuffer LazyBuffer::copy_to_device(const std::string& to, bool force) const {
  if (multi_) return multi_copy_to_device(to);
  if (device() == to) return *this;
  LazyBuffer b = base();
  const LazyNode& bn = b.node();
  bool whole = st().contiguous() && size() == b.size();
  // double COPY = one COPY; literal data is made on the device it is copied to (it came from
  // the host, as tinygrad's NPY buffers do)
  if (!force && whole && bn.op == Op::COPY) {
    if (bn.is_device_copy()) return LazyBuffer(bn.srcs[0]).copy_to_device(to).reshape(shape());
    return from_data(bn.data, bn.shape, bn.dtype, to, bn.name).reshape(shape());
  }
  // a constant need not be copied
  if (is_unrealized_const()) return loadop(Op::LOAD_CONST, {}, dtype(), const_value(), {}, to).view(st());
  // a shrink is made contiguous first, so only its elements cross
  if (size() < b.size()) return contiguous().copy_to_device(to, force);
  // Each copy is its own buffer (lazy.py makes COPY without the lazy cache): a serial keeps
  // hash-consing from merging two copies of one buffer.
  LazyNode n{Op::COPY,
             dtype(),
             b.shape(),
             {b.id()},
             Scalar::of_int(lazy_graph().next_empty_serial()),
             ShapeTracker::from_shape(b.shape()),
             {},
             {}};
  n.device = to;
  return LazyBuffer(lazy_graph().add(std::move(n))).view(st());
}

bool LazyBuffer::is_unrealized_unmasked_const() const { return is_unrealized_const() && unmasked(st()); }

LazyBuffer LazyBuffer::view(const ShapeTracker& new_st) const { return view(new_st, std::nullopt); }

LazyBuffer LazyBuffer::view(const ShapeTracker& new_st, std::optional<ViewMove> move) const {
  check(!multi_, "RuntimeError", "a multi-device tensor has no single view");
  const View& last = new_st.views.back();
  bool empty_mask = last.mask && std::any_of(last.mask->begin(), last.mask->end(),
                                             [](auto& m) { return m.second - m.first == 0; });
  if (st().size() == 0 || empty_mask) return const_like(Scalar::of_int(0), new_st.shape());
  LazyBuffer b = base();
  bool detached = is_detached();
  if (new_st.contiguous() && b.shape() == new_st.shape() && !detached) return b;
  LazyNode n{Op::VIEW, dtype(), new_st.shape(), {b.id()}, {}, new_st, {}, {}, b.device()};
  if (detached) n.arg = Scalar::of_bool(true);
  if (move) {
    if (!is_base()) n.moves = node().moves;
    n.moves.push_back(std::move(*move));
  }
  return LazyBuffer(lazy_graph().add(std::move(n)));
}

LazyBuffer LazyBuffer::detach() const {
  if (multi_) return map_lbs([](const LazyBuffer& lb) { return lb.detach(); });
  if (is_detached()) return *this;
  LazyNode n{Op::VIEW, dtype(), shape(), {base().id()}, Scalar::of_bool(true), st(), {}, {}, device()};
  if (!is_base()) n.moves = node().moves;
  return LazyBuffer(lazy_graph().add(std::move(n)));
}

namespace {
std::vector<std::pair<int64_t, int64_t>> int_pairs(const DimPairs& arg, const char* what) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const auto& [a, b] : arg) {
    check(a.is_int() && b.is_int(), "NotImplementedError",
          std::string("a symbolic ") + what + " of a multi-device tensor");
    out.emplace_back(int64_t(a), int64_t(b));
  }
  return out;
}
template <class T> Shape flat_pairs(const std::vector<std::pair<T, T>>& arg) {
  Shape out;
  for (auto [a, b] : arg) out.insert(out.end(), {a, b});
  return out;
}
} // namespace

LazyBuffer LazyBuffer::reshape(const Shape& arg) const {
  if (multi_) return multi_reshape(arg);
  if (all_int(shape()) && !all_int(arg)) { // view.py: the new size at the variables' bound values
    for (const sint& d : arg)
      for (const Expr& v : d.expr().vars())
        bound_value(v.node()->name); // (tinygrad's error for an unbound one)
    if (prod(shape()) != prod(shape_at(arg, bound_vars())))
      fail("ValueError", "size mismatched, can't reshape self.shape=" + shape_repr(shape()) +
                             " -> new_shape=" + shape_repr(arg));
  }
  return view(st().reshape(arg), ViewMove{MoveOp::Reshape, arg});
}
LazyBuffer LazyBuffer::pad(const std::vector<std::pair<int64_t, int64_t>>& arg) const {
  if (multi_) return multi_pad(arg);
  return view(st().pad(arg), ViewMove{MoveOp::Pad, flat_pairs(arg)});
}
LazyBuffer LazyBuffer::expand(const Shape& arg) const {
  if (multi_) return multi_expand(arg);
  return view(st().expand(arg), ViewMove{MoveOp::Expand, arg});
}
LazyBuffer LazyBuffer::permute(const std::vector<int>& arg) const {
  if (multi_) {
    std::optional<int> axis;
    if (multi_axis()) axis = int(std::find(arg.begin(), arg.end(), *multi_axis()) - arg.begin());
    std::vector<LazyBuffer> out;
    for (const LazyBuffer& lb : lbs()) out.push_back(lb.permute(arg));
    return multi(std::move(out), axis, real());
  }
  return view(st().permute(arg), ViewMove{MoveOp::Permute, Shape(arg.begin(), arg.end())});
}
LazyBuffer LazyBuffer::shrink(const std::vector<std::pair<int64_t, int64_t>>& arg) const {
  if (multi_) return multi_shrink(arg);
  return view(st().shrink(arg), ViewMove{MoveOp::Shrink, flat_pairs(arg)});
}
LazyBuffer LazyBuffer::shrink_symbolic(const DimPairs& arg) const {
  if (multi_) return shrink(int_pairs(arg, "shrink"));
  return view(st().shrink_symbolic(arg), ViewMove{MoveOp::Shrink, flat_pairs(arg)});
}
LazyBuffer LazyBuffer::pad_symbolic(const DimPairs& arg) const {
  if (multi_) return pad(int_pairs(arg, "pad"));
  return view(st().pad_symbolic(arg), ViewMove{MoveOp::Pad, flat_pairs(arg)});
}
LazyBuffer LazyBuffer::stride(const std::vector<int64_t>& arg) const {
  if (multi_) {
    check(!multi_axis() || arg[size_t(*multi_axis())] == 1, "AssertionError",
          "flipping not supported on sharded axis");
    return map_lbs([&](const LazyBuffer& lb) { return lb.stride(arg); });
  }
  return view(st().stride(arg), ViewMove{MoveOp::Stride, shape_from_ints(arg)});
}

LazyBuffer LazyBuffer::contiguous() const {
  if (multi_) return map_lbs([](const LazyBuffer& lb) { return lb.contiguous(); });
  LazyBuffer b = base();
  if (!st().contiguous() || size() != b.size() || is_unrealized_const()) {
    // CLANG can view a consecutive buffer, as tinygrad's LoadOps.VIEW; we copy with CONTIGUOUS,
    // which the scheduler turns into the same single kernel or elides.
    LazyBuffer ret = e(Op::CONTIGUOUS);
    if (auto sti = st().invert(b.shape())) lazy_graph().contiguous_child[b.id()] = {ret.id(), *sti};
    return ret;
  }
  lazy_graph().force_realize(b.id());
  return *this;
}

LazyBuffer LazyBuffer::cast(DType dt, bool bitcast) const {
  if (multi_) return map_lbs([&](const LazyBuffer& lb) { return lb.cast(dt, bitcast); });
  if (dtype() == dt) return *this;
  if (is_unrealized_unmasked_const() && !bitcast)
    return create(
        LazyNode{Op::LOAD_CONST, dt, shape(), {}, as_const(const_value(), dt), st(), {}, {}, device()});
  if (bitcast && itemsize(dtype()) != itemsize(dt))
    fail("RuntimeError", "shape changing bitcast only supported on DISK right now");
  if (!bitcast && itemsize(dt) <= itemsize(dtype()) && !is_base()) return base().cast(dt, bitcast).view(st());
  return create_base(bitcast ? Op::BITCAST : Op::CAST, shape(), dt, dt, {*this});
}

LazyBuffer LazyBuffer::e(Op op, const std::vector<LazyBuffer>& in_srcs, LazyArg arg) const {
  if (multi_ || std::any_of(in_srcs.begin(), in_srcs.end(), [](auto& s) { return s.is_multi(); }))
    return multi_e(op, in_srcs, arg);
  LazyGraph& g = lazy_graph();
  std::vector<LazyBuffer> srcs;
  srcs.reserve(in_srcs.size() + 1);
  auto add_src = [&](const LazyBuffer& s) {
    auto it = s.is_base() ? g.contiguous_child.find(s.id()) : g.contiguous_child.end();
    srcs.push_back(it != g.contiguous_child.end() ? LazyBuffer(it->second.first).view(it->second.second) : s);
  };
  add_src(*this);
  for (const LazyBuffer& s : in_srcs) add_src(s);

  for (size_t i = (op == Op::WHERE ? 2 : 1); i < srcs.size(); ++i)
    check(srcs[i].dtype() == srcs[op == Op::WHERE ? 1 : 0].dtype(), "AssertionError",
          std::string("all dtypes must match on ") + std::string(op_name(op)));
  for (const LazyBuffer& s : srcs)
    check(s.shape() == srcs[0].shape(), "AssertionError", "all shapes must be the same");
  if (op == Op::WHERE)
    check(srcs[0].dtype() == DType::Bool, "AssertionError",
          "TernaryOps.WHERE must have the first arg be bool");
  if (op == Op::NEG)
    check(srcs[0].dtype() != DType::Bool, "AssertionError", "UnaryOps.NEG does not accept dtype bool");

  DType out_dtype = (op == Op::CMPLT || op == Op::CMPNE) ? DType::Bool : srcs.back().dtype();

  // Constant folding, as lazy.py.
  bool folds = op != Op::CAST && op != Op::BITCAST && op != Op::CONTIGUOUS && op != Op::MULACC;
  if (folds &&
      std::all_of(srcs.begin(), srcs.end(), [](auto& s) { return s.is_unrealized_unmasked_const(); })) {
    std::vector<Scalar> vals;
    for (auto& s : srcs) vals.push_back(s.const_value());
    return cast(out_dtype).const_like(exec_alu(op, out_dtype, vals, srcs.back().dtype()));
  }
  if (op == Op::NEG && base().node().op == Op::NEG && !is_detached())
    return LazyBuffer(base().node().srcs[0]);
  if (is_binary(op)) {
    const LazyBuffer &x = *this, &y = in_srcs[0];
    auto const_is = [](const LazyBuffer& b, double v) {
      return b.is_unrealized_unmasked_const() && b.const_value().as_double() == v;
    };
    if (op == Op::ADD) {
      if (const_is(y, 0)) return x;
      if (const_is(x, 0)) return y;
    }
    if (op == Op::MUL) {
      for (auto [c, other] : {std::pair{x, y}, std::pair{y, x}}) {
        if (const_is(c, 1)) return other;
        if (const_is(c, 0)) return other.const_like(Scalar::of_int(0));
        if (const_is(c, -1)) return other.e(Op::NEG);
      }
    }
  }
  return create_base(op, shape(), out_dtype, std::move(arg), srcs);
}

LazyBuffer LazyBuffer::reduce_op(Op op, const Axes& axis_in) const {
  Axes axis;
  for (int a : axis_in)
    if (shape()[a] != 1) axis.push_back(a);
  std::sort(axis.begin(), axis.end());
  if (axis.empty()) return *this;
  Shape new_shape = shape();
  for (int a : axis) new_shape[a] = 1;
  return create_base(op, new_shape, dtype(), axis, {*this});
}

LazyBuffer LazyBuffer::r(Op op, const Axes& axis) const {
  if (multi_) return multi_r(op, axis);
  Shape new_shape = shape();
  for (int a : axis) {
    check(a >= 0 && a < int(shape().size()), "AssertionError", "axis args out of range for shape");
    new_shape[a] = 1;
  }
  if (size() == 0 && prod(new_shape) != 0)
    return const_like(op == Op::SUM ? Scalar::of_float(0.0) : Scalar::of_float(-INFINITY), new_shape);
  bool symbolic_axis = false; // (tinygrad folds to a CONST of a Node; tg has no symbolic constant,
  for (int a : axis) symbolic_axis |= !shape()[a].is_int(); // so the kernel's loop collapse does it)
  if (is_unrealized_unmasked_const() && !symbolic_axis) {
    int64_t n = 1;
    for (int a : axis) n *= shape()[a];
    Scalar v = const_value();
    if (op == Op::SUM) v = exec_alu(Op::MUL, dtype(), {v, Scalar::of_int(n)});
    return const_like(v, new_shape);
  }
  // Split large reduces into two kernels so there are enough outputs to go around (lazy.py).
  int64_t out = prod(new_shape);
  if (!all_int(shape()) || prod(shape()) == 0 || prod(shape()) / out < 32768) return reduce_op(op, axis);
  auto real = st().real_strides(true);
  for (int a : axis) {
    for (int64_t x = std::min<int64_t>(256, (int64_t(1) << 22) / out); x >= 8; --x) {
      if (shape()[a] % x != 0 || (real[a] && *real[a] == 0)) continue;
      Shape split = shape();
      split[a] = shape()[a] / x;
      split.insert(split.begin() + a, x);
      std::vector<int> perm;
      for (int i = 0; i < int(split.size()); ++i)
        if (i != a) perm.push_back(i);
      perm.push_back(a);
      return reshape(split)
          .permute(perm)
          .reduce_op(op, axis)
          .reduce_op(op, {int(new_shape.size())})
          .reshape(new_shape);
    }
  }
  return reduce_op(op, axis);
}

Graph extract_graph(const std::vector<std::pair<std::string, LazyBuffer>>& outputs,
                    const std::vector<GraphInput>& inputs, bool effects) {
  const LazyGraph& g = lazy_graph();
  Graph out;
  std::unordered_map<NodeId, NodeId> remap;
  // Iterative post-order DFS: graphs can be deep (long elementwise chains).
  std::vector<std::pair<NodeId, size_t>> stack;
  auto visit = [&](NodeId root) {
    if (remap.count(root)) return;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto& [id, next] = stack.back();
      const LazyNode& n = g[id];
      if (next < n.srcs.size()) {
        NodeId s = n.srcs[next++];
        if (!remap.count(s)) stack.push_back({s, 0});
        continue;
      }
      if (!remap.count(id)) {
        LazyNode copy = n;
        for (NodeId& s : copy.srcs) s = remap.at(s);
        remap[id] = NodeId(out.nodes.size());
        out.nodes.push_back(std::move(copy));
      }
      stack.pop_back();
    }
  };
  for (const auto& in : inputs) visit(in.node);
  if (effects)
    for (const GraphState& s : g.states()) {
      visit(s.node);
      visit(s.init);
    }
  for (const auto& [name, lb] : outputs) visit(lb.id());
  if (effects)
    for (NodeId a : g.assigns()) visit(a);
  for (const auto& in : inputs) out.inputs.push_back({in.name, remap.at(in.node), in.requires_grad});
  for (const auto& [name, lb] : outputs) out.outputs.push_back({name, remap.at(lb.id())});
  if (effects) {
    for (const GraphState& s : g.states()) out.states.push_back({s.name, remap.at(s.node), remap.at(s.init)});
    for (NodeId a : g.assigns()) out.assigns.push_back(remap.at(a));
  }
  out.vars = bound_vars();
  return out;
}

namespace {
struct VarTable {
  std::vector<VarBinding> vars;
  std::vector<std::pair<std::string, std::string>> renamed; // program name -> script name
};
} // namespace

const std::vector<VarBinding>& bound_vars() { return lazy_graph().extension<VarTable>().vars; }

void bind_var(const VarBinding& v) {
  auto& vars = lazy_graph().extension<VarTable>().vars;
  for (const VarBinding& have : vars) {
    if (have.name != v.name) continue;
    if (have == v) return;
    fail("AssertionError", "cannot merge, variable '" + v.name + "' is bound to " +
                               std::to_string(have.value) + " and to " + std::to_string(v.value) +
                               " in one program");
  }
  vars.push_back(v);
}

void clear_bound_vars() {
  VarTable& t = lazy_graph().extension<VarTable>();
  t.vars.clear();
  t.renamed.clear();
}

std::string bind_script_var(const std::string& name, int64_t min, int64_t max, int64_t value) {
  VarTable& t = lazy_graph().extension<VarTable>();
  auto find = [&](const std::string& n) {
    return std::find_if(t.vars.begin(), t.vars.end(), [&](const VarBinding& b) { return b.name == n; });
  };
  auto have = find(name);
  if (have == t.vars.end() || *have == VarBinding{name, min, max, value}) {
    bind_var({name, min, max, value});
    return name;
  }
  for (int k = 2;; ++k) {
    std::string fresh = name + "_" + std::to_string(k);
    auto same = find(fresh);
    if (same != t.vars.end() && !(*same == VarBinding{fresh, min, max, value})) continue;
    if (same == t.vars.end()) {
      t.vars.push_back({fresh, min, max, value});
      t.renamed.emplace_back(fresh, name);
    }
    return fresh;
  }
}

const std::string& script_var_name(const std::string& program_name) {
  for (const auto& [program, script] : lazy_graph().extension<VarTable>().renamed)
    if (program == program_name) return script;
  return program_name;
}

int64_t bound_value(const std::string& name) {
  for (const VarBinding& v : bound_vars())
    if (v.name == name) return v.value;
  fail("AssertionError", "Variable isn't bound, can't access val of " + name);
}

std::vector<NodeId> import_graph(const Graph& graph) {
  LazyGraph& g = lazy_graph();
  for (const VarBinding& v : graph.vars) bind_var(v);
  std::vector<NodeId> ids;
  ids.reserve(graph.nodes.size());
  for (const LazyNode& n : graph.nodes) {
    LazyNode copy = n;
    for (NodeId& s : copy.srcs) s = ids.at(s);
    NodeId id = g.add(std::move(copy));
    if (n.forced_realize) g.force_realize(id);
    ids.push_back(id);
  }
  return ids;
}

} // namespace tg
