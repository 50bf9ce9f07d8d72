#include "grad/grad.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numbers>
#include <set>

#include "lazy/lazybuffer.h"
#include "util/error.h"

namespace tg {
namespace {

Scalar f(double v) { return Scalar::of_float(v); }
Scalar i(int64_t v) { return Scalar::of_int(v); }

std::string tuple_text(const Shape& s) {
  std::string out = "(";
  for (size_t k = 0; k < s.size(); ++k) out += (k ? ", " : "") + std::to_string(s[k]);
  return out + (s.size() == 1 ? ",)" : ")");
}

LazyBuffer mul(const LazyBuffer& a, const LazyBuffer& b) { return a.e(Op::MUL, {b}); }
LazyBuffer recip(const LazyBuffer& a) { return a.e(Op::RECIP); }

// ---- VIEW adjoints ----

// For each element of the view (row-major), the flat index it reads in the base buffer, or -1
// where the view is masked out. Walks the views from the visible one down to views[0].
std::vector<int32_t> view_index_map(const ShapeTracker& st) {
  const Shape& shape = st.shape();
  int64_t n = prod(shape);
  std::vector<int32_t> out(size_t(n), -1);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t idx = flat;
    bool valid = true;
    for (size_t v = st.views.size(); v-- > 0 && valid;) {
      const View& view = st.views[v];
      int64_t rest = idx, acc = view.offset;
      for (size_t d = view.shape.size(); d-- > 0;) {
        int64_t coord = rest % view.shape[d];
        rest /= view.shape[d];
        if (view.mask && (coord < (*view.mask)[d].first || coord >= (*view.mask)[d].second)) valid = false;
        acc += coord * view.strides[d];
      }
      idx = acc;
    }
    if (valid) out[size_t(flat)] = int32_t(idx);
  }
  return out;
}

// A single unmasked view at offset 0 that is an expand and permute of a reshape of the base:
// sum the expanded dims, undo the permute, reshape back.
std::optional<LazyBuffer> permute_expand_adjoint(const LazyBuffer& g, const ShapeTracker& st,
                                                 const Shape& base_shape) {
  if (st.views.size() != 1) return std::nullopt;
  const View& v = st.views[0];
  if (v.mask || v.offset != 0) return std::nullopt;
  Axes expanded;
  std::vector<int> kept;
  for (size_t d = 0; d < v.shape.size(); ++d) {
    if (v.strides[d] < 0) return std::nullopt;
    if (v.shape[d] == 1) continue;
    if (v.strides[d] == 0)
      expanded.push_back(int(d));
    else
      kept.push_back(int(d));
  }
  std::vector<int> order = kept; // kept dims by decreasing stride: the base's layout
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return v.strides[a] > v.strides[b]; });
  Shape sorted_shape;
  for (int d : order) sorted_shape.push_back(v.shape[d]);
  Shape want = strides_for_shape(sorted_shape);
  for (size_t k = 0; k < order.size(); ++k)
    if (v.strides[order[k]] != want[k]) return std::nullopt;
  if (prod(sorted_shape) != prod(base_shape)) return std::nullopt;
  LazyBuffer out = g;
  if (!expanded.empty()) out = out.cast(sum_acc_dtype(g.dtype())).r(Op::SUM, expanded).cast(g.dtype());
  Shape kept_shape;
  for (int d : kept) kept_shape.push_back(v.shape[d]);
  out = out.reshape(kept_shape);
  std::vector<int> perm; // position in `kept` of each dim of `order`
  for (int d : order) perm.push_back(int(std::find(kept.begin(), kept.end(), d) - kept.begin()));
  out = out.permute(perm);
  return out.reshape(base_shape);
}

