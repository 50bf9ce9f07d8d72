// lazy layer: LazyBuffer, a handle to a node of the current LazyGraph, with the
// graph-building operations of tinygrad 0.9.1's lazy.py (const folding, views, casts, reduces).
#pragma once
#include <functional>
#include <memory>
#include <optional>

#include "lazy/lazy.h"

namespace tg {

// The graph this thread builds into: the process's own, or the one the innermost GraphScope
// names.
LazyGraph& lazy_graph();

// Makes `g` the graph that lazy_graph() returns on this thread while the scope lives, so that
// one process can build, differentiate and schedule several graphs (a library user, or
// tests that need no reset between cases).
class GraphScope {
public:
  explicit GraphScope(LazyGraph& g);
  ~GraphScope();
  GraphScope(const GraphScope&) = delete;
  GraphScope& operator=(const GraphScope&) = delete;

private:
  LazyGraph* prev_;
};

struct MultiData;

// A LazyBuffer is a handle to one node, or (is_multi) tinygrad's MultiLazyBuffer: one buffer
// per device, the tensor split along an axis or replicated (multi.py). The operations below
// work on both, as tinygrad's Functions call either through `lazydata`; a multi buffer's node
// accessors (id, node, base, st) see its first real shard.
class LazyBuffer {
public:
  LazyBuffer() = default;
  explicit LazyBuffer(NodeId id) : id_(id) {}
  NodeId id() const { return id_; }
  const LazyNode& node() const { return lazy_graph()[id_]; }
  bool operator==(const LazyBuffer& o) const { return id_ == o.id_ && multi_ == o.multi_; }
  bool operator!=(const LazyBuffer& o) const { return !(*this == o); }
  // The device of the buffer ("" = the program's default device; multi: the first shard's).
  const std::string& device() const { return node().device; }

  // --- multi-device (multi.py) ---
  // lbs all of one dtype; axis: the axis they split, or nullopt when each holds the whole
  // tensor; real: which shards hold data (a shrink to one shard's bounds zeroes the others).
  static LazyBuffer multi(std::vector<LazyBuffer> lbs, std::optional<int> axis, std::vector<bool> real = {});
  // MultiLazyBuffer.from_sharded: `lb` split along axis (or copied whole) onto `devices`.
  static LazyBuffer from_sharded(const LazyBuffer& lb, const std::vector<std::string>& devices,
                                 std::optional<int> axis);
  bool is_multi() const { return bool(multi_); }
  const std::vector<LazyBuffer>& lbs() const;
  std::optional<int> multi_axis() const;
  const std::vector<bool>& real() const;
  std::vector<std::pair<int64_t, int64_t>> bounds() const; // along the axis, per shard
  std::vector<std::string> devices() const;
  // lazy.py's copy_to_device (multi: the shards gathered into one buffer on `device`).
  LazyBuffer copy_to_device(const std::string& device, bool force = false) const;

  LazyBuffer base() const { return LazyBuffer(lazy_graph().base(id_)); }
  // Tensor.detach(): a VIEW marked detached (arg true), so that tg-grad, which sees only the
  // graph, stops there as tinygrad's backward does. Views of it stay detached; kernels see
  // through it like any view.
  LazyBuffer detach() const;
  bool is_detached() const { return node().is_view() && std::holds_alternative<Scalar>(node().arg); }
  bool is_base() const { return !node().is_view(); }
  const Shape& shape() const;
  DType dtype() const { return node().dtype; }
  const ShapeTracker& st() const { return node().st; }
  int64_t size() const { return prod(shape()); }

  static LazyBuffer loadop(Op op, const Shape& shape, DType dtype, LazyArg arg = {},
                           std::vector<LazyBuffer> srcs = {}, const std::string& device = "");
  static LazyBuffer placeholder(const std::string& name, const Shape& shape, DType dtype);
  // A new state buffer named `name` whose first value is `init` (registered in the graph).
  static LazyBuffer state(const std::string& name, const LazyBuffer& init);
  // `name`: the key a safetensors file gave the tensor (safe_load), carried to the schedule's
  // constant buffer so that a C export can load it by name; part of the node's identity.
  static LazyBuffer from_data(Blob data, const Shape& shape, DType dtype, const std::string& device = "",
                              const std::string& name = "");
  LazyBuffer const_like(const Scalar& val, std::optional<Shape> shape = std::nullopt) const;

  bool is_unrealized_const() const { return !multi_ && base().node().op == Op::LOAD_CONST; }
  bool is_unrealized_unmasked_const() const;
  const Scalar& const_value() const { return std::get<Scalar>(base().node().arg); }

