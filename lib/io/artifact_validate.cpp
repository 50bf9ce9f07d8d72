// The invariants the artifact readers check after decoding, so that a hand-edited or damaged
// file is rejected with a message instead of crashing a later stage: indices in range,
// sources before their users, shapes non-negative, views inside their buffers, data sizes
// that match, op arities and arguments of the right kind.
#include <algorithm>
#include <cstdint>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "codegen/renderer.h"
#include "io/artifact.h"
#include "util/error.h"
#include "util/identifier.h"

namespace tg {

namespace {

constexpr int64_t kMaxElements = int64_t(1) << 48;

class Checker {
public:
  // `vars`: the artifact's variables, at whose values symbolic views are checked.
  Checker(std::string what, const std::vector<VarBinding>& vars) : what_(std::move(what)), vars_(&vars) {}
  const std::vector<VarBinding>& vars() const { return *vars_; }
  void operator()(bool ok, const std::string& where, const char* message) const {
    if (!ok) fail("RuntimeError", "invalid " + what_ + " artifact: " + where + ": " + message);
  }
  // The message built only when the check fails: checks run per node of every artifact read.
  template <class Message> void operator()(bool ok, const std::string& where, Message&& message) const {
    if (!ok) fail("RuntimeError", "invalid " + what_ + " artifact: " + where + ": " + std::string(message()));
  }

private:
  std::string what_;
  const std::vector<VarBinding>* vars_;
};

std::string str(const Shape& xs) { return shape_repr(xs); }
std::string str(const std::vector<int64_t>& xs) {
  std::string s = "(";
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + std::to_string(xs[i]);
  return s + (xs.size() == 1 ? ",)" : ")");
}

// Element count of a shape; checks dims are non-negative and the count is sane.
int64_t checked_size(const Shape& shape, const Checker& check, const std::string& where) {
  // (a symbolic dimension counts at its largest value, which is what a buffer holds)
  for (const sint& x : shape)
    check(x.min() >= 0, where, [&] { return "negative dimension in shape " + str(shape); });
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0; // (2**62, 0) is empty
  int64_t n = 1;
  for (const sint& x : shape) {
    int64_t d = x.max();
    check(n <= kMaxElements / d, where, [&] { return "shape " + str(shape) + " is too large"; });
    n *= d;
  }
  return n;
}

void check_view(const View& v, const Checker& check, const std::string& where) {
  checked_size(v.shape, check, where);
  check(v.strides.size() == v.shape.size(), where, [&] {
    return "view has " + std::to_string(v.strides.size()) + " strides for " + std::to_string(v.shape.size()) +
           " dimensions";
  });
  for (const sint& s : v.strides)
    check(s.min() > -kMaxElements && s.max() < kMaxElements, where, "stride out of range");
  check(v.offset.min() > -kMaxElements && v.offset.max() < kMaxElements, where, "offset out of range");
  if (!v.mask) return;
  check(v.mask->size() == v.shape.size(), where, [&] {
    return "mask has " + std::to_string(v.mask->size()) + " entries for " + std::to_string(v.shape.size()) +
           " dimensions";
  });
  for (size_t i = 0; i < v.mask->size(); ++i) {
    const auto& [sb, se] = (*v.mask)[i];
    if (!sb.is_int() || !se.is_int()) { // (checked again at the variables' values)
      check(sb.min() > -kMaxElements && se.max() < kMaxElements, where, "mask out of range");
      continue;
    }
    int64_t b = sb, e = se; // not a binding: lambdas capture it
    check(0 <= b && b <= e && e <= v.shape[i].max(), where, [&] {
      return "mask [" + std::to_string(b) + ", " + std::to_string(e) + ") does not fit dimension " +
             std::to_string(i) + " of size " + v.shape[i].str();
    });
  }
}

void check_st(const ShapeTracker& st, const Checker& check, const std::string& where) {
  check(!st.views.empty(), where, "shapetracker has no views");
  for (const View& v : st.views) check_view(v, check, where);
}

// A dimension at the artifact's variable values; a variable it lacks fails the check.
int64_t dim_at(const sint& d, const Checker& check, const std::string& where) {
  if (d.is_int()) return int64_t(d);
  try {
    return eval_dim(d, check.vars());
  } catch (const Error& e) {
    check(false, where, e.what());
    return 0;
  }
}

void check_st_in_buffer(const ShapeTracker& st_in, int64_t buffer_size, const Checker& check,
                        const std::string& where) {
  ShapeTracker st = st_in;
  try {
    st = at_values(st_in, check.vars());
  } catch (const Error& e) { // a variable the artifact does not define
    check(false, where, e.what());
  }
  if (auto r = index_range(st.views.front()))
    check(r->first >= 0 && r->second < buffer_size, where, [&] {
      return "view reads elements " + std::to_string(r->first) + ".." + std::to_string(r->second) +
             " of a buffer of " + std::to_string(buffer_size);
    });
}

int arity(Op op) {
  switch (op_kind(op)) {
  case OpKind::Unary:
    return 1;
  case OpKind::Binary:
    return 2;
  case OpKind::Ternary:
    return 3;
  case OpKind::Reduce:
    return 1;
  default:
    return op == Op::VIEW ? 1 : -1;
  }
}

std::string node_where(const char* prefix, size_t i, Op op) {
  return std::string(prefix) + std::to_string(i) + " (" + std::string(op_name(op)) + ")";
}

void check_axes(const Axes& axes, size_t ndim, const Checker& check, const std::string& where) {
  for (int a : axes)
    check(a >= 0 && size_t(a) < ndim, where, [&] {
      return "reduce axis " + std::to_string(a) + " out of range for " + std::to_string(ndim) + " dimensions";
    });
}

void check_buffers(const std::vector<BufferInfo>& buffers, const std::vector<NamedBuffer>& inputs,
                   const std::vector<NamedBuffer>& outputs, const std::vector<NamedBuffer>& states,
                   const Checker& check, std::unordered_map<int, const BufferInfo*>& by_id) {
  for (size_t i = 0; i < buffers.size(); ++i) {
    const BufferInfo& b = buffers[i];
    std::string where = "buffer " + std::to_string(b.id);
    check(b.id >= 0, where, "negative buffer id");
    check(by_id.emplace(b.id, &b).second, where, "duplicate buffer id");
    check(b.size >= 0 && b.size <= kMaxElements, where, [&] { return "bad size " + std::to_string(b.size); });
    if (b.role == BufferRole::Constant)
      check(b.data.size() == uint64_t(b.size) * itemsize(b.dtype), where, [&] {
        return "constant data has " + std::to_string(b.data.size()) + " bytes, expected " +
               std::to_string(b.size * itemsize(b.dtype));
      });
    else
      check(b.data.empty(), where, "only constant buffers carry data");
  }
  for (auto* list : {&inputs, &outputs, &states}) {
    const char* kind = list == &inputs ? "input" : list == &outputs ? "output" : "state";
    std::set<std::string> names;
    for (const NamedBuffer& nb : *list) {
      std::string where = std::string(kind) + " '" + nb.name + "'";
      check(!nb.name.empty(), where, "empty name");
      check(names.insert(nb.name).second, where, "duplicate name");
      auto it = by_id.find(nb.buffer);
      check(it != by_id.end(), where,
            [&] { return "buffer " + std::to_string(nb.buffer) + " does not exist"; });
      int64_t n = checked_size(nb.shape, check, where);
      check(n == it->second->size, where, [&] {
        return "shape " + str(nb.shape) + " does not match buffer size " + std::to_string(it->second->size);
      });
      check(nb.dtype == it->second->dtype, where, [&] {
        return "dtype " + std::string(py_name(nb.dtype)) + " does not match the buffer's " +
               std::string(py_name(it->second->dtype));
      });
      if (list == &states)
        check(it->second->role == BufferRole::State, where, "buffer is not a state buffer");
    }
  }
}

// Init kernels (a state's first value) come before the step's kernels.
template <class K> void check_init_first(const std::vector<K>& kernels, const Checker& check) {
  bool step = false;
  for (size_t k = 0; k < kernels.size(); ++k) {
    check(!(step && kernels[k].init), "kernel " + std::to_string(k), "init kernel after a step kernel");
    step |= !kernels[k].init;
  }
}

// Walks a kernel's LazyOp DAG once per node; returns each node's shape.
class AstChecker {
public:
  AstChecker(const Checker& check, std::string where, const std::vector<int64_t>& buffer_sizes)
      : check_(check), where_(std::move(where)), buffer_sizes_(buffer_sizes) {}

