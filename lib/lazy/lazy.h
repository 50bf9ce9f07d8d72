// lazy layer: tinygrad 0.9.1's LazyBuffer graph. Nodes live in one arena (LazyGraph) and are
// hash-consed: building the same op on the same sources twice yields the same id. A node is a
// base (an op over sources) or a VIEW of a base through a ShapeTracker, as in lazy.py.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <typeindex>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "ops/ops.h"
#include "util/blob.h"

namespace tg {

using NodeId = uint32_t;
// A movement op as the program applied it (tinygrad's MovementOps; pad and shrink args are
// flattened pairs). VIEW nodes keep theirs so tg-grad can take each one's adjoint (pad <->
// shrink, expand -> sum, ...), as function.py does, instead of scattering through the merged
// ShapeTracker.
enum class MoveOp : uint8_t { Reshape, Expand, Permute, Pad, Shrink, Stride };
struct ViewMove {
  MoveOp op;
  Shape arg; // dims (reshape, expand; may be symbolic), axes, or flattened (begin, end) pairs
  bool operator==(const ViewMove&) const = default;
};

// arg of a lazy node: nothing, a constant (LOAD_CONST), a dtype (CAST/BITCAST), reduce axes, or
// the view of its buffer an ASSIGN writes when it writes only part of it (setitem).
using LazyArg = std::variant<std::monostate, Scalar, DType, Axes, ShapeTracker>;

struct LazyNode {
  Op op;
  DType dtype;
  Shape shape;
  std::vector<NodeId> srcs;
  LazyArg arg;
  ShapeTracker st;  // the node's view: contiguous for a base; for VIEW, how it sees srcs[0]
  std::string name; // EMPTY placeholders: the input's name; host data: its safetensors key, if any
  Blob data;        // COPY from host: literal contents (Tensor from a list or bytes), shared
  // The device the node's buffer lives on, as tinygrad canonicalises it ("CLANG:1"); empty for
  // the program's default device (the one tg-codegen --device names). A VIEW has its base's.
  // Part of the identity: the same op on two devices is two buffers.
  std::string device{};
  // VIEW: the movement ops that made it from its base, in order, when known (replaying them
  // on the base's shape gives `st`). Not part of the node's identity: any history that gives
  // the same view has the same adjoint.
  std::vector<ViewMove> moves{};
  // Set by contiguous() on an already contiguous base: the scheduler must realize it. Not part
  // of the node's identity.
  bool forced_realize = false;
  // Derived, not part of the identity: the value depends on the step's data — an input or an
  // ASSIGN (a state's later version) — rather than only on constants and states' first values.
  bool step = false;
  bool is_view() const { return op == Op::VIEW; }
  // Named placeholders: an input (bound by tg-run --in; no arg) or a state (LazyBuffer::state;
  // a serial number as arg).
  bool is_input() const {
    return op == Op::EMPTY && !name.empty() && std::holds_alternative<std::monostate>(arg);
  }
  bool is_state() const { return op == Op::EMPTY && !name.empty() && std::holds_alternative<Scalar>(arg); }
  // COPY has two forms: literal data from the host (no sources), and a copy of its one
  // source's buffer from another device (lazy.py's _copy), which a kernel performs.
  bool is_host_data() const { return op == Op::COPY && srcs.empty(); }
  bool is_device_copy() const { return op == Op::COPY && srcs.size() == 1; }
};

struct GraphInput {
  std::string name;
  NodeId node;
  bool requires_grad = false;
};
struct GraphOutput {
  std::string name;
  NodeId node;
};
// A buffer that outlives one run of the program (Tensor.realize() in a script): `node` is its
// named EMPTY placeholder, which the program reads; `init` computes its first value. tg-run
// runs the init kernels unless it loads the states from a file, and ASSIGNs write into them.
struct GraphState {
  std::string name;
  NodeId node;
  NodeId init;
};

class LazyGraph {
public:
  NodeId add(LazyNode node); // returns the existing id for a structurally equal node
  const LazyNode& operator[](NodeId id) const { return nodes_[id]; }
  size_t size() const { return nodes_.size(); }
  const std::deque<LazyNode>& nodes() const { return nodes_; }