  LazyBuffer e(Op op, const std::vector<LazyBuffer>& in_srcs = {}, LazyArg arg = {}) const;
  LazyBuffer r(Op op, const Axes& axis) const;
  LazyBuffer cast(DType dtype, bool bitcast = false) const;
  LazyBuffer contiguous() const;
  // lazy.py's assign: an ASSIGN of x into this buffer's base (a state or an input), registered
  // in the graph's effects. The result is the base's next version, of the base's shape (read
  // it through this buffer's view); when this buffer is only part of the base, x is stored
  // through the view and the rest keeps its contents.
  LazyBuffer assign(const LazyBuffer& x) const;
  // A buffer that exists before any kernel of the step runs: an input, a state or literal data.
  bool is_realized() const { return base().node().op == Op::EMPTY || base().node().op == Op::COPY; }

  LazyBuffer reshape(const Shape& arg) const;
  LazyBuffer pad(const std::vector<std::pair<int64_t, int64_t>>& arg) const;
  LazyBuffer expand(const Shape& arg) const;
  LazyBuffer permute(const std::vector<int>& arg) const;
  LazyBuffer shrink(const std::vector<std::pair<int64_t, int64_t>>& arg) const;
  LazyBuffer shrink_symbolic(const DimPairs& arg) const; // ends may be symbolic (shapetracker.h)
  LazyBuffer pad_symbolic(const DimPairs& arg) const;    // amounts may be symbolic
  LazyBuffer stride(const std::vector<int64_t>& arg) const;
  LazyBuffer view(const ShapeTracker& new_st) const; // a view whose history is not known
  LazyBuffer view(const ShapeTracker& new_st, std::optional<ViewMove> move) const;

private:
  LazyBuffer reduce_op(Op op, const Axes& axis) const;
  // multi.py's MultiLazyBuffer methods (multi.cpp)
  LazyBuffer multi_const_like(const Scalar& val, const std::optional<Shape>& shape) const;
  LazyBuffer multi_copy_to_device(const std::string& device) const;
  LazyBuffer multi_e(Op op, const std::vector<LazyBuffer>& in_srcs, const LazyArg& arg) const;
  LazyBuffer multi_r(Op op, const Axes& axis) const;
  LazyBuffer multi_reshape(const Shape& arg) const;
  LazyBuffer multi_pad(const std::vector<std::pair<int64_t, int64_t>>& arg) const;
  LazyBuffer multi_expand(const Shape& arg) const;
  LazyBuffer multi_shrink(const std::vector<std::pair<int64_t, int64_t>>& arg) const;
  LazyBuffer
  map_lbs(const std::function<LazyBuffer(const LazyBuffer&)>& f) const; // the same op on every shard
  NodeId id_ = 0;
  std::shared_ptr<const MultiData> multi_;
};

// The graph artifact for the given outputs: reachable nodes renumbered in topological order.
// With `effects`, also the states and assigns registered in the process graph.
Graph extract_graph(const std::vector<std::pair<std::string, LazyBuffer>>& outputs,
                    const std::vector<GraphInput>& inputs, bool effects = false);
// The symbolic variables bound in the process graph (Variable.bind), in binding order. Binding
// a variable again to the same value is a no-op; to another value, or with another range, is
// tinygrad's merge_dicts error (an artifact has one value per variable; a script's second
// binding of a name is another variable: bind_script_var).
const std::vector<VarBinding>& bound_vars();
void bind_var(const VarBinding& v);
void clear_bound_vars(); // a traced program's bindings end with it (trace_script)
// The value bound to a variable of the process graph; an error names an unbound one.
int64_t bound_value(const std::string& name);
// A script's Variable(name, min, max).bind(value) as a program variable: `name` itself when the
// program has no variable of that name, or has it with this range and value; else a fresh
// name_2, name_3 ... (tinygrad binds each Variable object once, and one program may hold several
// of one name: a prompt's start_pos and a decode step's). Binds it; returns its program name.
std::string bind_script_var(const std::string& name, int64_t min, int64_t max, int64_t value);
// The name a program variable has in the script (str, repr, .expr): its own unless renamed.
const std::string& script_var_name(const std::string& program_name);
// Loads an artifact's nodes (and its vars) into the process graph; returns the new id of each artifact node.
// The artifact's states and assigns are not registered (the caller maps them through the ids).
std::vector<NodeId> import_graph(const Graph& graph);

} // namespace tg
