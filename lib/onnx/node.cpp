// One node while it is imported. See node.h.
#include "onnx/node.h"

#include <onnx/onnx_pb.h>

#include <algorithm>

#include "util/error.h"

namespace tg {

int Node::norm_axis(int64_t axis, size_t rank) {
  int64_t r = int64_t(rank);
  if (axis < -r || axis >= r)
    fail("ValueError", "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return int(axis < 0 ? axis + r : axis);
}

const std::string& Node::op() const { return proto_.op_type(); }

void Node::bad(const std::string& why) const {
  fail("NotImplementedError", file() + ": node '" + proto_.name() + "' (" + op() + "): " + why);
}

int Node::input_count() const { return proto_.input_size(); }
bool Node::has_input(int i) const { return i < proto_.input_size() && !proto_.input(i).empty(); }

Tensor Node::in(int i) const {
  if (!has_input(i)) bad("input " + std::to_string(i) + " is missing");
  auto it = state_.values.find(proto_.input(i));
  if (it == state_.values.end()) bad("input '" + proto_.input(i) + "' is not computed before it");
  return it->second;
}

Tensor Node::value(const std::string& name) const {
  auto it = state_.values.find(name);
  if (it == state_.values.end()) bad("'" + name + "' is not computed before it");
  return it->second;
}

std::vector<Tensor> Node::inputs_from(int first) const {
  std::vector<Tensor> out;
  for (int i = first; i < input_count(); ++i) out.push_back(in(i));
  return out;
}

const Known* Node::maybe_known(int i) const {
  if (!has_input(i)) return nullptr;
  auto it = state_.known.find(proto_.input(i));
  return it == state_.known.end() ? nullptr : &it->second;
}

const Known& Node::known(int i) const {
  if (!has_input(i)) bad("input " + std::to_string(i) + " is missing");
  if (const Known* k = maybe_known(i)) return *k;
  const std::string& name = proto_.input(i);
  auto src = state_.source_input.find(name);
  if (src != state_.source_input.end() && src->second != name)
    bad("input '" + name + "' must be a constant: it is computed from graph input '" + src->second +
        "' (tg-trace --arg " + src->second + "=FILE.npy binds it)");
  bad("input '" + name +
      "' must be a constant (an initializer, a Constant, or tg-trace --arg NAME=FILE.npy)");
}

const std::vector<Tensor>& Node::seq(int i) const {
  if (!has_input(i)) bad("input " + std::to_string(i) + " is missing");
  auto it = state_.sequences.find(proto_.input(i));
  if (it == state_.sequences.end())
    bad("input '" + proto_.input(i) + "' is not a sequence" +
        (state_.values.count(proto_.input(i)) ? " (it is a tensor)" : " computed before it"));
  return it->second;
}

bool Node::is_seq(int i) const { return has_input(i) && state_.sequences.count(proto_.input(i)); }

void Node::set_seq(int i, std::vector<Tensor> items) const {
  if (!wants_output(i)) return;
  state_.sequences[proto_.output(i)] = std::move(items);
  state_.optionals.erase(proto_.output(i));
}

bool Node::is_optional(int i) const { return has_input(i) && state_.optionals.count(proto_.input(i)); }

void Node::set_optional(int i, std::optional<Tensor> value) const {
  if (!wants_output(i)) return;
  set_seq(i, value ? std::vector<Tensor>{*value} : std::vector<Tensor>{});
  state_.optionals.insert(proto_.output(i));
}

int Node::output_count() const { return proto_.output_size(); }
bool Node::wants_output(int i) const { return i < proto_.output_size() && !proto_.output(i).empty(); }

void Node::set_known(int i, Known k) const {
  if (wants_output(i)) state_.known[proto_.output(i)] = std::move(k);
}

const onnx::AttributeProto* Node::attr(const std::string& name) const {
  for (const auto& a : proto_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

int64_t Node::attr_int(const std::string& name, int64_t def) const {
  const auto* a = attr(name);
  return a ? a->i() : def;
}

double Node::attr_float(const std::string& name, double def) const {
  const auto* a = attr(name);
  return a ? double(a->f()) : def;
}

std::string Node::attr_string(const std::string& name, const std::string& def) const {
  const auto* a = attr(name);
  return a ? a->s() : def;
}

std::optional<std::vector<int64_t>> Node::attr_ints(const std::string& name) const {
  const auto* a = attr(name);
  if (!a) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<std::vector<double>> Node::attr_floats(const std::string& name) const {
  const auto* a = attr(name);
  if (!a) return std::nullopt;
  return std::vector<double>(a->floats().begin(), a->floats().end());
}

std::vector<std::string> Node::attr_strings(const std::string& name) const {
  const auto* a = attr(name);
  if (!a) return {};
  return std::vector<std::string>(a->strings().begin(), a->strings().end());
}

std::optional<Known> Node::attr_tensor(const std::string& name) const {
  const auto* a = attr(name);
  if (!a) return std::nullopt;
  return known_of(a->t(), file());
}

const onnx::GraphProto& Node::attr_graph(const std::string& name) const {
  const auto* a = attr(name);
  if (!a || !a->has_g()) bad("the graph attribute '" + name + "' is missing");
  return a->g();
}

GraphOutputs Node::run_graph(const onnx::GraphProto& graph, const std::vector<Tensor>& inputs,
                             const std::vector<std::optional<Known>>& known) const {
  if (graph.input_size() != int(inputs.size()))
    bad("its subgraph takes " + std::to_string(graph.input_size()) + " inputs, not " +
        std::to_string(inputs.size()));
  std::vector<std::optional<Known>> k = known;
  k.resize(inputs.size());
  return state_.run_subgraph(graph, inputs, k);
}

std::optional<std::vector<int64_t>> Node::axes_arg(int i) const {
  if (auto a = attr_ints("axes")) return a;
  if (has_input(i)) return known(i).ints();
  return std::nullopt;
}

std::vector<int64_t> Node::spatial_padding(const Shape& x, const std::vector<int64_t>& kernel,
                                           const std::vector<int64_t>& strides,
                                           const std::vector<int64_t>& dilations) const {
  size_t nd = kernel.size();
  if (strides.size() != nd || dilations.size() != nd || x.size() < nd)
    bad("kernel, strides and dilations disagree on the number of spatial dims");
  std::vector<int64_t> pads = attr_ints("pads").value_or(std::vector<int64_t>(2 * nd, 0));
  std::string auto_pad = attr_string("auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    pads.assign(2 * nd, 0);
    for (size_t d = 0; d < nd; ++d) {
      int64_t in = x[x.size() - nd + d], out = (in + strides[d] - 1) / strides[d];
      int64_t total = std::max<int64_t>((out - 1) * strides[d] + (kernel[d] - 1) * dilations[d] + 1 - in, 0);
      int64_t small = total / 2;
      pads[d] = auto_pad == "SAME_UPPER" ? small : total - small;
      pads[nd + d] = total - pads[d];
    }
  } else if (auto_pad == "VALID") {
    pads.assign(2 * nd, 0);
  }
  if (pads.size() != 2 * nd)
    bad("pads has " + std::to_string(pads.size()) + " values for " + std::to_string(nd) + " dims");
  std::vector<int64_t> out;
  for (size_t d = nd; d-- > 0;) out.push_back(pads[d]), out.push_back(pads[nd + d]);
  return out;
}

Padding Node::padding_of(const std::vector<int64_t>& tg_pads, size_t rank) {
  Padding p(rank - tg_pads.size() / 2, std::nullopt);
  for (size_t i = tg_pads.size() / 2; i-- > 0;) p.push_back(std::pair(tg_pads[2 * i], tg_pads[2 * i + 1]));
  return p;
}

std::vector<int64_t> Node::kernel_arg(const Tensor& w, size_t nd) const {
  if (auto k = attr_ints("kernel_shape")) {
    if (k->size() != nd)
      bad("kernel_shape has " + std::to_string(k->size()) + " values for " + std::to_string(nd) +
          " spatial dims");
    return *k;
  }
  if (w.shape().size() < nd)
    bad("the kernel has " + std::to_string(w.shape().size()) + " dims for " + std::to_string(nd) +
        " spatial dims");
  return std::vector<int64_t>(w.shape().end() - long(nd), w.shape().end());
}

Tensor Node::reduce(const Tensor& x, const std::function<Tensor(const Tensor&, const AxisArg&, bool)>& f,
                    int axes_input) const {
  bool keep = attr_int("keepdims", 1) != 0;
  std::optional<std::vector<int64_t>> axes = axes_arg(axes_input);
  if (axes && axes->empty()) axes.reset();
  if (!axes && attr_int("noop_with_empty_axes", 0)) return x;
  AxisArg a;
  if (axes) {
    a = std::vector<int>();
    for (int64_t ax : *axes) a->push_back(norm_axis(ax, x.shape().size()));
  }
  return f(x, a, keep);
}

size_t Node::spatial_rank(const Tensor& x) const {
  if (x.shape().size() < 3)
    bad("input 0 has shape " + shape_repr(x.shape()) +
        ": it needs a batch, a channel and at least one spatial axis");
  return x.shape().size() - 2;
}

} // namespace tg
