// ONNX's control flow (If, Loop, Scan), unrolled while importing: tg's graphs have no control
// flow, so a Loop needs its trip count (or its condition) known, and an If whose condition is
// data computes both branches and picks per element (ONNX operator docs).
#include "onnx/node.h"

namespace tg {

namespace {

using Outs = std::vector<Tensor>;

constexpr int64_t kMaxUnrolled = 4096; // iterations one Loop or Scan may unroll to

Known known_scalar(DType dt, const Scalar& v) { return known_values(dt, {}, {v}); }

// The slices of xs along axis 0 stacked back: (count, ...).
Tensor stack(const std::vector<Tensor>& xs) {
  std::vector<Tensor> rest;
  for (size_t i = 1; i < xs.size(); ++i) rest.push_back(xs[i].unsqueeze(0));
  return xs[0].unsqueeze(0).cat(rest, 0);
}

Outs if_op(const Node& n) {
  const onnx::GraphProto &then_g = n.attr_graph("then_branch"), &else_g = n.attr_graph("else_branch");
  if (const Known* k = n.maybe_known(0)) return n.run_graph(k->at(0).truthy() ? then_g : else_g, {}).values;
  // the condition is data: both branches, then a choice per output
  Outs a = n.run_graph(then_g, {}).values, b = n.run_graph(else_g, {}).values;
  if (a.size() != b.size()) n.bad("its branches give different numbers of outputs");
  Tensor cond = n.in(0).reshape({});
  Outs out;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].shape() != b[i].shape())
      n.bad("its branches give outputs of different shapes, so the condition must be known while importing "
            "(tg-trace --arg binds an input)");
    out.push_back(cond.where(a[i], b[i]));
  }
  return out;
}

Outs loop_op(const Node& n) {
  const onnx::GraphProto& body = n.attr_graph("body");
  std::optional<int64_t> trips;
  if (n.has_input(0)) trips = n.known(0).ints().at(0);
  bool go = true;
  if (n.has_input(1)) {
    go = n.known(1).at(0).truthy(); // tg unrolls loops while importing
  }
  if (!trips && !n.has_input(1)) n.bad("a Loop with neither a trip count nor a condition never ends");
  Outs state = n.inputs_from(2);
  std::vector<Outs> scans;
  for (int64_t i = 0; go && (!trips || i < *trips); ++i) {
    if (i == kMaxUnrolled)
      n.bad("it runs more than " + std::to_string(kMaxUnrolled) + " iterations, which tg does not unroll");
    Known iter = known_scalar(DType::Int64, Scalar::of_int(i)),
          cond = known_scalar(DType::Bool, Scalar::of_bool(true));
    std::vector<Tensor> in{tensor_of(iter), tensor_of(cond)};
    in.insert(in.end(), state.begin(), state.end());
    std::vector<std::optional<Known>> known(in.size());
    known[0] = iter, known[1] = cond;
    GraphOutputs out = n.run_graph(body, in, known);
    if (out.values.size() < 1 + state.size()) n.bad("its body gives fewer outputs than it carries");
    if (n.has_input(1)) { // the body's condition decides when it stops
      if (!out.known[0])
        n.bad("its body's condition is computed from data; tg unrolls loops while importing");
      go = out.known[0]->at(0).truthy();
    }
    state.assign(out.values.begin() + 1, out.values.begin() + 1 + long(state.size()));
    scans.emplace_back(out.values.begin() + 1 + long(state.size()), out.values.end());
  }
  Outs result = state;
  size_t n_scans = size_t(n.output_count()) - state.size();
  for (size_t s = 0; s < n_scans; ++s) {
    if (scans.empty()) n.bad("a scan output of a Loop that runs no iteration has no shape");
    std::vector<Tensor> slices;
    for (const Outs& it : scans) slices.push_back(it.at(s));
    result.push_back(stack(slices));
  }
  return result;
}

Outs scan_op(const Node& n) {
  if (n.opset() < 9) n.bad("Scan before opset 9 (with sequence_lens) is not imported");
  const onnx::GraphProto& body = n.attr_graph("body");
  int64_t m = n.attr_int("num_scan_inputs", 0), total = n.input_count(), states = total - m;
  if (m <= 0 || states < 0) n.bad("num_scan_inputs must be between 1 and its inputs");
  auto list = [&](const char* name, int64_t count) {
    std::vector<int64_t> v = n.attr_ints(name).value_or(std::vector<int64_t>{});
    v.resize(size_t(count), 0);
    return v;
  };
  std::vector<int64_t> in_axes = list("scan_input_axes", m), in_dirs = list("scan_input_directions", m);
  Outs state = n.inputs_from(0);
  state.resize(size_t(states));
  std::vector<Tensor> xs;
  int64_t steps = -1;
  for (int64_t j = 0; j < m; ++j) {
    Tensor x = n.in(int(states + j));
    int axis = Node::norm_axis(in_axes[size_t(j)], x.shape().size());
    std::vector<int> perm{axis};
    for (size_t d = 0; d < x.shape().size(); ++d)
      if (int(d) != axis) perm.push_back(int(d));
    x = x.permute(perm);
    if (in_dirs[size_t(j)]) x = x.flip({0});
    if (steps >= 0 && x.shape()[0] != steps) n.bad("its scan inputs have different lengths");
    steps = x.shape()[0];
    xs.push_back(x);
  }
  if (steps > kMaxUnrolled)
    n.bad("it scans more than " + std::to_string(kMaxUnrolled) + " steps, which tg does not unroll");
  std::vector<Outs> scans;
  for (int64_t t = 0; t < steps; ++t) {
    std::vector<Tensor> in = state;
    for (const Tensor& x : xs) {
      Padding step(x.shape().size(), std::nullopt);
      step[0] = std::pair<int64_t, int64_t>(t, t + 1);
      in.push_back(x.shrink(step).squeeze(0));
    }
    Outs out = n.run_graph(body, in).values;
    if (out.size() < state.size()) n.bad("its body gives fewer outputs than it carries");
    state.assign(out.begin(), out.begin() + long(state.size()));
    scans.emplace_back(out.begin() + long(state.size()), out.end());
  }
  int64_t k = n.output_count() - states;
  std::vector<int64_t> out_axes = list("scan_output_axes", k), out_dirs = list("scan_output_directions", k);
  Outs result = state;
  for (int64_t s = 0; s < k; ++s) {
    if (scans.empty()) n.bad("a scan over no steps has no output shape");
    std::vector<Tensor> slices;
    for (const Outs& it : scans) slices.push_back(it.at(size_t(s)));
    Tensor y = stack(slices);
    if (out_dirs[size_t(s)]) y = y.flip({0});
    int axis = Node::norm_axis(out_axes[size_t(s)], y.shape().size());
    if (axis != 0) { // the stacked axis moves to `axis`
      std::vector<int> perm;
      for (int d = 1; d <= axis; ++d) perm.push_back(d);
      perm.push_back(0);
      for (size_t d = size_t(axis) + 1; d < y.shape().size(); ++d) perm.push_back(int(d));
      y = y.permute(perm);
    }
    result.push_back(y);
  }
  return result;
}

} // namespace

void add_control_ops(OpTable& t) {
  t["If"] = if_op;
  t["Loop"] = loop_op;
  t["Scan"] = scan_op;
}

} // namespace tg