// Any view: grad_base[j] = sum over view elements i reading j of g[i], as a compare-and-reduce
// against the view's index map (a constant buffer).
LazyBuffer scatter_adjoint(const LazyBuffer& g, const ShapeTracker& st, const Shape& base_shape) {
  std::vector<int32_t> map = view_index_map(st);
  int64_t m = int64_t(map.size()), n = prod(base_shape);
  std::vector<uint8_t> map_bytes(map.size() * 4), range_bytes(size_t(n) * 4);
  std::memcpy(map_bytes.data(), map.data(), map_bytes.size());
  for (int64_t j = 0; j < n; ++j) {
    int32_t v = int32_t(j);
    std::memcpy(range_bytes.data() + j * 4, &v, 4);
  }
  LazyBuffer index = LazyBuffer::from_data(std::move(map_bytes), {m, 1}, DType::Int32).expand({m, n});
  LazyBuffer range = LazyBuffer::from_data(std::move(range_bytes), {1, n}, DType::Int32).expand({m, n});
  LazyBuffer gx = g.reshape({m, 1}).expand({m, n});
  LazyBuffer picked = index.e(Op::CMPNE, {range}).e(Op::WHERE, {gx.const_like(i(0)), gx});
  DType acc = sum_acc_dtype(g.dtype());
  return picked.cast(acc).r(Op::SUM, {0}).cast(g.dtype()).reshape(base_shape);
}

DimPairs pairs(const Shape& flat) { // (symbolic after a pad or shrink by a variable)
  DimPairs out;
  for (size_t k = 0; k + 1 < flat.size(); k += 2) out.push_back({flat[k], flat[k + 1]});
  return out;
}

