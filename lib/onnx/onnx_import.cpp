// ONNX import. See onnx_import.h. Each op's lowering lives in ops_*.cpp, in a table by name;
// this file walks the graph: inputs, initializers, nodes in order, outputs.
#include "onnx/onnx_import.h"
#include "onnx/model_check.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>

#include "lazy/lazybuffer.h"
#include "onnx/node.h"
#include "onnx/onnx_wire.h"
#include "util/error.h"
#include "util/identifier.h"

namespace tg {

struct OnnxModel {
  onnx::ModelProto proto;
  // Initializers whose raw_data was left out of `proto` (onnx_wire.h), by index: their bytes
  // where they lie in the model's buffer, which these Blobs keep alive.
  std::unordered_map<int, Blob> raw;
};

namespace {

// raw_data this large is left out of the parse and shared with the model's buffer (smaller
// values cost less to copy than to look up).
constexpr size_t kOwnRawBytes = 1024;

const OpTable& op_table() {
  static const OpTable table = [] {
    OpTable t;
    add_elementwise_ops(t);
    add_shape_ops(t);
    add_nn_ops(t);
    add_resize_ops(t);
    add_training_ops(t);
    add_quant_ops(t);
    add_indexing_ops(t);
    add_signal_ops(t);
    add_rnn_ops(t);
    add_grid_sample_ops(t);
    add_control_ops(t);
    add_random_ops(t);
    add_sequence_ops(t);
    return t;
  }();
  return table;
}

bool imported_domain(const std::string& d) {
  return d.empty() || d == "ai.onnx" || d == "ai.onnx.preview.training";
}

class Importer {
public:
  Importer(const std::shared_ptr<const OnnxModel>& model, std::string filename,
           const std::map<std::string, HostBuffer>& frozen, const std::map<std::string, DimRange>& dims)
      : model_(model->proto), owner_(model), frozen_(frozen), dims_(dims) {
    state_.file = std::move(filename);
    for (const auto& o : model_.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") state_.opset = int(o.version());
    state_.run_subgraph = [this](const onnx::GraphProto& g, const std::vector<Tensor>& inputs,
                                 const std::vector<std::optional<Known>>& known) {
      return run_subgraph(g, inputs, known);
    };
  }

  Graph run() {
    const onnx::GraphProto& g = model_.graph();
    const std::string& file = state_.file;
    for (const onnx::NodeProto& proto : g.node())
      if (proto.op_type() == "Gradient")
        for (const auto& a : proto.attribute())
          if (a.name() == "xs") state_.grad_sources.insert(a.strings().begin(), a.strings().end());
    for (int i = 0; i < g.initializer_size(); ++i) {
      const onnx::TensorProto& init = g.initializer(i);
      auto raw = owner_->raw.find(i);
      Known k = known_of(init, file, owner_, raw == owner_->raw.end() ? nullptr : &raw->second);
      state_.values[init.name()] = tensor_of(k);
      if (state_.grad_sources.count(init.name())) state_.values[init.name()].set_requires_grad(true);
      state_.known[init.name()] = std::move(k);
    }
    std::vector<GraphInput> inputs;
    for (const auto& [name, hb] : frozen_) {
      bool is_input = false;
      for (const onnx::ValueInfoProto& in : g.input()) is_input |= in.name() == name;
      if (!is_input) fail("ValueError", file + ": --arg " + name + ": the model has no input of that name");
    }
    // a --dim that names no dimension of the model is a typo: say which names it has
    std::set<std::string> dim_names;
    for (const onnx::ValueInfoProto& in : g.input())
      for (const auto& d : in.type().tensor_type().shape().dim())
        if (!d.has_dim_value() && !d.dim_param().empty()) dim_names.insert(d.dim_param());
    for (const auto& [name, range] : dims_)
      if (!dim_names.count(name)) {
        std::string list;
        for (const std::string& h : dim_names) list += (list.empty() ? "" : ", ") + h;
        fail("ValueError",
             file + ": --dim " + name + ": no input of the model has a dimension of that name (" +
                 (list.empty() ? std::string("it has none") : "its symbolic dimensions: " + list) + ")");
      }
    for (const onnx::ValueInfoProto& in : g.input()) {
      if (state_.values.count(in.name())) continue;               // an initializer listed as an input too
      if (auto f = frozen_.find(in.name()); f != frozen_.end()) { // bound to a constant while tracing
        Known k{f->second.dtype, f->second.shape, f->second.data};
        state_.values[in.name()] = tensor_of(k);
        state_.known[in.name()] = std::move(k);
        continue;
      }
      const auto& tt = in.type().tensor_type();
      std::optional<DType> dt = dtype_of_onnx(tt.elem_type());
      if (!in.type().has_tensor_type() || !dt)
        fail("NotImplementedError",
             file + ": input '" + in.name() + "' is not a tensor of a type tg imports");
      if (!tt.has_shape())
        fail("NotImplementedError", file + ": input '" + in.name() +
                                        "' has no shape (an unknown rank); tg "
                                        "imports fixed shapes only");
      Shape shape;
      for (const auto& d : tt.shape().dim()) {
        if (d.has_dim_value()) {
          shape.push_back(d.dim_value());
          continue;
        }
        auto size = dims_.find(d.dim_param());
        if (d.dim_param().empty())
          fail("NotImplementedError", file + ": input '" + in.name() +
                                          "' has a dimension of unknown size and no name; tg imports it "
                                          "only when the model names it (dim_param)");
        if (size == dims_.end())
          fail("ValueError", file + ": input '" + in.name() + "' has a symbolic dimension '" + d.dim_param() +
                                 "': give it a size, tg-trace --dim " + d.dim_param() +
                                 "=8, or a range, --dim " + d.dim_param() +
                                 "=1..64 (one program for every size)");
        const DimRange& r = size->second;
        if (r.lo == r.hi) {
          shape.push_back(r.lo);
          continue;
        }
        if (!is_identifier(d.dim_param()))
          fail("ValueError",
               file + ": the symbolic dimension '" + d.dim_param() +
                   "' is no identifier, so it cannot be a program variable: give it a size (--dim " +
                   d.dim_param() + "=8)");
        bind_var({d.dim_param(), r.lo, r.hi, r.lo});
        shape.push_back(sint(Expr::var(d.dim_param(), r.lo, r.hi)));
      }
      Tensor t = Tensor::placeholder(in.name(), shape, *dt);
      if (state_.grad_sources.count(in.name())) t.set_requires_grad(true);
      state_.values[in.name()] = t;
      state_.source_input[in.name()] = in.name();
      inputs.push_back(GraphInput{in.name(), t.lazydata().id(), false});
    }
    for (const onnx::NodeProto& proto : g.node()) apply(proto);
    std::vector<std::pair<std::string, LazyBuffer>> outputs;
    for (const onnx::ValueInfoProto& o : g.output()) {
      auto it = state_.values.find(o.name());
      if (it == state_.values.end() && state_.sequences.count(o.name()))
        fail("NotImplementedError", file + ": graph output '" + o.name() +
                                        "' is a sequence; tg imports sequences that live inside the model");
      if (it == state_.values.end())
        fail("ValueError", file + ": graph output '" + o.name() + "' is never computed");
      outputs.emplace_back(o.name(), it->second.snapshot().lazydata());
    }
    Graph graph = extract_graph(outputs, inputs, /*effects=*/true);
    return graph;
  }

private:
  // A subgraph in its own scope: it sees the enclosing values, and what it defines is gone after.
  GraphOutputs run_subgraph(const onnx::GraphProto& g, const std::vector<Tensor>& inputs,
                            const std::vector<std::optional<Known>>& known) {
    auto values = state_.values;
    auto knowns = state_.known;
    auto sources = state_.source_input;
    auto sequences = state_.sequences;
    for (const onnx::TensorProto& init : g.initializer()) {
      Known k = known_of(init, state_.file);
      state_.values[init.name()] = tensor_of(k);
      state_.known[init.name()] = std::move(k);
    }
    for (int i = 0; i < g.input_size(); ++i) {
      const std::string& name = g.input(i).name();
      state_.values[name] = inputs[size_t(i)];
      if (known[size_t(i)])
        state_.known[name] = *known[size_t(i)];
      else
        state_.known.erase(name);
    }
    for (const onnx::NodeProto& proto : g.node()) apply(proto);
    GraphOutputs outs;
    for (const onnx::ValueInfoProto& o : g.output()) {
      auto it = state_.values.find(o.name());
      if (it == state_.values.end())
        fail("ValueError", state_.file + ": subgraph output '" + o.name() + "' is never computed");
      outs.values.push_back(it->second);
      auto k = state_.known.find(o.name()); // a Loop's condition, for one
      outs.known.push_back(k == state_.known.end() ? std::nullopt : std::optional<Known>(k->second));
    }
    state_.values = std::move(values), state_.known = std::move(knowns),
    state_.source_input = std::move(sources), state_.sequences = std::move(sequences);
    return outs;
  }

  void apply(const onnx::NodeProto& proto) {
    Node n(proto, state_);
    if (!imported_domain(proto.domain())) n.bad("domain '" + proto.domain() + "' is not imported");
    auto op = op_table().find(proto.op_type());
    if (op == op_table().end()) {
      static const std::set<std::string> data_shaped{"NonZero", "Unique", "NonMaxSuppression"};
      n.bad("op '" + proto.op_type() + "' is not imported by tg" +
            (data_shaped.count(proto.op_type())
                 ? ": its output's shape depends on the values, and tg's graphs have static shapes"
                 : ""));
    }
    std::vector<Tensor> outs;
    try {
      outs = op->second(n);
    } catch (const Error& e) { // name the node where a lowering's own checks did not
      std::string what = e.what();
      if (what.rfind(state_.file + ": ", 0) == 0) throw;
      fail(e.kind(), state_.file + ": node '" + proto.name() + "' (" + proto.op_type() + "): " + what);
    }
    for (int i = 0; i < proto.output_size() && i < int(outs.size()); ++i)
      if (!proto.output(i).empty()) {
        if (state_.grad_sources.count(proto.output(i))) outs[size_t(i)].set_requires_grad(true);
        state_.values[proto.output(i)] = outs[size_t(i)];
      }
    // a small value computed from known ones is known too (shapes computed from Shape)
    if (!outs.empty() && !state_.known.count(proto.output(0))) try {
        if (std::optional<Known> k = fold_known(n, outs[0])) n.set_known(0, std::move(*k));
      } catch (const Error&) { // a value the evaluator refuses is left to the graph, unknown
      }
    for (const std::string& in : proto.input()) // where unknown outputs come from, for errors
      if (auto src = state_.source_input.find(in); src != state_.source_input.end()) {
        for (const std::string& out : proto.output())
          if (!out.empty() && !state_.known.count(out)) state_.source_input.emplace(out, src->second);
        break;
      }
  }

  const onnx::ModelProto& model_;
  std::shared_ptr<const OnnxModel> owner_; // the initializers' bytes stay in the parsed model
  const std::map<std::string, HostBuffer>& frozen_;
  const std::map<std::string, DimRange>& dims_;
  ImportState state_;
};

} // namespace

std::shared_ptr<const OnnxModel> parse_onnx(std::string_view bytes,
                                            const std::shared_ptr<const void>& owner) {
  auto m = std::make_shared<OnnxModel>();
  std::optional<StrippedModel> stripped = owner ? strip_raw_data(bytes, kOwnRawBytes) : std::nullopt;
  std::string_view parsed = stripped ? std::string_view(stripped->bytes) : bytes;
  if (parsed.empty() ||
      !m->proto.ParseFromArray(parsed.data(), int(std::min<size_t>(parsed.size(), INT32_MAX))) ||
      !m->proto.has_graph() || m->proto.ir_version() <= 0)
    return nullptr;
  if (stripped)
    for (auto [index, raw] : stripped->raw)
      m->raw.emplace(index, Blob(owner, reinterpret_cast<const uint8_t*>(raw.data()), raw.size()));
  return m;
}

bool looks_like_onnx(std::string_view bytes) { return parse_onnx(bytes) != nullptr; }

Graph trace_onnx(const std::shared_ptr<const OnnxModel>& model, const std::string& filename,
                 const std::map<std::string, HostBuffer>& frozen,
                 const std::map<std::string, DimRange>& dims) {
  check_onnx_model(model->proto, filename);
  LazyGraph scratch; // a graph of its own: nothing of this call stays in the caller's
  GraphScope scope(scratch);
  try {
    return Importer(model, filename, frozen, dims).run();
  } catch (const Error& e) { // names in messages come from the model: no raw control bytes
    throw Error(e.kind(), printable(e.what()));
  }
}

Graph trace_onnx(const std::string& bytes, const std::string& filename,
                 const std::map<std::string, HostBuffer>& frozen,
                 const std::map<std::string, DimRange>& dims) {
  auto model = std::make_shared<OnnxModel>();
  if (!model->proto.ParseFromString(bytes)) fail("ValueError", filename + ": not a valid ONNX model");
  return trace_onnx(model, filename, frozen, dims);
}

std::pair<std::string, DimRange> parse_dim_range(const std::string& text) {
  auto bad = [&](const std::string& why) -> std::pair<std::string, DimRange> {
    fail("ValueError", "--dim " + text + ": " + why);
  };
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) bad("expected NAME=N or NAME=LO..HI");
  auto number = [&](const std::string& s) {
    int64_t v = 0;
    if (s.empty() || s.size() > 10 ||
        !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
      bad("'" + s + "' is not a size");
    for (char c : s) v = v * 10 + (c - '0');
    if (v < 1 || v > INT32_MAX) bad("a size must be in [1, 2147483647]");
    return v;
  };
  std::string value = text.substr(eq + 1);
  size_t dots = value.find("..");
  DimRange r;
  r.lo = number(value.substr(0, dots));
  r.hi = dots == std::string::npos ? r.lo : number(value.substr(dots + 2));
  if (r.hi < r.lo) bad("the range is empty (LO > HI)");
  return {text.substr(0, eq), r};
}

} // namespace tg
