// Graphviz writers. See dot.h.
#include "io/dot.h"

#include <unordered_map>

#include "codegen/kernel.h"
#include "shape/shapetracker.h"
#include "util/error.h"
#include "util/warn.h"

namespace tg {

namespace {

// graph.py's colours: movement ops green, reduces blue, loads yellow, the rest grey.
const char* fill_colour(Op op) {
  if (op == Op::VIEW) return "#80ff80";
  if (op == Op::ASSIGN) return "#ffc080";
  switch (op_kind(op)) {
  case OpKind::Reduce:
    return "#8080ff";
  case OpKind::Load:
  case OpKind::Buffer:
    return "#ffff80";
  default:
    return "#e0e0e0";
  }
}

// A DOT string literal: quotes and backslashes escaped, newlines as centred line breaks.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else if (static_cast<unsigned char>(c) >= 0x20)
      out += c;
  }
  return out + "\"";
}

// "BinaryOps.ADD" -> "ADD": the op's own name is enough in a picture.
std::string short_name(Op op) {
  std::string_view n = op_name(op);
  size_t dot = n.find('.');
  return std::string(dot == std::string_view::npos ? n : n.substr(dot + 1));
}

std::string type_line(const Shape& shape, DType dtype) {
  return shape_repr(shape) + " " + std::string(py_name(dtype));
}

void node_line(std::string& out, const std::string& id, const std::string& label, const char* fill,
               const char* shape = "box") {
  out += "  " + id + " [label=" + quoted(label) + ", shape=" + shape + ", style=filled, fillcolor=\"" + fill +
         "\"];\n";
}

void edge_line(std::string& out, const std::string& from, const std::string& to) {
  out += "  " + from + " -> " + to + ";\n";
}

std::string arg_line(const LazyArg& arg) {
  if (const Scalar* s = std::get_if<Scalar>(&arg)) return "\n" + s->repr();
  if (const DType* d = std::get_if<DType>(&arg)) return "\n-> " + std::string(py_name(*d));
  if (const Axes* a = std::get_if<Axes>(&arg)) return "\naxes " + shape_repr(Shape(a->begin(), a->end()));
  return "";
}

// tinygrad's name before optimizing ("r_64_8"); a CUSTOM kernel (a host-filled random buffer)
// is not lowered, so it has none.
std::string kernel_name(const ScheduleKernel& sk) {
  std::string name = !sk.name.empty()                                    ? sk.name
                     : sk.ast.size() == 1 && sk.ast[0]->op == Op::CUSTOM ? "custom"
                                                                         : Kernel(sk.ast).name();
  return sk.init ? name + " (init)" : name;
}

} // namespace

// Parts of a picture per device: the default device's at the top level, each other device's in
// a cluster of its own, in the order devices first appear.
class DeviceClusters {
public:
  std::string& part(const std::string& device) {
    if (device.empty()) return top_;
    auto [it, fresh] = index_.try_emplace(device, parts_.size());
    if (fresh) parts_.push_back({device, ""});
    return parts_[it->second].second;
  }
  std::string str() const {
    std::string out = top_;
    for (size_t i = 0; i < parts_.size(); ++i)
      out += "  subgraph cluster_device_" + std::to_string(i) + " {\n  label=" + quoted(parts_[i].first) +
             ";\n  style=dashed;\n" + parts_[i].second + "  }\n";
    return out;
  }

private:
  std::string top_;
  std::vector<std::pair<std::string, std::string>> parts_;
  std::unordered_map<std::string, size_t> index_;
};