// The view's movement ops, each with function.py's adjoint, last first: reshape back, expand
// -> sum, permute -> the inverse, pad -> shrink, shrink -> pad, flip -> flip. Costs what the
// forward view costs. nullopt when the node's history is unknown or does not replay to its
// ShapeTracker (a hand-edited artifact), or has a stride other than a flip.
std::optional<LazyBuffer> moves_adjoint(const LazyBuffer& g, const LazyNode& node, const Shape& base_shape) {
  std::vector<Shape> shapes{base_shape};
  ShapeTracker st = ShapeTracker::from_shape(base_shape);
  try {
    for (const ViewMove& m : node.moves) {
      size_t nd = st.shape().size();
      switch (m.op) {
      case MoveOp::Reshape:
        // (a symbolic size is checked by the replay: it must end at the node's view)
        if (std::any_of(m.arg.begin(), m.arg.end(), [](const sint& d) { return d.min() < 0; }) ||
            (all_int(m.arg) && all_int(st.shape()) && prod(m.arg) != prod(st.shape())))
          return std::nullopt;
        st = st.reshape(m.arg);
        break;
      case MoveOp::Expand:
        if (m.arg.size() != nd) return std::nullopt;
        st = st.expand(m.arg);
        break;
      case MoveOp::Permute: {
        if (m.arg.size() != nd) return std::nullopt;
        std::vector<int> order(m.arg.begin(), m.arg.end());
        std::vector<int> sorted = order;
        std::sort(sorted.begin(), sorted.end());
        for (size_t d = 0; d < nd; ++d)
          if (sorted[d] != int(d)) return std::nullopt;
        st = st.permute(order);
        break;
      }
      case MoveOp::Pad:
      case MoveOp::Shrink:
        if (m.arg.size() != 2 * nd) return std::nullopt;
        st = m.op == MoveOp::Pad ? st.pad_symbolic(pairs(m.arg)) : st.shrink_symbolic(pairs(m.arg));
        break;
      case MoveOp::Stride:
        if (m.arg.size() != nd) return std::nullopt;
        for (int64_t s : m.arg)
          if (s != 1 && s != -1) return std::nullopt;
        st = st.stride(shape_ints(m.arg));
        break;
      }
      shapes.push_back(st.shape());
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  if (!(st == node.st)) return std::nullopt;
  LazyBuffer out = g;
  for (size_t k = node.moves.size(); k-- > 0;) {
    const ViewMove& m = node.moves[k];
    const Shape &before = shapes[k], &after = shapes[k + 1];
    switch (m.op) {
    case MoveOp::Reshape:
      out = out.reshape(before);
      break;
    case MoveOp::Expand: {
      Axes axes;
      for (size_t d = 0; d < before.size(); ++d)
        if (!(before[d] == after[d])) axes.push_back(int(d));
      if (!axes.empty()) out = out.cast(sum_acc_dtype(g.dtype())).r(Op::SUM, axes).cast(g.dtype());
      break;
    }
    case MoveOp::Permute: {
      std::vector<int> inverse(m.arg.size());
      for (size_t d = 0; d < m.arg.size(); ++d) inverse[size_t(m.arg[d])] = int(d);
      out = out.permute(inverse);
      break;
    }
    case MoveOp::Pad: {
      DimPairs keep;
      for (size_t d = 0; d < before.size(); ++d) keep.push_back({m.arg[2 * d], m.arg[2 * d] + before[d]});
      out = out.shrink_symbolic(keep);
      break;
    }
    case MoveOp::Shrink: {
      DimPairs around;
      for (size_t d = 0; d < before.size(); ++d)
        around.push_back({m.arg[2 * d], before[d] - m.arg[2 * d + 1]});
      out = out.pad_symbolic(around);
      break;
    }
    case MoveOp::Stride:
      out = out.stride(shape_ints(m.arg));
      break;
    }
  }
  return out;
}

LazyBuffer view_adjoint(const LazyBuffer& g, const LazyNode& node, const LazyBuffer& base) {
  const Shape& base_shape = base.shape();
  // contiguous alone also describes a prefix of the base (x[0] of a (3,) is the view () at 0)
  if (node.st.contiguous() && prod(node.shape) == prod(base_shape)) return g.reshape(base_shape);
  if (auto out = moves_adjoint(g, node, base_shape)) return *out;
  if (auto out = permute_expand_adjoint(g, node.st, base_shape)) return *out;
  return scatter_adjoint(g, node.st, base_shape);
}

// ---- the rules ----

using Grads = std::vector<std::optional<LazyBuffer>>;

Grads node_grads(NodeId id, const LazyBuffer& g) {
  LazyBuffer ret(id);
  const LazyNode& n = ret.node();
  std::vector<LazyBuffer> x;
  for (NodeId s : n.srcs) x.emplace_back(s);
  Grads out(x.size());
  switch (n.op) {
  case Op::NEG:
    out[0] = g.e(Op::NEG);
    break;
  case Op::RECIP:
    out[0] = mul(mul(g.e(Op::NEG), ret), ret);
    break;
  case Op::SIN:
    out[0] = mul(x[0].const_like(f(std::numbers::pi / 2)).e(Op::ADD, {x[0].e(Op::NEG)}).e(Op::SIN), g);
    break;
  case Op::SQRT:
    out[0] = mul(g, recip(mul(ret, ret.const_like(i(2)))));
    break;
  case Op::EXP2:
    out[0] = mul(mul(ret, ret.const_like(f(std::log(2.0)))), g);
    break;
  case Op::LOG2:
    out[0] = mul(g, recip(mul(x[0], x[0].const_like(f(std::log(2.0))))));
    break;
  case Op::CAST: // function.py Cast.backward: the gradient cast back to the source dtype, int or not
    out[0] = g.cast(x[0].dtype());
    break;
  case Op::ADD:
    out[0] = g, out[1] = g;
    break;
  case Op::MUL:
    out[0] = mul(x[1], g), out[1] = mul(x[0], g);
    break;
  case Op::MAX: // relu's rule: the gradient goes to the strictly larger side
    out[0] = mul(x[1].e(Op::CMPLT, {x[0]}).cast(g.dtype()), g);
    out[1] = mul(x[0].e(Op::CMPLT, {x[1]}).cast(g.dtype()), g);
    break;
  case Op::WHERE:
    out[1] = x[0].e(Op::WHERE, {g, g.const_like(i(0))});
    out[2] = x[0].e(Op::WHERE, {g.const_like(i(0)), g});
    break;
  case Op::SUM:
    out[0] = g.expand(x[0].shape());
    break;
  case Op::REDUCE_MAX: {
    const Axes& axis = std::get<Axes>(n.arg);
    LazyBuffer not_max = x[0].e(Op::CMPNE, {ret.expand(x[0].shape())}).cast(DType::Float32);
    LazyBuffer max_is_1s = x[0].const_like(f(1.0)).cast(DType::Float32).e(Op::ADD, {not_max.e(Op::NEG)});
    LazyBuffer div = max_is_1s.r(Op::SUM, axis).expand(x[0].shape());
    out[0] = mul(mul(max_is_1s, recip(div)).cast(g.dtype()), g.expand(x[0].shape()));
    break;
  }
  case Op::CONTIGUOUS:
    out[0] = g;
    break;
  case Op::VIEW:
    if (!ret.is_detached()) out[0] = view_adjoint(g, n, x[0]); // detach(): no gradient
    break;
  case Op::COPY: // between devices, the gradient goes back (function.py's Copy); host data has none
    if (n.is_device_copy()) out[0] = g.copy_to_device(x[0].device());
    break;
  case Op::EMPTY:
  case Op::LOAD_CONST:
  case Op::BITCAST:
  case Op::IDIV:
  case Op::MOD:
  case Op::CMPLT:
  case Op::CMPNE:
  case Op::XOR:
  case Op::SHR:
  case Op::SHL:
    break;
  default:
    fail("RuntimeError", "tg-grad: no gradient rule for " + std::string(op_name(n.op)));
  }
  // As in tinygrad, gradients flow through int and bool tensors too: a CAST from a float target
  // gives its int result an int gradient, and CAST's rule brings it back to float.
  return out;
}

// function.py's Sigmoid, 1 / (1 + exp2(x * -1/ln 2)), is one Function whose backward reads
// only its result: ret * (1 - ret) * g. The chain rule through its lazy ops instead gives
// inf * 0 = NaN where exp2 overflows (sigmoid, tanh, gelu and quick_gelu of |x| ~ 1e3).
std::optional<NodeId> sigmoid_input(NodeId id) {
  const LazyGraph& graph = lazy_graph();
  auto is_const = [&](NodeId n, double v) {
    LazyBuffer b(n);
    return b.is_unrealized_const() && b.const_value().as_double() == v;
  };
  const LazyNode& recip = graph[id];
  if (recip.op != Op::RECIP) return std::nullopt;
  const LazyNode& add = graph[recip.srcs[0]];
  if (add.op != Op::ADD || !is_const(add.srcs[0], 1.0)) return std::nullopt;
  const LazyNode& exp2 = graph[add.srcs[1]];
  if (exp2.op != Op::EXP2) return std::nullopt;
  const LazyNode& scale = graph[exp2.srcs[0]];
  if (scale.op != Op::MUL || !is_const(scale.srcs[1], -1 / std::log(2.0))) return std::nullopt;
  return scale.srcs[0];
}

} // namespace

Graph gradient_graph(const Graph& graph, const std::vector<std::string>& wrt, const std::string& loss,
                     std::vector<std::string>* notes) {
  LazyGraph scratch; // a graph of its own: nothing of this call stays in the caller's
  GraphScope scope(scratch);
  std::vector<NodeId> ids = import_graph(graph);
  // loss
  const GraphOutput* loss_out = nullptr;
  if (loss.empty()) {
    check(graph.outputs.size() == 1, "ValueError",
          "the graph has " + std::to_string(graph.outputs.size()) + " outputs: name the loss with --loss");
    loss_out = &graph.outputs[0];
  } else {
    for (const GraphOutput& o : graph.outputs)
      if (o.name == loss) loss_out = &o;
    check(loss_out != nullptr, "ValueError", "no output named '" + loss + "'");
  }
  LazyBuffer loss_lb(ids.at(loss_out->node));
  check(loss_lb.shape().empty(), "AssertionError",
        "backward can only be called for scalar tensors, but it has shape " + tuple_text(loss_lb.shape()) +
            ")");
  // wrt
  std::vector<std::pair<std::string, NodeId>> targets;
  for (const std::string& name : wrt) {
    auto it = std::find_if(graph.inputs.begin(), graph.inputs.end(),
                           [&](const GraphInput& in) { return in.name == name; });
    // a state (the program's weights) may be named too
    auto st = std::find_if(graph.states.begin(), graph.states.end(),
                           [&](const GraphState& s) { return s.name == name; });
    check(it != graph.inputs.end() || st != graph.states.end(), "ValueError",
          "no input or state named '" + name + "'");
    if (std::any_of(targets.begin(), targets.end(), [&](const auto& t) { return t.first == name; })) continue;
    for (const GraphOutput& o : graph.outputs)
      check(o.name != "grad_" + name, "ValueError",
            "the graph already has an output named 'grad_" + name + "'");
    NodeId id = ids.at(it != graph.inputs.end() ? it->node : st->node);
    check(is_float(LazyBuffer(id).dtype()), "ValueError", "input '" + name + "' is not a float tensor");
    targets.push_back({name, id});
  }
  // nodes reaching the loss; arena ids are topological (sources are always older)
  std::set<NodeId> reach{loss_lb.id()};
  std::vector<NodeId> stack{loss_lb.id()};
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    for (NodeId s : lazy_graph()[id].srcs)
      if (reach.insert(s).second) stack.push_back(s);
  }
  // only nodes on a path to a target need gradients
  std::set<NodeId> needed;
  for (const auto& t : targets) needed.insert(t.second);
  for (NodeId id : reach) { // increasing: sources first
    for (NodeId s : lazy_graph()[id].srcs)
      if (needed.count(s)) needed.insert(id);
  }
  std::map<NodeId, LazyBuffer> grads;
  grads.emplace(loss_lb.id(), loss_lb.const_like(f(1.0)));
  for (auto it = reach.rbegin(); it != reach.rend(); ++it) {
    NodeId id = *it;
    auto g = grads.find(id);
    if (g == grads.end() || !needed.count(id) || lazy_graph()[id].srcs.empty()) continue;
    Grads gs;
    std::vector<NodeId> srcs;
    if (auto x = sigmoid_input(id)) {
      // one Function in tinygrad: its rule, straight to its input
      LazyBuffer ret(id);
      gs = {mul(mul(ret, ret.const_like(i(1)).e(Op::ADD, {ret.e(Op::NEG)})), g->second)};
      srcs = {*x};
    } else {
      gs = node_grads(id, g->second);
      srcs = lazy_graph()[id].srcs;
    }
    for (size_t k = 0; k < gs.size(); ++k) {
      if (!gs[k] || !needed.count(srcs[k])) continue;
      check(gs[k]->shape() == lazy_graph()[srcs[k]].shape, "RuntimeError",
            "tg-grad: gradient of " + std::string(op_name(lazy_graph()[id].op)) + " has the wrong shape");
      auto [slot, fresh] = grads.emplace(srcs[k], *gs[k]);
      if (!fresh) slot->second = slot->second.e(Op::ADD, {*gs[k]});
    }
  }
  std::vector<std::pair<std::string, LazyBuffer>> outputs;
  for (const GraphOutput& o : graph.outputs) outputs.push_back({o.name, LazyBuffer(ids.at(o.node))});
  for (const auto& [name, id] : targets) {
    auto g = grads.find(id);
    if (g != grads.end()) {
      outputs.push_back({"grad_" + name, g->second});
      continue;
    }
    if (notes) notes->push_back("input '" + name + "' does not reach the loss: its gradient is zeros");
    LazyBuffer x(id);
    outputs.push_back({"grad_" + name, x.const_like(f(0.0), x.shape())});
  }
  std::vector<GraphInput> inputs = graph.inputs;
  for (GraphInput& in : inputs) {
    in.node = ids.at(in.node);
    for (const auto& t : targets)
      if (t.first == in.name) in.requires_grad = true;
  }
  // the graph's states and assigns pass through
  lazy_graph().clear_effects();
  for (const GraphState& st : graph.states)
    lazy_graph().add_state({st.name, ids.at(st.node), ids.at(st.init)});
  for (NodeId a : graph.assigns) lazy_graph().add_assign(ids.at(a));
  return extract_graph(outputs, inputs, /*effects=*/true);
}

} // namespace tg