  const Shape& visit(const LazyOp* op) {
    if (auto it = shapes_.find(op); it != shapes_.end()) return it->second;
    std::string where = where_ + " " + std::string(op_name(op->op));
    int want = arity(op->op);
    if (op->op == Op::LOAD || op->op == Op::CONST) want = 0;
    if (op->op == Op::STORE) want = 1;
    if (want >= 0)
      check_(int(op->src.size()) == want, where, [&] {
        return "needs " + std::to_string(want) + " sources, has " + std::to_string(op->src.size());
      });
    std::vector<const Shape*> srcs;
    for (const LazyOpPtr& s : op->src) {
      check_(s != nullptr, where, "null source");
      srcs.push_back(&visit(s.get()));
    }
    Shape shape;
    if (op->op == Op::LOAD || op->op == Op::STORE) {
      const MemBuffer* mb = std::get_if<MemBuffer>(&op->arg);
      check_(mb != nullptr, where, "needs a buffer argument");
      check_(mb->idx >= 0 && size_t(mb->idx) < buffer_sizes_.size(), where, [&] {
        return "buffer index " + std::to_string(mb->idx) + " out of range for " +
               std::to_string(buffer_sizes_.size()) + " kernel buffers";
      });
      check_st(mb->st, check_, where);
      check_st_in_buffer(mb->st, buffer_sizes_[mb->idx], check_, where);
      shape = mb->st.shape();
      if (op->op == Op::STORE)
        check_(*srcs[0] == shape, where, [&] {
          return "stores a value of shape " + str(*srcs[0]) + " through a view of shape " + str(shape);
        });
    } else if (op->op == Op::CONST) {
      const ConstBuffer* cb = std::get_if<ConstBuffer>(&op->arg);
      check_(cb != nullptr, where, "needs a const argument");
      check_st(cb->st, check_, where);
      shape = cb->st.shape();
    } else if (is_reduce(op->op)) {
      const Axes* axes = std::get_if<Axes>(&op->arg);
      check_(axes != nullptr, where, "needs reduce axes");
      check_axes(*axes, srcs[0]->size(), check_, where);
      shape = *srcs[0];
      for (int a : *axes) shape[a] = 1;
    } else if (is_elementwise(op->op)) {
      for (const Shape* s : srcs)
        check_(*s == *srcs[0], where,
               [&] { return "sources have different shapes " + str(*srcs[0]) + " and " + str(*s); });
      shape = *srcs[0];
    } else if (!srcs.empty()) {
      shape = *srcs[0];
    }
    return shapes_.emplace(op, std::move(shape)).first->second;
  }

private:
  const Checker& check_;
  std::string where_;
  const std::vector<int64_t>& buffer_sizes_;
  std::unordered_map<const LazyOp*, Shape> shapes_;
};

// A random-fill kernel's buffers: the output (its dtype and size), then an optional seed buffer
// holding one int64.
void check_custom_buffers(const std::vector<int>& bufs, DType dtype, int64_t size,
                          const std::unordered_map<int, const BufferInfo*>& by_id, const Checker& check,
                          const std::string& where) {
  check(bufs.size() == 1 || bufs.size() == 2, where,
        "a random kernel has an output and at most a seed buffer");
  for (size_t i = 0; i < bufs.size(); ++i) {
    auto it = by_id.find(bufs[i]);
    check(it != by_id.end(), where, [&] { return "buffer " + std::to_string(bufs[i]) + " does not exist"; });
    const BufferInfo& b = *it->second;
    if (i == 0)
      check(b.dtype == dtype && b.size == size, where, "its output buffer does not match its dtype and size");
    else
      check(b.dtype == DType::Int64 && b.size >= 1, where, "its seed buffer must hold an int64");
  }
}

} // namespace

// The vars table: distinct identifiers, each value within its range, and ranges of sizes.
void check_vars(const std::vector<VarBinding>& vars, const Checker& check) {
  std::unordered_set<std::string> names;
  for (const VarBinding& v : vars) {
    check(is_identifier(v.name), "vars",
          [&] { return "variable name '" + v.name + "' is not an identifier"; });
    check(names.insert(v.name).second, "vars", [&] { return "variable '" + v.name + "' is listed twice"; });
    check(0 <= v.min && v.min <= v.value && v.value <= v.max && v.max <= INT32_MAX, "vars", [&] {
      return "variable '" + v.name + "' has value " + std::to_string(v.value) + " outside [" +
             std::to_string(v.min) + ", " + std::to_string(v.max) + "]";
    });
  }
}

void validate_graph(const Graph& g) {
  Checker check("graph", g.vars);
  check_vars(g.vars, check);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const LazyNode& n = g.nodes[i];
    std::string where = node_where("node ", i, n.op);
    check(int(n.op) < kNumOps, where, "bad op");
    check(int(n.dtype) < kNumDTypes, where, "bad dtype");
    int64_t size = checked_size(n.shape, check, where);
    for (NodeId s : n.srcs)
      check(s < i, where, [&] { return "source " + std::to_string(s) + " is not an earlier node"; });
    int want = arity(n.op);
    if (want >= 0)
      check(int(n.srcs.size()) == want, where, [&] {
        return "needs " + std::to_string(want) + " sources, has " + std::to_string(n.srcs.size());
      });
    check_st(n.st, check, where);
    check(n.st.shape() == n.shape, where,
          [&] { return "view shape " + str(n.st.shape()) + " differs from node shape " + str(n.shape); });
    if (n.is_view()) {
      int64_t base_size = 1;
      for (const sint& d : g.nodes[n.srcs[0]].shape) base_size *= dim_at(d, check, where);
      check_st_in_buffer(n.st, base_size, check, where);
    }
    if (is_elementwise(n.op))
      for (NodeId s : n.srcs)
        check(g.nodes[s].shape == n.shape, where, [&] {
          return "source " + std::to_string(s) + " has shape " + str(g.nodes[s].shape) + ", expected " +
                 str(n.shape);
        });
    if (n.op == Op::CUSTOM) {
      // custom_random: its seed in the arg, plus the value of a one-element int64 seed buffer
      // when it has a source.
      const Scalar* seed = std::get_if<Scalar>(&n.arg);
      check(seed && seed->kind == Scalar::Kind::Int, where, "needs an int seed argument");
      check(n.srcs.size() <= 1, where, "needs at most one source (its seed buffer)");
      for (NodeId s : n.srcs)
        check(g.nodes[s].dtype == DType::Int64 && g.nodes[s].shape == Shape{1}, where,
              "its seed source must be one int64");
    }
    if (n.op == Op::ASSIGN) {
      const ShapeTracker* part = std::get_if<ShapeTracker>(&n.arg);
      if (part) {
        check_st(*part, check, where);
        check_st_in_buffer(*part, size, check, where);
      }
      check(n.srcs.size() == 2 && g.nodes[n.srcs[1]].op == Op::EMPTY && !g.nodes[n.srcs[1]].name.empty() &&
                g.nodes[n.srcs[1]].shape == n.shape &&
                g.nodes[n.srcs[0]].shape == (part ? part->shape() : n.shape),
            where,
            "needs a value of its (view's) shape and a named buffer (a state or an input) of its shape");
    } else {
      check(!std::holds_alternative<ShapeTracker>(n.arg), where, "only an ASSIGN has a view argument");
    }
    if (is_reduce(n.op)) {
      const Axes* axes = std::get_if<Axes>(&n.arg);
      check(axes != nullptr, where, "needs reduce axes");
      check_axes(*axes, g.nodes[n.srcs[0]].shape.size(), check, where);
    }
    if (!n.data.empty())
      check(n.data.size() == uint64_t(size) * itemsize(n.dtype), where, [&] {
        return "data has " + std::to_string(n.data.size()) + " bytes, expected " +
               std::to_string(size * itemsize(n.dtype));
      });
  }
  for (auto* list : {&g.inputs}) {
    std::set<std::string> names;
    for (const GraphInput& in : *list) {
      std::string where = "input '" + in.name + "'";
      check(!in.name.empty(), where, "empty name");
      check(names.insert(in.name).second, where, "duplicate name");
      check(in.node < g.nodes.size(), where,
            [&] { return "node " + std::to_string(in.node) + " does not exist"; });
    }
  }
  std::set<std::string> names;
  for (const GraphOutput& out : g.outputs) {
    std::string where = "output '" + out.name + "'";
    check(!out.name.empty(), where, "empty name");
    check(names.insert(out.name).second, where, "duplicate name");
    check(out.node < g.nodes.size(), where,
          [&] { return "node " + std::to_string(out.node) + " does not exist"; });
  }
  std::set<std::string> state_names;
  for (const GraphState& st : g.states) {
    std::string where = "state '" + st.name + "'";
    check(!st.name.empty(), where, "empty name");
    check(state_names.insert(st.name).second, where, "duplicate name");
    for (NodeId id : {st.node, st.init})
      check(id < g.nodes.size(), where, [&] { return "node " + std::to_string(id) + " does not exist"; });
    const LazyNode& n = g.nodes[st.node];
    check(n.is_state() && n.name == st.name, where,
          [&] { return "node " + std::to_string(st.node) + " is not its placeholder"; });
    check(g.nodes[st.init].shape == n.shape && g.nodes[st.init].dtype == n.dtype, where,
          "first value differs in shape or dtype");
    for (const GraphInput& in : g.inputs) check(in.name != st.name, where, "is also an input");
  }
  for (NodeId a : g.assigns) {
    std::string where = "assign " + std::to_string(a);
    check(a < g.nodes.size() && g.nodes[a].op == Op::ASSIGN, where, "is not an ASSIGN node");
  }
}