namespace {

// Levels above `roots` (distance in source edges, capped at `depth` unless -1) of a DAG whose
// sources `srcs(i)` gives: the indices kept. Breadth first, so each keeps its shortest distance.
template <class Srcs>
std::vector<char> within_depth(size_t n, const std::vector<size_t>& roots, int depth, Srcs srcs) {
  std::vector<int> dist(n, -1);
  std::vector<size_t> frontier;
  for (size_t r : roots)
    if (dist[r] < 0) dist[r] = 0, frontier.push_back(r);
  for (size_t at = 0; at < frontier.size(); ++at) {
    size_t i = frontier[at];
    if (depth >= 0 && dist[i] >= depth) continue;
    for (size_t s : srcs(i))
      if (s < n && dist[s] < 0) dist[s] = dist[i] + 1, frontier.push_back(s);
  }
  std::vector<char> keep(n, 0);
  for (size_t i = 0; i < n; ++i) keep[i] = dist[i] >= 0;
  return keep;
}

template <class Named> std::string names_of(const std::vector<Named>& xs) {
  std::string out;
  for (const Named& x : xs) out += (out.empty() ? "" : ", ") + x.name;
  return out.empty() ? "none" : out;
}

void warn_if_large(size_t boxes, const char* what, bool schedule) {
  if (boxes <= kLargeDot) return;
  warn("--dot: the " + std::string(what) + " has " + std::to_string(boxes) +
       " boxes, which dot may take minutes to lay out; --dot-output NAME" +
       (schedule ? ", --dot-kernel K" : "") + " or --dot-depth N draws a part");
}

} // namespace

std::string graph_to_dot(const Graph& graph, const DotFilter& filter) {
  std::vector<size_t> roots; // the outputs (or the one named); without a name the states' updates too
  for (const GraphOutput& o : graph.outputs)
    if (filter.output.empty() || o.name == filter.output) roots.push_back(size_t(o.node));
  if (filter.output.empty())
    for (NodeId a : graph.assigns) roots.push_back(size_t(a));
  if (!filter.output.empty() && roots.empty())
    fail("ValueError", "--dot-output '" + filter.output +
                           "': the graph has no output of that name (it has: " + names_of(graph.outputs) +
                           ")");
  std::unordered_map<NodeId, NodeId> init_of; // a state's placeholder -> its first value
  for (const GraphState& s : graph.states) init_of[s.node] = s.init;
  std::vector<char> keep(graph.nodes.size(), 1);
  if (!filter.empty())
    keep = within_depth(graph.nodes.size(), roots, filter.depth, [&](size_t i) {
      std::vector<size_t> s(graph.nodes[i].srcs.begin(), graph.nodes[i].srcs.end());
      if (auto it = init_of.find(NodeId(i)); it != init_of.end()) s.push_back(size_t(it->second));
      return s;
    });
  else
    warn_if_large(graph.nodes.size(), "graph", false);
  std::string out =
      "digraph graph_artifact {\n  rankdir=TB;\n  node [fontname=\"monospace\", fontsize=10];\n";
  std::unordered_map<NodeId, std::string> role; // inputs, states: their names
  for (const GraphInput& in : graph.inputs) role[in.node] = "input " + in.name;
  for (const GraphState& s : graph.states) role[s.node] = "state " + s.name;
  DeviceClusters clusters;
  std::vector<char> cut(graph.nodes.size(), 0); // left out, but a kept node's source: "..."
  auto edge_from = [&](size_t s, size_t to) {
    if (!keep[s] && !cut[s]) {
      cut[s] = 1;
      clusters.part("") +=
          "  n" + std::to_string(s) + " [label=" + quoted(std::to_string(s) + ": ...") + ", style=dashed];\n";
    }
    edge_line(clusters.part(""), "n" + std::to_string(s), "n" + std::to_string(to));
  };
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (!keep[i]) continue;
    const LazyNode& n = graph.nodes[i];
    std::string label = std::to_string(i) + ": " + short_name(n.op);
    if (auto it = role.find(NodeId(i)); it != role.end()) label += " (" + it->second + ")";
    label += n.op == Op::VIEW && std::holds_alternative<Scalar>(n.arg) ? "\ndetached" : arg_line(n.arg);
    if (n.is_host_data()) label += "\n" + std::to_string(n.data.size()) + " bytes of data";
    if (n.is_device_copy()) label += "\nfrom another device";
    label += "\n" + type_line(n.shape, n.dtype);
    node_line(clusters.part(n.device), "n" + std::to_string(i), label, fill_colour(n.op));
    for (NodeId s : n.srcs) edge_from(size_t(s), i);
  }
  out += clusters.str();
  for (size_t o = 0; o < graph.outputs.size(); ++o) {
    if (!keep[size_t(graph.outputs[o].node)] ||
        (!filter.output.empty() && graph.outputs[o].name != filter.output))
      continue;
    std::string id = "out" + std::to_string(o);
    out += "  " + id + " [label=" + quoted("output " + graph.outputs[o].name) + ", shape=ellipse];\n";
    edge_line(out, "n" + std::to_string(graph.outputs[o].node), id);
  }
  for (const GraphState& s : graph.states) {
    // the state's first value flows into its placeholder
    if (!keep[size_t(s.node)] || !keep[size_t(s.init)]) continue;
    out += "  n" + std::to_string(s.init) + " -> n" + std::to_string(s.node) +
           " [style=dashed, label=\"init\"];\n";
  }
  return out + "}\n";
}

