// Graphviz writers. See dot.h.
#include "io/dot.h"

#include <unordered_map>

#include "codegen/kernel.h"
#include "shape/shapetracker.h"

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

std::string graph_to_dot(const Graph& graph) {
  std::string out =
      "digraph graph_artifact {\n  rankdir=TB;\n  node [fontname=\"monospace\", fontsize=10];\n";
  std::unordered_map<NodeId, std::string> role; // inputs, states: their names
  for (const GraphInput& in : graph.inputs) role[in.node] = "input " + in.name;
  for (const GraphState& s : graph.states) role[s.node] = "state " + s.name;
  DeviceClusters clusters;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const LazyNode& n = graph.nodes[i];
    std::string label = std::to_string(i) + ": " + short_name(n.op);
    if (auto it = role.find(NodeId(i)); it != role.end()) label += " (" + it->second + ")";
    label += n.op == Op::VIEW && std::holds_alternative<Scalar>(n.arg) ? "\ndetached" : arg_line(n.arg);
    if (n.is_host_data()) label += "\n" + std::to_string(n.data.size()) + " bytes of data";
    if (n.is_device_copy()) label += "\nfrom another device";
    label += "\n" + type_line(n.shape, n.dtype);
    node_line(clusters.part(n.device), "n" + std::to_string(i), label, fill_colour(n.op));
    for (NodeId s : n.srcs) edge_line(clusters.part(""), "n" + std::to_string(s), "n" + std::to_string(i));
  }
  out += clusters.str();
  for (size_t o = 0; o < graph.outputs.size(); ++o) {
    std::string id = "out" + std::to_string(o);
    out += "  " + id + " [label=" + quoted("output " + graph.outputs[o].name) + ", shape=ellipse];\n";
    edge_line(out, "n" + std::to_string(graph.outputs[o].node), id);
  }
  for (const GraphState& s : graph.states) {
    // the state's first value flows into its placeholder
    out += "  n" + std::to_string(s.init) + " -> n" + std::to_string(s.node) +
           " [style=dashed, label=\"init\"];\n";
  }
  return out + "}\n";
}

std::string schedule_to_dot(const Schedule& schedule) {
  std::string out = "digraph schedule_artifact {\n  rankdir=TB;\n  compound=true;\n"
                    "  node [fontname=\"monospace\", fontsize=10];\n";
  DeviceClusters clusters;
  for (const BufferInfo& b : schedule.buffers) {
    static const char* kRole[] = {"input", "output", "", "constant", "state"};
    std::string label = "buf " + std::to_string(b.id);
    std::string r = kRole[int(b.role)];
    if (!r.empty()) label += " (" + r + (b.name.empty() ? "" : " " + b.name) + ")";
    label += "\n" + std::to_string(b.size) + " " + std::string(py_name(b.dtype));
    node_line(clusters.part(b.device), "b" + std::to_string(b.id), label, r.empty() ? "#ffffff" : "#ffe0a0",
              "cylinder");
  }
  std::string edges_out;
  for (size_t k = 0; k < schedule.kernels.size(); ++k) {
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