void validate_schedule(const Schedule& s) {
  Checker check("schedule", s.vars);
  check_vars(s.vars, check);
  std::unordered_map<int, const BufferInfo*> by_id;
  check_buffers(s.buffers, s.inputs, s.outputs, s.states, check, by_id);
  check_init_first(s.kernels, check);
  for (size_t k = 0; k < s.kernels.size(); ++k) {
    const ScheduleKernel& kernel = s.kernels[k];
    std::string where = "kernel " + std::to_string(k);
    check(!kernel.ast.empty(), where, "empty ast");
    std::vector<int64_t> sizes;
    for (int id : kernel.bufs) {
      auto it = by_id.find(id);
      check(it != by_id.end(), where, [&] { return "buffer " + std::to_string(id) + " does not exist"; });
      sizes.push_back(it->second->size);
    }
    if (!kernel.ast.empty() && kernel.ast[0] && kernel.ast[0]->op == Op::CUSTOM) {
      const LazyOp& root = *kernel.ast[0];
      const ConstBuffer* cb = std::get_if<ConstBuffer>(&root.arg);
      check(kernel.ast.size() == 1 && root.src.empty() && cb && cb->val.kind == Scalar::Kind::Int, where,
            "a CUSTOM kernel is one CUSTOM op with an int seed");
      check_custom_buffers(kernel.bufs, cb->dtype, prod(cb->st.shape()), by_id, check, where);
      continue;
    }
    AstChecker ast(check, where, sizes);
    for (const LazyOpPtr& root : kernel.ast) {
      check(root != nullptr, where, "null ast root");
      ast.visit(root.get());
    }
  }
}