std::string schedule_to_dot(const Schedule& schedule, const DotFilter& filter) {
  const size_t nk = schedule.kernels.size();
  // Kernels in data-flow order: a kernel's sources are the latest kernels before it that wrote
  // the buffers it reads.
  std::vector<std::vector<size_t>> kernel_srcs(nk);
  std::unordered_map<int, size_t> writer;
  for (size_t k = 0; k < nk; ++k) {
    const ScheduleKernel& sk = schedule.kernels[k];
    for (size_t i = sk.ast.size(); i < sk.bufs.size(); ++i)
      if (auto it = writer.find(sk.bufs[i]); it != writer.end()) kernel_srcs[k].push_back(it->second);
    for (size_t i = 0; i < sk.ast.size() && i < sk.bufs.size(); ++i) writer[sk.bufs[i]] = k;
  }
  std::vector<size_t> roots;
  if (filter.kernel >= 0) {
    if (size_t(filter.kernel) >= nk)
      fail("ValueError", "--dot-kernel " + std::to_string(filter.kernel) + ": the schedule has " +
                             std::to_string(nk) + " kernels" +
                             (nk ? " (0 to " + std::to_string(nk - 1) + ")" : std::string()));
    roots.push_back(size_t(filter.kernel));
  }
  if (filter.kernel >= 0 && !filter.output.empty())
    fail("ValueError", "--dot-kernel and --dot-output each pick the part to draw: give one");
  bool named = false;
  int named_buffer = -1;
  auto root_at_writer = [&](int buffer) {
    if (auto it = writer.find(buffer); it != writer.end()) roots.push_back(it->second);
  };
  for (const NamedBuffer& o : schedule.outputs)
    if (filter.kernel < 0 && (filter.output.empty() || o.name == filter.output)) {
      named |= !filter.output.empty();
      if (!filter.output.empty()) named_buffer = o.buffer;
      root_at_writer(o.buffer);
    }
  if (filter.kernel < 0 && filter.output.empty()) // the states' updates are results too
    for (const NamedBuffer& s : schedule.states) root_at_writer(s.buffer);
  if (!filter.output.empty() && filter.kernel < 0 && !named)
    fail("ValueError",
         "--dot-output '" + filter.output +
             "': the schedule has no output of that name (it has: " + names_of(schedule.outputs) + ")");
  std::vector<char> keep(nk, 1);
  if (!filter.empty()) {
    // a kernel alone unless a depth asks for the kernels before it
    int depth = filter.kernel >= 0 && filter.depth < 0 ? 0 : filter.depth;
    keep = within_depth(nk, roots, depth, [&](size_t k) { return kernel_srcs[k]; });
  } else {
    warn_if_large(nk + schedule.buffers.size(), "schedule", true);
  }
  std::vector<char> buffer_used(schedule.buffers.size(), filter.empty());
  if (named_buffer >= 0 && size_t(named_buffer) < buffer_used.size()) buffer_used[size_t(named_buffer)] = 1;
  for (size_t k = 0; k < nk; ++k)
    if (keep[k])
      for (int b : schedule.kernels[k].bufs)
        if (b >= 0 && size_t(b) < buffer_used.size()) buffer_used[size_t(b)] = 1;
  std::string out = "digraph schedule_artifact {\n  rankdir=TB;\n  compound=true;\n"
                    "  node [fontname=\"monospace\", fontsize=10];\n";
  DeviceClusters clusters;
  for (const BufferInfo& b : schedule.buffers) {
    if (b.id >= 0 && size_t(b.id) < buffer_used.size() && !buffer_used[size_t(b.id)]) continue;
    static const char* kRole[] = {"input", "output", "", "constant", "state"};
    std::string label = "buf " + std::to_string(b.id);
    std::string r = kRole[int(b.role)];
    if (!r.empty()) label += " (" + r + (b.name.empty() ? "" : " " + b.name) + ")";
    label += "\n" + std::to_string(b.size) + " " + std::string(py_name(b.dtype));
    node_line(clusters.part(b.device), "b" + std::to_string(b.id), label, r.empty() ? "#ffffff" : "#ffe0a0",
              "cylinder");
  }
  std::string edges_out;
  for (size_t k = 0; k < nk; ++k) {
    if (!keep[k]) continue;
    const ScheduleKernel& sk = schedule.kernels[k];
    std::string prefix = "k" + std::to_string(k) + "_";
    std::string& out = clusters.part(sk.device);
    out += "  subgraph cluster_" + std::to_string(k) +
           " {\n  label=" + quoted("kernel " + std::to_string(k) + " " + kernel_name(sk)) +
           ";\n  style=rounded;\n";
    std::unordered_map<const LazyOp*, std::string> ids;
    std::vector<const LazyOp*> order; // discovery order: the output is the same every run
    std::vector<std::pair<std::string, std::string>> edges;
    std::vector<const LazyOp*> stack;
    for (const LazyOpPtr& root : sk.ast) stack.push_back(root.get());
    while (!stack.empty()) { // iterative: ASTs can be thousands of ops deep
      const LazyOp* op = stack.back();
      stack.pop_back();
      if (ids.count(op)) continue;
      std::string id = prefix + std::to_string(ids.size());
      ids[op] = id;
      order.push_back(op);
      std::string label = short_name(op->op);
      if (const MemBuffer* mb = std::get_if<MemBuffer>(&op->arg)) {
        label += " buf " + std::to_string(sk.bufs.at(size_t(mb->idx))) + "\n" +
                 type_line(mb->st.shape(), mb->dtype);
        std::string buf = "b" + std::to_string(sk.bufs.at(size_t(mb->idx)));
        if (op->op == Op::STORE)
          edges.push_back({id, buf});
        else
          edges.push_back({buf, id});
      } else if (const ConstBuffer* cb = std::get_if<ConstBuffer>(&op->arg)) {
        label += " " + cb->val.repr() + "\n" + type_line(cb->st.shape(), cb->dtype);
      } else if (const DType* d = std::get_if<DType>(&op->arg)) {
        label += " -> " + std::string(py_name(*d));
      } else if (const Axes* a = std::get_if<Axes>(&op->arg)) {
        label += " axes " + shape_repr(Shape(a->begin(), a->end()));
      }
      out += "  ";
      node_line(out, id, label, fill_colour(op->op));
      for (const LazyOpPtr& s : op->src) stack.push_back(s.get());
    }
    for (const LazyOp* op : order)
      for (const LazyOpPtr& s : op->src) out += "    " + ids.at(s.get()) + " -> " + ids.at(op) + ";\n";
    out += "  }\n";
    for (const auto& [from, to] : edges) edge_line(edges_out, from, to);
  }
  return out + clusters.str() + edges_out + "}\n";
}

} // namespace tg
