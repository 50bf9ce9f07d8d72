#include "schedule/schedule.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "lazy/lazybuffer.h"
#include "shape/shapetracker_hash.h"
#include "util/error.h"

namespace tg {
namespace {

// A set that remembers insertion order, as the Python dicts-used-as-sets in schedule.py do:
// the order decides kernel order, so it must be reproduced.
class OrderedSet {
public:
  bool insert(NodeId id) {
    if (!index_.emplace(id, items_.size()).second) return false;
    items_.push_back(id);
    return true;
  }
  bool contains(NodeId id) const { return index_.count(id) != 0; }
  const std::vector<NodeId>& items() const { return items_; }
  size_t size() const { return items_.size(); }

private:
  std::vector<NodeId> items_;
  std::unordered_map<NodeId, size_t> index_;
};

// _recursive_lazyop's cache: one LazyOp per (buffer, view it is read through).
struct LopKey {
  NodeId buf;
  ShapeTracker st;
  bool operator==(const LopKey&) const = default;
};
struct LopKeyHash {
  size_t operator()(const LopKey& k) const { return ShapeTrackerHash{}(k.st) * 31 + k.buf; }
};
using LopCache = std::unordered_map<LopKey, LazyOpPtr, LopKeyHash>;
using VisitSet = std::unordered_set<LopKey, LopKeyHash>;

// A group of outputs that become one kernel (_LBScheduleItem).
struct PreItem {
  std::vector<LazyOpPtr> ast;
  std::vector<NodeId> outputs, inputs;
};

class Scheduler {
public:
  // next_writer: for a buffer's version (its placeholder, or an ASSIGN into it), the ASSIGN
  // that writes the next version, from the graph's assigns in creation order.
  using NextWriter = std::unordered_map<NodeId, NodeId>;
  explicit Scheduler(std::vector<NodeId> outs, const NextWriter& next_writer = {}, bool share = true)
      : g_(lazy_graph()), outs_(std::move(outs)), next_writer_(next_writer), share_(share) {}

  // The kernels that realize the outputs, in launch order.
  std::vector<PreItem> run();

private:
  const LazyNode& n(NodeId id) const { return g_[id]; }
  NodeId base(NodeId id) const { return g_.base(id); }
  // A buffer that exists before any kernel runs: a named input or literal data.
  bool realized(NodeId id) const {
    const LazyNode& b = n(base(id));
    return b.op == Op::EMPTY || b.is_host_data();
  }
  void recurse_lb(NodeId root);
  bool padding_okay(NodeId buf);
  void recursive_group(NodeId tr, const ShapeTracker& st, NodeId r, std::unordered_set<NodeId>& group,
                       std::vector<NodeId>& group_order, VisitSet& visited);
  void pair_reduces();
  std::optional<NodeId> reconverge(NodeId tr) const;
  bool reduce_free(NodeId s) const;
  using Groups = std::vector<std::vector<NodeId>>;
  Groups output_groups();
  bool share_recomputed(const Groups& groups);
  LazyOpPtr recursive_lazyop(NodeId buf, const ShapeTracker& st, const std::vector<NodeId>& outputs,
                             std::vector<NodeId>& inputs, LopCache& cache);
  PreItem schedule_group(const std::vector<NodeId>& group);