void validate_program(const Program& p) {
  Checker check("program", p.vars);
  check(!p.device.empty(), "device", "empty device name");
  check_vars(p.vars, check);
  std::unordered_map<int, const BufferInfo*> by_id;
  check_buffers(p.buffers, p.inputs, p.outputs, p.states, check, by_id);
  check_init_first(p.kernels, check);
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const ProgramKernel& kernel = p.kernels[k];
    std::string where = "kernel " + std::to_string(k) + " '" + kernel.name + "'";
    check(is_identifier(kernel.name), where, "kernel name is not an identifier");
    check(kernel.extents.size() == kernel.bufs.size(), where, [&] {
      return std::to_string(kernel.extents.size()) + " extents for " + std::to_string(kernel.bufs.size()) +
             " buffers";
    });
    for (size_t i = 0; i < kernel.bufs.size(); ++i) {
      int id = kernel.bufs[i];
      auto it = by_id.find(id);
      check(it != by_id.end(), where, [&] { return "buffer " + std::to_string(id) + " does not exist"; });
      // Sizes are at most kMaxElements and item sizes at most 8, so bytes fit in int64.
      int64_t bytes = it->second->size * int64_t(itemsize(it->second->dtype));
      int64_t extent = dim_at(kernel.extents[i], check, where);
      check(extent >= 0 && extent <= bytes, where, [&] {
        return "touches " + std::to_string(extent) + " bytes of buffer " + std::to_string(id) +
               ", which holds " + std::to_string(bytes);
      });
    }
    check(kernel.work >= 0, where, "bad work estimate");
    if (!kernel.custom.empty()) {
      check(kernel.custom == "random" && kernel.src.empty(), where, [&] {
        return "unknown custom kernel '" + kernel.custom + "' (tg knows 'random', with no source)";
      });
      check(!kernel.bufs.empty() && by_id.count(kernel.bufs[0]), where,
            "a random kernel needs an output buffer");
      const BufferInfo& out = *by_id.at(kernel.bufs[0]);
      check_custom_buffers(kernel.bufs, out.dtype, out.size, by_id, check, where);
      continue;
    }
    for (const std::string& v : kernel.vars) {
      check(is_identifier(v), where, [&] { return "variable name '" + v + "' is not an identifier"; });
      check(v == kSplitStartVar || v == kSplitEndVar ||
                std::any_of(p.vars.begin(), p.vars.end(), [&](const VarBinding& b) { return b.name == v; }),
            where, [&] { return "variable '" + v + "' is not in the program's vars"; });
    }
    Shape local = shape_from_ints(kernel.local_size);
    for (const Shape* dims :
         {static_cast<const Shape*>(&kernel.global_size), static_cast<const Shape*>(&local)}) {
      const char* name = dims == &local ? "local_size" : "global_size";
      check(!dims->empty() && dims->size() <= 3, where,
            [&] { return std::string(name) + " needs 1 to 3 dimensions"; });
      // kernels index with 32-bit ints, and host launches pass the split range as int32; a
      // symbolic dimension may be 0 at its variables' values (the kernel then does nothing)
      for (const sint& x : *dims) {
        int64_t d = dim_at(x, check, where);
        check(d >= (x.is_int() ? 1 : 0) && d <= INT32_MAX, where,
              [&] { return std::string(name) + " " + str(*dims) + " has a bad dimension"; });
      }
    }
  }
}

} // namespace tg
