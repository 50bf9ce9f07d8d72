// onnx layer: one ONNX node while it is imported — its inputs (as Tensors, or as values known
// at import time), its attributes with ONNX's defaults, and the errors that name it. Each op's
// lowering (ops_*.cpp) is a function of a Node.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "onnx/known.h"
#include "tensor/tensor.h"

namespace onnx {
class NodeProto;
class AttributeProto;
class GraphProto;
} // namespace onnx

namespace tg {

// A subgraph's outputs, and which of them are known while importing.
struct GraphOutputs {
  std::vector<Tensor> values;
  std::vector<std::optional<Known>> known;
};

// What the importer knows so far: every computed value, and those known while importing.
struct ImportState {
  std::string file;
  int opset = 1; // of the default domain
  std::map<std::string, Tensor> values;
  std::map<std::string, Known> known;
  // sequence values (SequenceConstruct, SplitToSequence, ...): lists of tensors while importing
  std::map<std::string, std::vector<Tensor>> sequences;
  std::set<std::string> optionals; // the sequences above that are optionals (0 or 1 tensor)
  // values some Gradient node differentiates by: made requires_grad where they are made
  std::set<std::string> grad_sources;
  bool gradient_taken = false; // a Gradient node was imported (one per model)
  // the graph input each unknown value is computed from (the first one found), for errors
  std::map<std::string, std::string> source_input;
  // Imports a subgraph (If's branches, Loop's and Scan's bodies) with its inputs bound, in a
  // scope that sees the enclosing values; returns its outputs.
  std::function<GraphOutputs(const onnx::GraphProto&, const std::vector<Tensor>&,
                             const std::vector<std::optional<Known>>&)>
      run_subgraph;
};

class Node {
public:
  Node(const onnx::NodeProto& proto, ImportState& state) : proto_(proto), state_(state) {}

  const std::string& op() const;
  int opset() const { return state_.opset; }
  const std::string& file() const { return state_.file; }
  [[noreturn]] void bad(const std::string& why) const;

  // --- inputs and outputs ---
  int input_count() const;
  bool has_input(int i) const;
  Tensor in(int i) const;
  // The value of that name (a Gradient's y), an error when it is not computed before this node.
  Tensor value(const std::string& name) const;
  // Whether a Gradient node came before; marks this one's.
  bool gradient_taken() const { return std::exchange(state_.gradient_taken, true); }
  std::vector<Tensor> inputs_from(int first) const;
  // Input i's values, which the lowering needs while importing (a shape, axes, pads); an input
  // that is not known is a clear error naming it.
  const Known& known(int i) const;
  const Known* maybe_known(int i) const;
  int output_count() const;
  // Whether output i exists and is named (an optional output left out is "").
  bool wants_output(int i) const;
  // Records output i as known: later nodes may read it as a shape, axes or pads.
  void set_known(int i, Known k) const;
  // Input i as a sequence (an error when it is a tensor or missing); output i set to one.
  const std::vector<Tensor>& seq(int i) const;
  bool is_seq(int i) const;      // input i is a sequence (or an optional)
  bool is_optional(int i) const; // input i is an optional
  void set_optional(int i, std::optional<Tensor> value) const;
  void set_seq(int i, std::vector<Tensor> items) const;

  // --- attributes, with the op's defaults ---
  const onnx::AttributeProto* attr(const std::string& name) const;
  int64_t attr_int(const std::string& name, int64_t def) const;
  double attr_float(const std::string& name, double def) const;
  std::string attr_string(const std::string& name, const std::string& def) const;
  std::optional<std::vector<int64_t>> attr_ints(const std::string& name) const;
  std::optional<std::vector<double>> attr_floats(const std::string& name) const;
  std::vector<std::string> attr_strings(const std::string& name) const;
  std::optional<Known> attr_tensor(const std::string& name) const;
  // A graph attribute (If's branches, Loop's and Scan's body); a missing one is an error.
  const onnx::GraphProto& attr_graph(const std::string& name) const;
  // Imports `graph` with its inputs bound to `inputs` (each known too where `known` says).
  GraphOutputs run_graph(const onnx::GraphProto& graph, const std::vector<Tensor>& inputs,
                         const std::vector<std::optional<Known>>& known = {}) const;
  // axes from an attribute (older opsets) or from input i (newer ones)
  std::optional<std::vector<int64_t>> axes_arg(int i) const;

  // --- helpers shared by several lowerings ---
  // An ONNX axis (negative counts from the end) in [0, rank); out of range is a ValueError.
  static int norm_axis(int64_t axis, size_t rank);
  // ONNX pads (all begins, then all ends) for the trailing spatial dims, as tinygrad's padding
  // (pairs from the last dim backwards); auto_pad SAME_* computed from the sizes.
  std::vector<int64_t> spatial_padding(const Shape& x, const std::vector<int64_t>& kernel,
                                       const std::vector<int64_t>& strides,
                                       const std::vector<int64_t>& dilations) const;
  // tinygrad's padding pairs (last dim first) as a Padding over all `rank` dims.
  static Padding padding_of(const std::vector<int64_t>& tg_pads, size_t rank);
  // The spatial rank of an NCHW-style input (rank - 2); refuses an input with no spatial axes.
  size_t spatial_rank(const Tensor& x) const;
  // kernel_shape, or the weight's trailing dims
  std::vector<int64_t> kernel_arg(const Tensor& w, size_t nd) const;
  // A Reduce* op: axes from the attribute or input `axes_input`, keepdims, noop_with_empty_axes.
  Tensor reduce(const Tensor& x, const std::function<Tensor(const Tensor&, const AxisArg&, bool)>& f,
                int axes_input) const;

private:
  const onnx::NodeProto& proto_;
  ImportState& state_;
};

// The product over `axes` (tg's reduce ops are SUM and MAX only).
Tensor product(const Tensor& x, const AxisArg& axes, bool keep);
// 0, 1, ..., n-1 as int64: the positions one-hot comparisons match indices against.
Tensor positions(int64_t n);
// x with each batch entry's first lens[b] steps along time_axis reversed (ReverseSequence;
// reverse-direction recurrent layers with sequence_lens).
Tensor reverse_prefixes(const Tensor& x, const Tensor& lens, int time_axis, int batch_axis);

using OnnxOp = std::vector<Tensor> (*)(const Node&);
using OpTable = std::unordered_map<std::string_view, OnnxOp>;

// The lowerings, by family; each adds its ops to the table.
void add_elementwise_ops(OpTable& t);
void add_shape_ops(OpTable& t);
void add_nn_ops(OpTable& t);
void add_resize_ops(OpTable& t);
void add_training_ops(OpTable& t);
void add_quant_ops(OpTable& t);
void add_indexing_ops(OpTable& t);
void add_signal_ops(OpTable& t);
void add_rnn_ops(OpTable& t);
void add_grid_sample_ops(OpTable& t);
void add_sequence_ops(OpTable& t);
void add_control_ops(OpTable& t);
void add_random_ops(OpTable& t);

// The value of the node's first output (computed as `out`) when every input is known, the op
// is one of the cheap ones shapes are computed with (Cast, arithmetic, Concat, Gather, Reshape,
// ...) and it is small; nullopt otherwise. Models compute shapes from Shape this way.
std::optional<Known> fold_known(const Node& n, const Tensor& out);

} // namespace tg