  NodeId base(NodeId id) const { return nodes_[id].is_view() ? nodes_[id].srcs[0] : id; }
  // The buffer holding a node's value: an ASSIGN writes its target's placeholder in place;
  // anything else is its base.
  NodeId storage(NodeId id) const {
    NodeId b = base(id);
    return nodes_[b].op == Op::ASSIGN ? nodes_[b].srcs[1] : b;
  }
  void force_realize(NodeId id) { nodes_[id].forced_realize = true; }
  // A random draw (CUSTOM) gets its seed when tinygrad would realize it, after the node exists:
  // the one arg set late. The node stays interned under its pending arg, which is unique.
  void set_draw_seed(NodeId id, int64_t seed) { nodes_[id].arg = Scalar::of_int(seed); }
  // A pending constant (a THREEFRY draw's counter, tensor_random.cpp) gets its value at its
  // realize point: until then a unique placeholder name keeps it apart from every other node.
  void resolve_host_data(NodeId id, Blob data) {
    nodes_[id].data = std::move(data);
    nodes_[id].name.clear();
  }

  // lazy.py's contiguous_child: base -> (its contiguous copy, the view that maps back), so later
  // ops on the base read the copy instead of recomputing it.
  std::unordered_map<NodeId, std::pair<NodeId, ShapeTracker>> contiguous_child;

  // Effects a trace must carry though no output reaches them, in creation order: the state
  // buffers and the ASSIGN nodes that update them (realized at the end of the program).
  const std::vector<GraphState>& states() const { return states_; }
  const std::vector<NodeId>& assigns() const { return assigns_; }
  bool has_state(const std::string& name) const { return state_names_.count(name) != 0; }
  void add_state(GraphState s);
  void add_assign(NodeId a); // once: hash-consing may hand back an ASSIGN already made
  void clear_effects();
  // The newest version of a state buffer (its placeholder, or the last ASSIGN into it).
  NodeId latest_version(NodeId target) const {
    auto it = latest_.find(target);
    return it == latest_.end() ? target : it->second;
  }
  // Numbers no earlier call on this graph returned: they keep nodes that must stay distinct
  // (each Tensor.empty(), each state) from being hash-consed together.
  int64_t next_empty_serial() { return ++empty_serial_; }
  int64_t next_state_serial() { return ++state_serial_; }
  // What a layer above keeps per graph, made on first use: the tensor layer's random draws
  // name nodes of this graph, so their bookkeeping lives and dies with it.
  template <class T> T& extension() {
    std::shared_ptr<void>& slot = extensions_[std::type_index(typeid(T))];
    if (!slot) slot = std::make_shared<T>();
    return *static_cast<T*>(slot.get());
  }

private:
  // A deque: references to nodes (shape(), st()) stay valid while the graph grows.
  std::deque<LazyNode> nodes_;
  std::unordered_multimap<uint64_t, NodeId> intern_;
  std::vector<GraphState> states_;
  std::unordered_set<std::string> state_names_;
  std::vector<NodeId> assigns_;
  std::unordered_set<NodeId> assign_set_;
  std::unordered_map<NodeId, NodeId> latest_; // state placeholder -> its newest ASSIGN
  int64_t empty_serial_ = 0, state_serial_ = 0;
  std::unordered_map<std::type_index, std::shared_ptr<void>> extensions_;
};

// The graph artifact (tg-trace's output): the nodes reachable from the outputs, in
// topological order, plus the named inputs and outputs.
struct Graph {
  std::vector<LazyNode> nodes;
  std::vector<GraphInput> inputs;
  std::vector<GraphOutput> outputs;
  std::vector<GraphState> states;
  std::vector<NodeId> assigns;  // ASSIGN nodes, realized after the outputs' kernels need them
  std::vector<VarBinding> vars; // the symbolic variables its shapes use, with their bound values
};

} // namespace tg