  LazyGraph& g_;
  std::vector<NodeId> outs_;
  OrderedSet realizes_, allbufs_;
  std::unordered_set<NodeId> simple_pads_;
  std::vector<NodeId> simple_pads_order_;
  std::unordered_map<NodeId, OrderedSet> children_;
  std::unordered_map<NodeId, NodeId> reduce_for_op_;
  std::unordered_map<NodeId, bool> padding_okay_; // memo of padding_okay()
  NextWriter next_writer_;
  bool share_;
};

void Scheduler::recurse_lb(NodeId root) {
  // Explicit frames instead of recursion (graphs can be deep) that visit in the same order.
  struct Frame {
    NodeId buf;
    size_t next;
  };
  std::vector<Frame> stack{{root, 0}};
  bool entering = true;
  while (!stack.empty()) {
    Frame& f = stack.back();
    NodeId buf = f.buf;
    if (entering) {
      entering = false;
      if (allbufs_.contains(buf) || realized(buf)) {
        stack.pop_back();
        continue;
      }
      const LazyNode& node = n(buf);
      if (node.is_view()) {
        NodeId b = base(buf);
        const ShapeTracker& st = node.st;
        const View& last = st.views.back();
        int64_t base_size = prod(n(b).shape);
        // tinygrad's prod(base) < prod(view): on symbolic shapes a node comparison, true unless
        // false at every value, so a view that may expand its base realizes the base
        const bool expands = all_int(n(b).shape) && all_int(st.shape())
                                 ? base_size < prod(st.shape())
                                 : maybe_lt(sym_prod(n(b).shape), sym_prod(st.shape()));
        if (st.views.size() == 1 && last.mask) {
          sint masked = 1; // (symbolic after a pad by a variable: tinygrad's >= on a node)
          for (auto& [lo, hi] : *last.mask) masked = masked * (hi - lo);
          if (all_int(n(b).shape) && base_size >= masked.min()) {
            if (simple_pads_.insert(b).second) simple_pads_order_.push_back(b);
          } else if (expands)
            realizes_.insert(b);
        } else if (expands) {
          realizes_.insert(b);
        } else if (std::any_of(st.views.begin(), st.views.end(),
                               [](const View& v) { return bool(v.mask); })) {
          if (simple_pads_.insert(b).second) simple_pads_order_.push_back(b);
        }
        f.buf = b; // tail call: continue with the base
        entering = true;
        continue;
      }
      allbufs_.insert(buf);
      if (node.forced_realize) realizes_.insert(buf);
      if (op_kind(node.op) == OpKind::Load) realizes_.insert(buf);
      // A copy between devices reads a buffer: its source is realized on its own device.
      if (node.is_device_copy()) realizes_.insert(base(node.srcs[0]));
    }
    const LazyNode& node = n(buf);
    if (f.next < node.srcs.size()) {
      NodeId x = node.srcs[f.next++];
      children_[base(x)].insert(buf);
      stack.push_back({x, 0});
      entering = true;
      continue;
    }
    stack.pop_back();
  }
}

bool Scheduler::padding_okay(NodeId buf) {
  // Memoized: the walk is over a DAG, and reconverging paths (threefry's rounds) would make
  // the plain recursion of schedule.py exponential.
  if (auto it = padding_okay_.find(buf); it != padding_okay_.end()) return it->second;
  bool ok = true;
  if (realizes_.contains(buf) || realized(buf))
    ok = true;
  else if (is_unsafe_pad_op(n(buf).op))
    ok = false;
  else
    for (NodeId x : n(buf).srcs)
      if (!padding_okay(base(x))) {
        ok = false;
        break;
      }
  padding_okay_[buf] = ok;
  return ok;
}

void Scheduler::recursive_group(NodeId tr, const ShapeTracker& st, NodeId r,
                                std::unordered_set<NodeId>& group, std::vector<NodeId>& order,
                                VisitSet& visited) {
  auto add = [&](NodeId x) {
    if (group.insert(x).second) order.push_back(x);
  };
  // Reaching the same buffer through the same view again adds nothing new; skipping it keeps
  // the walk linear on DAGs with reconverging paths (threefry), where schedule.py's is not.
  if (!visited.insert(LopKey{tr, st}).second) return;
  if (realizes_.contains(tr)) {
    if (!st.contiguous() || st.size() != n(r).st.size() || reduce_for_op_.count(tr)) add(r);
    add(tr);
    return;
  }
  auto it = children_.find(tr);
  if (it == children_.end()) return;
  for (NodeId next : it->second.items()) {
    if (realized(next)) continue;
    if (is_reduce(n(next).op)) return add(r);
    std::vector<NodeId> st_childs;
    for (NodeId s : n(next).srcs)
      if (base(s) == tr && std::find(st_childs.begin(), st_childs.end(), s) == st_childs.end())
        st_childs.push_back(s);
    if (st_childs.size() > 1) return add(r);
    recursive_group(next, st + n(st_childs[0]).st, r, group, order, visited);
  }
}

void Scheduler::pair_reduces() {
  for (NodeId r : allbufs_.items()) {
    if (!is_reduce(n(r).op) || realizes_.contains(r)) continue;
    std::unordered_set<NodeId> group;
    std::vector<NodeId> order;
    VisitSet visited;
    recursive_group(r, n(r).st, r, group, order, visited);
    bool can_chase =
        std::none_of(order.begin(), order.end(), [&](NodeId tr) { return reduce_for_op_.count(tr); });
    bool forced = group.count(r) != 0;
    if (!forced && group.size() > 1) {
      // Both walks remember what they saw: revisiting a node can't change their answer, and
      // without it they are exponential on reconverging DAGs.
      std::deque<NodeId> parents(order.begin(), order.end()), kids(order.begin(), order.end());
      std::unordered_set<NodeId> seen_parent, seen_kid;
      while (!parents.empty() && !forced) {
        NodeId p = parents.back();
        parents.pop_back();
        if (!seen_parent.insert(p).second) continue;
        if (is_reduce(n(p).op))
          forced = true;
        else
          for (NodeId x : n(p).srcs)
            if (!realized(x) && base(x) != r) parents.push_back(base(x));
      }
      std::vector<NodeId> descendants;
      std::unordered_set<NodeId> seen_desc;
      while (!kids.empty() && !forced) {
        NodeId c = kids.back();
        kids.pop_back();
        if (!seen_kid.insert(c).second) continue;
        const LazyNode& cn = n(c);
        if (is_reduce(cn.op) || !cn.st.contiguous() || cn.st.size() != n(r).st.size() ||
            reduce_for_op_.count(c)) {
          descendants.clear();
          break;
        }
        if (realizes_.contains(c) && !group.count(c) && seen_desc.insert(c).second) descendants.push_back(c);
        if (auto it = children_.find(c); it != children_.end())
          for (NodeId x : it->second.items())
            if (!realized(x) && n(x).device == n(r).device) kids.push_back(x);
      }
      for (NodeId d : descendants)
        if (group.insert(d).second) order.push_back(d);
    }
    // A kernel that writes a buffer may read no other buffer that an assign writes next: that
    // write is another kernel's, and this one must run before it (schedule.py's assign_targets).
    if (!forced && std::any_of(order.begin(), order.end(), [&](NodeId x) { return n(x).op == Op::ASSIGN; })) {
      // Nor may one kernel write two versions of a buffer: a reduce shared by two steps of a
      // program (hash-consing makes a gradient that no state feeds one node) would group
      // both steps' assigns.
      std::unordered_set<NodeId> written;
      for (NodeId x : order)
        if (n(x).op == Op::ASSIGN && !written.insert(g_.storage(x)).second) forced = true, can_chase = false;
      std::vector<NodeId> parents{r};
      parents.insert(parents.end(), order.begin(), order.end());
      std::unordered_set<NodeId> seen;
      while (!parents.empty() && !forced) {
        NodeId p = base(parents.back());
        parents.pop_back();
        if (!seen.insert(p).second) continue;
        if (realized(p) || realizes_.contains(p)) {
          if (auto at = next_writer_.find(p); at != next_writer_.end() && !group.count(at->second))
            forced = true, can_chase = false;
          continue;
        }
        parents.insert(parents.end(), n(p).srcs.begin(), n(p).srcs.end());
      }
    }
    if (forced) {
      NodeId tr = r;
      if (can_chase) {
        ShapeTracker st = n(tr).st;
        for (;;) {
          auto it = children_.find(tr);
          if (it == children_.end()) break;
          std::optional<NodeId> joined;
          if (it->second.size() != 1) {
            if (!share_ || !(joined = reconverge(tr))) break;
            tr = *joined, st = n(tr).st; // read whole, as the paths there read tr
            continue;
          }
          NodeId next = it->second.items()[0];
          std::vector<NodeId> st_childs;
          for (NodeId s : n(next).srcs)
            if (base(s) == tr && std::find(st_childs.begin(), st_childs.end(), s) == st_childs.end())
              st_childs.push_back(s);
          if (st_childs.size() > 1) {
            if (!share_ || !(joined = reconverge(tr))) break;
            tr = *joined, st = n(tr).st;
            continue;
          }
          if (st.size() != n(st_childs[0]).st.size()) break;
          st = st + n(st_childs[0]).st;
          if (!st.contiguous() || is_reduce(n(next).op)) break;
          tr = next;
        }
        const LazyNode& tn = n(tr);
        if (tn.op == Op::CAST && itemsize(std::get<DType>(tn.arg)) > itemsize(n(tn.srcs[0]).dtype))
          tr = base(tn.srcs[0]);
        reduce_for_op_[tr] = r;
      }
      realizes_.insert(tr);
    } else {
      for (NodeId tr : order) reduce_for_op_[tr] = r;
    }
  }
}

LazyOpPtr Scheduler::recursive_lazyop(NodeId buf, const ShapeTracker& st_in,
                                      const std::vector<NodeId>& outputs, std::vector<NodeId>& inputs,
                                      LopCache& cache) {
  LopKey key{buf, st_in};
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  ShapeTracker st = st_in;
  if (n(buf).is_view()) {
    st = n(buf).st + st;
    buf = base(buf);
  }
  const LazyNode& node = n(buf);
  if (node.op == Op::LOAD_CONST)
    return LazyOp::make(Op::CONST, {}, ConstBuffer{std::get<Scalar>(node.arg), node.dtype, st.simplify()});
  bool is_output = std::find(outputs.begin(), outputs.end(), buf) != outputs.end();
  if (realized(buf) || (realizes_.contains(buf) && !is_output)) {
    // The kernel that assigns a buffer reads it in place, through its output (schedule.py).
    if (auto at = next_writer_.find(buf); at != next_writer_.end()) {
      auto out = std::find(outputs.begin(), outputs.end(), at->second);
      if (out != outputs.end()) {
        ShapeTracker simple = st.simplify();
        bool ok = simple.contiguous();
        if (!ok && simple.views.size() == 1 && simple.views[0].mask) {
          const auto& mask = *simple.views[0].mask;
          ok = ShapeTracker::from_shape(simple.shape()).shrink_symbolic(mask) == simple.shrink_symbolic(mask);
        }
        check(ok, "RuntimeError",
              "self operand of augmented assign must be contiguous. help: consider using .contiguous(): "
              "a += a.T -> a += a.T.contiguous()");
        return LazyOp::make(Op::LOAD, {}, MemBuffer{int(out - outputs.begin()), node.dtype, simple});
      }
    }
    auto it = std::find(inputs.begin(), inputs.end(), buf);
    if (it == inputs.end()) it = inputs.insert(inputs.end(), buf);
    int idx = int(outputs.size() + (it - inputs.begin()));
    return LazyOp::make(Op::LOAD, {}, MemBuffer{idx, node.dtype, st.simplify()});
  }
  if (node.op == Op::CONTIGUOUS || node.op == Op::ASSIGN)
    return recursive_lazyop(node.srcs[0], st, outputs, inputs, cache);
  if (is_reduce(node.op)) st = ShapeTracker::from_shape(n(node.srcs[0]).shape);
  std::vector<LazyOpPtr> srcs;
  for (NodeId s : node.srcs) srcs.push_back(recursive_lazyop(s, st, outputs, inputs, cache));
  LazyOpArg arg;
  if (auto* d = std::get_if<DType>(&node.arg))
    arg = *d;
  else if (auto* a = std::get_if<Axes>(&node.arg))
    arg = *a;
  LazyOpPtr ret = LazyOp::make(node.op, std::move(srcs), std::move(arg));
  cache[key] = ret;
  return ret;
}

PreItem Scheduler::schedule_group(const std::vector<NodeId>& group) {
  PreItem item;
  item.outputs = group;
  const LazyNode& first = n(group[0]);
  if (first.is_device_copy()) {
    // schedule.py's COPY item: the source buffer's elements into this device's buffer, as a
    // kernel of the destination device (a plain load and store, so every device runs it).
    check(group.size() == 1, "RuntimeError", "can't schedule a group of LoadOps.COPY");
    NodeId src = base(first.srcs[0]);
    item.inputs.push_back(src);
    ShapeTracker st = ShapeTracker::from_shape({sym_prod(first.shape)});
    LazyOpPtr load = LazyOp::make(Op::LOAD, {}, MemBuffer{1, n(src).dtype, st});
    item.ast.push_back(LazyOp::make(Op::STORE, {load}, MemBuffer{0, first.dtype, st}));
    return item;
  }
  if (first.op == Op::CUSTOM) {
    // tinygrad's custom_random: no kernel source, the runtime fills the buffer. The AST is the
    // CUSTOM op alone, its seed (absolute, or an offset from the seed buffer it reads) a
    // ConstBuffer over the output's shape.
    check(group.size() == 1, "RuntimeError", "can't schedule a group of LoadOps.CUSTOM");
    for (NodeId s : first.srcs) {
      check(realized(s) || realizes_.contains(base(s)), "RuntimeError",
            "a random buffer's seed must be a buffer");
      item.inputs.push_back(base(s));
    }
    item.ast.push_back(LazyOp::make(
        Op::CUSTOM, {},
        ConstBuffer{std::get<Scalar>(first.arg), first.dtype, ShapeTracker::from_shape(first.shape)}));
    return item;
  }
  for (size_t i = 0; i < group.size(); ++i) {
    NodeId out = group[i];
    auto rit = reduce_for_op_.find(out);
    // An ASSIGN into part of its buffer stores its value through that view.
    const ShapeTracker* part = n(out).op == Op::ASSIGN ? std::get_if<ShapeTracker>(&n(out).arg) : nullptr;
    ShapeTracker output_st = ShapeTracker::from_shape(part                          ? part->shape()
                                                      : rit != reduce_for_op_.end() ? n(rit->second).shape
                                                                                    : n(out).shape);
    LopCache cache;
    LazyOpPtr lop = recursive_lazyop(out, output_st, group, item.inputs, cache);
    ShapeTracker store_st = part ? part->simplify() : output_st.simplify();
    item.ast.push_back(LazyOp::make(Op::STORE, {lop}, MemBuffer{int(i), n(out).dtype, store_st}));
  }
  return item;
}

// Output groups, in realizes order (MULTIOUTPUT=1: a reduce's group is one kernel).
Scheduler::Groups Scheduler::output_groups() {
  Groups groups;
  std::unordered_map<NodeId, size_t> group_of_key;
  for (NodeId buf : realizes_.items()) {
    if (realized(buf) || n(buf).op == Op::LOAD_CONST) continue;
    auto rit = reduce_for_op_.find(buf);
    NodeId key = rit != reduce_for_op_.end() ? rit->second : buf;
    auto [it, fresh] = group_of_key.emplace(key, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(buf);
  }
  return groups;
}

// tg's departure from schedule.py's chase (ScheduleOptions::share): there, a realized reduce's
// kernel also computes the elementwise ops after it while each has one consumer, and stops at a
// value read twice — the x of a swish x * sigmoid(x) or of a GELU after a convolution or matmul.
// Every kernel that reads the result then computes the sigmoid again (an MBConv block: its
// squeeze and its excite each took as long as the depthwise convolution), and a matmul that
// reads it computes it once per tile. Where every path from that value meets again within at
// most kJoinNodes elementwise nodes of its size and dtype, reading nothing that holds a reduce
// of its own, the reduce's kernel writes the value where they meet instead: the same number of
// kernels, the same bytes written, each value computed once (a value stored is the value read).
constexpr int kJoinNodes = 32;

// Whether the value s, as a kernel would inline it, holds no reduce (a bounded look).
bool Scheduler::reduce_free(NodeId s) const {
  std::vector<NodeId> stack{base(s)};
  std::unordered_set<NodeId> seen;
  while (!stack.empty()) {
    NodeId x = stack.back();
    stack.pop_back();
    if (realized(x) || realizes_.contains(x) || n(x).op == Op::LOAD_CONST || !seen.insert(x).second) continue;
    if (!is_elementwise(n(x).op) || int(seen.size()) > kJoinNodes) return false;
    for (NodeId y : n(x).srcs) stack.push_back(base(y));
  }
  return true;
}

// The node where every path from tr's value meets again (see above), or nullopt.
std::optional<NodeId> Scheduler::reconverge(NodeId tr) const {
  const LazyNode& t = n(tr);
  std::vector<NodeId> region{tr};
  std::unordered_set<NodeId> in_region{tr};
  auto absorbable = [&](NodeId c) {
    const LazyNode& cn = n(c);
    if (!is_elementwise(cn.op) || cn.st.size() != t.st.size() || cn.dtype != t.dtype ||
        cn.device != t.device || realized(c) || realizes_.contains(c) || reduce_for_op_.count(c))
      return false;
    for (NodeId s : cn.srcs) {
      if (in_region.count(base(s))) {
        if (!n(s).st.contiguous() || n(s).st.size() != t.st.size()) return false;
      } else if (!reduce_free(s)) {
        return false;
      }
    }
    return true;
  };
  while (int(region.size()) <= kJoinNodes) {
    // the region's nodes read from outside it; one alone (not tr) is where the paths meet
    std::vector<NodeId> exits;
    NodeId next = tr;
    for (NodeId x : region) {
      auto it = children_.find(x);
      if (it == children_.end()) return std::nullopt;
      bool exit = false;
      for (NodeId c : it->second.items())
        if (!in_region.count(c)) {
          exit = true;
          if (next == tr && absorbable(c)) next = c;
        }
      if (exit) exits.push_back(x);
    }
    if (exits.size() == 1 && exits[0] != tr) return exits[0];
    if (next == tr) return std::nullopt;
    region.push_back(next);
    in_region.insert(next);
  }
  return std::nullopt;
}

// tg's other departure from schedule.py's fusion (ScheduleOptions::share): there, an elementwise
// value that several kernels read is computed again inside each of them. In a recurrence that
// is quadratic: an LSTM's cell state c_t = f*c_{t-1} + i*g is inlined, with c_1 .. c_{t-1}, into
// the kernel of every h_t (a bidirectional LSTM over 32 steps: kernels of up to 60 inputs, 1 ms
// of the model's 2.5 ms, and 16 times the arithmetic). A float32 elementwise value inlined by at
// least kShareUses kernels, over at least kShareNodes elementwise nodes of its own (none a
// reduce), is realized once instead; values are stored and read back as float32, so results do
// not change. tinygrad's graphs of a few ops stay fused as it fuses them.
constexpr int kShareUses = 3, kShareNodes = 16;

bool Scheduler::share_recomputed(const Groups& groups) {
  auto leaf = [&](NodeId b, const std::unordered_set<NodeId>& outputs) {
    return realized(b) || n(b).op == Op::LOAD_CONST || (realizes_.contains(b) && !outputs.count(b));
  };
  // how many kernels inline each node, and the nodes in an order where sources come first
  std::unordered_map<NodeId, int> uses;
  std::vector<NodeId> order;
  std::unordered_set<NodeId> ordered;
  for (const auto& group : groups) {
    std::unordered_set<NodeId> outputs(group.begin(), group.end()), seen;
    std::vector<std::pair<NodeId, size_t>> stack;
    for (NodeId o : group) stack.push_back({o, 0});
    while (!stack.empty()) {
      auto& [b, next] = stack.back();
      const LazyNode& node = n(b);
      if (next < node.srcs.size()) {
        NodeId s = base(node.srcs[next++]);
        if (!leaf(s, outputs) && seen.insert(s).second) {
          ++uses[s];
          stack.push_back({s, 0});
        }
        continue;
      }
      if (!outputs.count(b) && ordered.insert(b).second) order.push_back(b);
      stack.pop_back();
    }
  }
  // nodes with something other than elementwise ops among their fused sources (a reduce that
  // pair_reduces put in a consumer's kernel): left as they are
  const std::unordered_set<NodeId> none;
  std::unordered_set<NodeId> mixed;
  for (NodeId b : order)
    for (NodeId s : n(b).srcs)
      if (s = base(s); !leaf(s, none) && (!is_elementwise(n(s).op) || mixed.count(s))) mixed.insert(b);
  // a node's own fused nodes (counted up to kShareNodes), the values chosen so far being read
  bool added = false;
  for (NodeId b : order) {
    const LazyNode& node = n(b);
    if (uses[b] < kShareUses || !is_elementwise(node.op) || node.dtype != DType::Float32 || mixed.count(b))
      continue;
    std::unordered_set<NodeId> seen{b};
    std::vector<NodeId> stack{b};
    while (!stack.empty() && int(seen.size()) < kShareNodes) {
      NodeId x = stack.back();
      stack.pop_back();
      for (NodeId s : n(x).srcs)
        if (s = base(s); !leaf(s, none) && seen.insert(s).second) stack.push_back(s);
    }
    if (int(seen.size()) >= kShareNodes) {
      realizes_.insert(b);
      added = true;
    }
  }
  return added;
}

std::vector<PreItem> Scheduler::run() {
  for (NodeId o : outs_)
    if (!realized(o)) realizes_.insert(base(o));
  for (NodeId o : outs_) recurse_lb(base(o));
  for (NodeId p : simple_pads_order_)
    if (!padding_okay(p)) {
      realizes_.insert(p);
      padding_okay_.clear(); // a new realize point changes answers that went through it
    }
  pair_reduces();

  Groups groups = output_groups();
  if (share_ && share_recomputed(groups)) groups = output_groups();
  std::vector<PreItem> pre;
  std::unordered_map<NodeId, size_t> target_of;
  for (auto& grp : groups) {
    pre.push_back(schedule_group(grp));
    for (NodeId o : pre.back().outputs) target_of[o] = pre.size() - 1;
  }

  // Kernels in breadth-first dependency order: after the kernels they read, and before the
  // kernel that writes the next version of a buffer they read (they must see this one); the
  // versions of a buffer are written in order.
  std::vector<std::vector<size_t>> edges(pre.size());
  std::vector<int> in_degree(pre.size(), 0);
  auto edge = [&](size_t from, size_t to) {
    if (from == to || std::find(edges[from].begin(), edges[from].end(), to) != edges[from].end()) return;
    edges[from].push_back(to);
    ++in_degree[to];
  };
  for (size_t k = 0; k < pre.size(); ++k)
    for (NodeId x : pre[k].inputs) {
      if (auto it = target_of.find(x); it != target_of.end()) edge(it->second, k);
      if (auto at = next_writer_.find(x); at != next_writer_.end())
        if (auto it = target_of.find(at->second); it != target_of.end()) edge(k, it->second);
    }
  for (const auto& [version, writer] : next_writer_)
    if (auto a = target_of.find(version), b = target_of.find(writer);
        a != target_of.end() && b != target_of.end())
      edge(a->second, b->second);
  std::deque<size_t> queue;
  for (size_t k = 0; k < pre.size(); ++k)
    if (in_degree[k] == 0) queue.push_back(k);
  std::vector<size_t> order;
  while (!queue.empty()) {
    size_t k = queue.front();
    queue.pop_front();
    order.push_back(k);
    for (size_t c : edges[k])
      if (--in_degree[c] == 0) queue.push_back(c);
  }
  check(order.size() == pre.size(), "RuntimeError", "cycle detected in graph");
  std::vector<PreItem> ordered;
  for (size_t k : order) ordered.push_back(std::move(pre[k]));
  return ordered;
}

// The buffer table being built: one buffer per realized base a kernel touches. Inputs, states
// and constants are shared by every phase; anything a kernel computes belongs to its phase
// (init kernels do not run when states are loaded, so the step may not read their results).
class BufferTable {
public:
  explicit BufferTable(Schedule& s) : s_(s) {}
  using Local = std::unordered_map<NodeId, int>;

  int get(NodeId b, Local& local) {
    const LazyGraph& g = lazy_graph();
    b = g.storage(b); // an ASSIGN writes its target in place
    const LazyNode& node = g[b];
    bool shared = node.op == Op::EMPTY || node.is_host_data();
    Local& map = shared ? shared_ : local;
    if (auto it = map.find(b); it != map.end()) return it->second;
    BufferInfo info{int(s_.buffers.size()), node.dtype, prod(node.shape), BufferRole::Intermediate, "", {}};
    info.device = node.device;
    if (node.is_input() || node.is_state()) {
      info.role = node.is_state() ? BufferRole::State : BufferRole::Input;
      info.name = node.name;
    } else if (node.is_host_data()) {
      info.role = BufferRole::Constant;
      info.data = node.data;
      if (!node.name.empty()) {
        info.name = node.name;
        for (const sint& d : node.shape) info.dims.push_back(int64_t(d));
      }
    }
    s_.buffers.push_back(info);
    map[b] = info.id;
    return info.id;
  }
  void add_kernels(std::vector<PreItem>& items, Local& local, bool init) {
    for (PreItem& item : items) {
      ScheduleKernel kernel;
      kernel.ast = std::move(item.ast);
      kernel.init = init;
      for (NodeId o : item.outputs) kernel.bufs.push_back(get(o, local));
      for (NodeId x : item.inputs) kernel.bufs.push_back(get(x, local));
      kernel.device = s_.buffers[size_t(kernel.bufs[0])].device;
      s_.kernels.push_back(std::move(kernel));
    }
  }

private:
  Schedule& s_;
  Local shared_;
};

} // namespace

Schedule schedule_graph(const Graph& graph, const ScheduleOptions& options) {
  LazyGraph scratch; // a graph of its own: nothing of this call stays in the caller's
  GraphScope scope(scratch);
  std::vector<NodeId> ids = import_graph(graph);
  const LazyGraph& g = lazy_graph();
  Schedule s;
  s.vars = graph.vars;
  BufferTable table(s);
  BufferTable::Local none;
  for (const GraphInput& in : graph.inputs) {
    NodeId b = ids[in.node];
    s.inputs.push_back({in.name, table.get(b, none), g[b].shape, g[b].dtype});
  }

  // Init phase, one state at a time in creation order (a state's first value may read an
  // earlier state), each computed straight into the state's buffer.
  for (const GraphState& st : graph.states) {
    NodeId node = ids[st.node];
    int buf = table.get(node, none);
    s.states.push_back({st.name, buf, g[node].shape, g[node].dtype});
    LazyBuffer init = LazyBuffer(ids[st.init]).contiguous();
    if (init.is_unrealized_const() && init.size() == 0) continue; // nothing to compute
    // Data that exists already (an input, a constant) is copied by a kernel of its own.
    if (init.is_realized()) init = LazyBuffer(ids[st.init]).e(Op::CONTIGUOUS);
    std::vector<PreItem> items = Scheduler({init.id()}, {}, options.share).run();
    BufferTable::Local local{{init.base().id(), buf}};
    table.add_kernels(items, local, true);
  }

  // The step: the outputs, read back as Tensor.numpy() does (made contiguous first), and the
  // assigns.
  Scheduler::NextWriter next_writer;
  std::unordered_map<NodeId, NodeId> last_version; // buffer -> its latest version so far
  for (NodeId a : graph.assigns) {
    NodeId target = g.storage(ids[a]);
    auto [it, fresh] = last_version.emplace(target, target);
    next_writer[it->second] = ids[a];
    it->second = ids[a];
  }
  std::vector<NodeId> outs;
  for (const GraphOutput& o : graph.outputs) {
    LazyBuffer out = LazyBuffer(ids[o.node]).contiguous();
    // An output of a version that a later assign overwrites needs a copy made before it.
    if (next_writer.count(out.base().id())) out = LazyBuffer(ids[o.node]).e(Op::CONTIGUOUS);
    outs.push_back(out.id());
  }
  for (NodeId a : graph.assigns) outs.push_back(ids[a]);
  std::vector<PreItem> items = Scheduler(outs, next_writer, options.share).run();
  BufferTable::Local local;
  table.add_kernels(items, local, false);
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    NodeId o = outs[i];
    const LazyNode& node = g[o];
    int buf;
    if (g[g.base(o)].op == Op::LOAD_CONST) {
      // Only an empty tensor stays a constant after contiguous(): it needs memory, no kernel.
      check(prod(node.shape) == 0, "RuntimeError", "output '" + graph.outputs[i].name + "' was not realized");
      buf = int(s.buffers.size());
      s.buffers.push_back({buf, node.dtype, 0, BufferRole::Intermediate, "", {}});
    } else {
      buf = table.get(g.base(o), local);
    }
    if (s.buffers[buf].role == BufferRole::Intermediate) {
      s.buffers[buf].role = BufferRole::Output;
      s.buffers[buf].name = graph.outputs[i].name;
    }
    s.outputs.push_back({graph.outputs[i].name, buf, node.shape, node.dtype});
  }
  return s;
}

} // namespace tg
