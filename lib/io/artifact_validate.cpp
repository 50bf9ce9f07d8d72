// The invariants the artifact readers check after decoding, so that a hand-edited or damaged
// file is rejected with a message instead of crashing a later stage: indices in range,
// sources before their users, shapes non-negative, views inside their buffers, data sizes
// that match, op arities and arguments of the right kind.
#include <algorithm>
#include <cstdint>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "codegen/kernel_interface.h"
#include "codegen/renderer.h"
#include "io/artifact.h"
#include "util/error.h"
#include "util/identifier.h"
#include "util/printable.h"

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
  // the flag lets codegen index the buffer directly: it must be what the fields say
  bool empty = std::any_of(v.shape.begin(), v.shape.end(), [](const sint& d) { return d == 0; });
  if (v.contiguous && !empty) { // (a dimension of size 1 may have any stride; an empty view, any)
    Shape want = strides_for_shape(v.shape);
    bool same = v.offset == 0 && !v.mask;
    for (size_t d = 0; same && d < v.shape.size(); ++d) same = v.shape[d] == 1 || v.strides[d] == want[d];
    check(same, where, "view says it is contiguous, but its strides, offset or mask are not");
  }
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

// Names are what tg-run binds and prints: a control character or broken UTF-8 in one would
// make every message that quotes it more than one line.
void check_printable_name(const std::string& name, const Checker& check, const std::string& where) {
  check(printable(name) == name, where, "the name holds a control character or bytes that are not UTF-8");
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

// A device as tinygrad canonicalises it: an upper-case type and an optional ":N" (N >= 1), or ""
// for the program's default device.
void check_device_name(const std::string& d, const Checker& check, const std::string& where) {
  size_t colon = d.find(':');
  bool ok = d.size() <= 64 && colon != 0;
  for (size_t i = 0; ok && i < std::min(colon, d.size()); ++i) ok = (d[i] >= 'A' && d[i] <= 'Z');
  if (ok && colon != std::string::npos) {
    std::string index = d.substr(colon + 1);
    ok = !index.empty() && index.size() <= 9 && index[0] != '0';
    for (char c : index) ok = ok && c >= '0' && c <= '9';
  }
  check(ok, where, [&] { return "bad device name '" + printable(d) + "'"; });
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
    if (!b.dims.empty() || (b.role == BufferRole::Constant && !b.name.empty())) {
      int64_t n = 1;
      for (int64_t d : b.dims) {
        if (d < 0 || d > kMaxElements || (d > 0 && n > kMaxElements / d)) {
          n = -1;
          break;
        }
        n *= d;
      }
      check(b.role == BufferRole::Constant && !b.name.empty() && n == b.size, where,
            "dims belong to a named constant and multiply to its size");
      check_printable_name(b.name, check, where);
    }
    check_device_name(b.device, check, where);
  }
  for (auto* list : {&inputs, &outputs, &states}) {
    const char* kind = list == &inputs ? "input" : list == &outputs ? "output" : "state";
    std::set<std::string> names;
    for (const NamedBuffer& nb : *list) {
      std::string where = std::string(kind) + " '" + printable(nb.name) + "'";
      check(!nb.name.empty(), where, "empty name");
      check_printable_name(nb.name, check, where);
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

// The dtype rules of an elementwise op, as lazy/ builds them and the renderers assume: sources
// agree with the result, compares give bool, WHERE selects by a bool, casts give their argument,
// and integer-only operators (%, //, bit ops) never see a float (C refuses them). An empty
// string when the op is well typed.
std::string elementwise_dtype_error(Op op, DType out, const std::vector<DType>& srcs, const DType* cast_to) {
  auto name = [](DType d) { return std::string(py_name(d)); };
  if (op == Op::CAST || op == Op::BITCAST) {
    if (cast_to && *cast_to != out) return "casts to " + name(*cast_to) + " but has dtype " + name(out);
    if (op == Op::BITCAST && itemsize(srcs[0]) != itemsize(out))
      return "bitcasts " + name(srcs[0]) + " to " + name(out) + ", of another size";
    return {};
  }
  size_t first = 0;
  if (op == Op::WHERE) {
    if (srcs[0] != DType::Bool) return "selects by a " + name(srcs[0]) + " condition, not a bool";
    first = 1;
  }
  bool compare = op == Op::CMPLT || op == Op::CMPNE;
  if (compare && out != DType::Bool) return "compares into " + name(out) + ", not bool";
  DType operand = compare ? srcs[0] : out;
  for (size_t i = first; i < srcs.size(); ++i)
    if (srcs[i] != operand)
      return "has a " + name(srcs[i]) + " source where its operands are " + name(operand);
  bool int_only = op == Op::MOD || op == Op::IDIV || op == Op::XOR || op == Op::SHL || op == Op::SHR;
  if (int_only && is_float(operand)) return "needs int or bool operands, has " + name(operand);
  return {};
}

// Walks a kernel's LazyOp DAG once per node; returns each node's shape.
class AstChecker {
public:
  AstChecker(const Checker& check, std::string where, const std::vector<const BufferInfo*>& buffers)
      : check_(check), where_(std::move(where)), buffers_(buffers) {}

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
    // the op's dtype as LazyOp::dtype() gives it, from the sources' memoized dtypes
    DType dtype = op->src.empty() ? kDefaultFloat : dtypes_.at(op->src.back().get());
    if (auto* mb = std::get_if<MemBuffer>(&op->arg)) dtype = mb->dtype;
    if (auto* cb = std::get_if<ConstBuffer>(&op->arg)) dtype = cb->dtype;
    if (auto* dt = std::get_if<DType>(&op->arg); dt && (op->op == Op::CAST || op->op == Op::BITCAST))
      dtype = *dt;
    if (op->op == Op::CMPLT || op->op == Op::CMPNE) dtype = DType::Bool;
    Shape shape;
    if (op->op == Op::LOAD || op->op == Op::STORE) {
      const MemBuffer* mb = std::get_if<MemBuffer>(&op->arg);
      check_(mb != nullptr, where, "needs a buffer argument");
      check_(mb->idx >= 0 && size_t(mb->idx) < buffers_.size(), where, [&] {
        return "buffer index " + std::to_string(mb->idx) + " out of range for " +
               std::to_string(buffers_.size()) + " kernel buffers";
      });
      const BufferInfo& buffer = *buffers_[size_t(mb->idx)];
      check_(mb->dtype == buffer.dtype, where, [&] {
        return "reads buffer " + std::to_string(mb->idx) + " as " + std::string(py_name(mb->dtype)) +
               ", which holds " + std::string(py_name(buffer.dtype));
      });
      check_st(mb->st, check_, where);
      check_st_in_buffer(mb->st, buffer.size, check_, where);
      shape = mb->st.shape();
      used_.insert(mb->idx);
      if (op->op == Op::STORE) {
        check_(*srcs[0] == shape, where, [&] {
          return "stores a value of shape " + str(*srcs[0]) + " through a view of shape " + str(shape);
        });
        check_store_view(mb->st, where);
        check_(dtypes_.at(op->src[0].get()) == mb->dtype, where, [&] {
          return "stores a " + std::string(py_name(dtypes_.at(op->src[0].get()))) + " value into a " +
                 std::string(py_name(mb->dtype)) + " buffer";
        });
        check_(stored_.insert(mb->idx).second, where,
               [&] { return "stores into buffer " + std::to_string(mb->idx) + " twice"; });
      }
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
      // (dtypes from the memo: LazyOp::dtype() recurses, quadratic over a long chain)
      std::vector<DType> src_dtypes;
      for (const LazyOpPtr& s : op->src) src_dtypes.push_back(dtypes_.at(s.get()));
      const DType* cast_to = std::get_if<DType>(&op->arg);
      check_(op->op != Op::CAST && op->op != Op::BITCAST ? std::holds_alternative<std::monostate>(op->arg)
                                                         : cast_to && int(*cast_to) < kNumDTypes,
             where,
             op->op == Op::CAST || op->op == Op::BITCAST ? "needs a dtype argument" : "takes no argument");
      std::string bad = elementwise_dtype_error(op->op, dtype, src_dtypes, cast_to);
      check_(bad.empty(), where, [&] { return bad; });
    } else {
      check_(false, where, "is not a kernel op");
      shape = *srcs[0];
    }
    dtypes_.emplace(op, dtype);
    return shapes_.emplace(op, std::move(shape)).first->second;
  }

  // After every root: each of the kernel's buffers is read or written (the renderer gives the
  // kernel a parameter per buffer it uses, and the launcher passes every listed buffer).
  void check_all_buffers_used() const {
    for (size_t i = 0; i < buffers_.size(); ++i)
      check_(used_.count(int(i)) != 0, where_, [&] {
        return "lists buffer " + std::to_string(buffers_[i]->id) + " (index " + std::to_string(i) +
               "), which no LOAD or STORE uses";
      });
  }

private:
  // A STORE writes each element of its view once: a stride-0 or overlapping dimension would
  // write one element from several iterations (which the linearizer cannot lower), and a
  // masked store leaves a gap tinygrad's scheduler never makes.
  void check_store_view(const ShapeTracker& st, const std::string& where) const {
    check_(st.views.size() == 1, where, "stores through a view of a view");
    const View& v = st.views.front();
    check_(!v.mask, where, "stores through a masked view");
    std::vector<std::pair<int64_t, int64_t>> dims; // (|stride|, size) of dims larger than 1
    for (size_t d = 0; d < v.shape.size(); ++d) {
      if (!v.shape[d].is_int() || !v.strides[d].is_int()) return; // symbolic: checked at run time
      int64_t size = v.shape[d], stride = v.strides[d];
      if (size <= 1) continue;
      check_(stride != 0, where, [&] {
        return "stores through stride 0 on dimension " + std::to_string(d) + " of size " +
               std::to_string(size) + ": one element would be written " + std::to_string(size) + " times";
      });
      dims.emplace_back(stride < 0 ? -stride : stride, size);
    }
    std::sort(dims.begin(), dims.end());
    for (size_t i = 1; i < dims.size(); ++i)
      check_(dims[i].first >= dims[i - 1].first * dims[i - 1].second, where,
             "stores through a view whose dimensions overlap");
  }

  const Checker& check_;
  std::string where_;
  const std::vector<const BufferInfo*>& buffers_;
  std::unordered_map<const LazyOp*, Shape> shapes_;
  std::unordered_map<const LazyOp*, DType> dtypes_;
  std::set<int> used_, stored_;
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

// The argument kinds a lazy node may hold, as bits of LazyArg's alternatives.
enum ArgBits : unsigned {
  kNoArg = 1u << 0,
  kScalarArg = 1u << 1,
  kDTypeArg = 1u << 2,
  kAxesArg = 1u << 3,
  kViewArg = 1u << 4,
};
static_assert(std::variant_size_v<LazyArg> == 5, "a new LazyArg alternative needs an ArgBits entry");

// What a graph node of each op holds, as lazy/ builds it: how many sources and which argument.
// Every stage after the reader indexes sources and reads arguments by these rules.
struct GraphNodeSpec {
  int min_srcs, max_srcs;
  unsigned args;
};

GraphNodeSpec graph_node_spec(Op op) {
  switch (op) {
  case Op::CAST:
  case Op::BITCAST:
    return {1, 1, kDTypeArg};
  case Op::LOAD_CONST: // a constant, or a constant of a variable: no sources
    return {0, 0, kScalarArg};
  case Op::EMPTY: // an input (no arg) or a state (its serial number)
    return {0, 0, kNoArg | kScalarArg};
  case Op::COPY: // from the host: the node's data; or from another device: its source (a serial)
    return {0, 1, kNoArg | kScalarArg};
  case Op::CONTIGUOUS:
    return {1, 1, kNoArg};
  case Op::CUSTOM: // a random fill: its seed, and at most a seed buffer
    return {0, 1, kScalarArg};
  case Op::ASSIGN: // the value and the buffer it writes; a part of it as a view
    return {2, 2, kNoArg | kViewArg};
  case Op::VIEW: // a detached view holds true
    return {1, 1, kNoArg | kScalarArg};
  case Op::LOAD:
  case Op::CONST:
  case Op::STORE: // kernel AST ops, never lazy nodes
    return {-1, -1, 0};
  default:
    break;
  }
  if (is_reduce(op)) return {1, 1, kAxesArg};
  int n = arity(op);
  return {n, n, kNoArg};
}

void check_graph_node_shape(const LazyNode& n, const Checker& check, const std::string& where) {
  GraphNodeSpec spec = graph_node_spec(n.op);
  check(spec.min_srcs >= 0, where, "is a kernel op, not a graph node");
  int srcs = int(n.srcs.size());
  check(srcs >= spec.min_srcs && srcs <= spec.max_srcs, where, [&] {
    std::string want = std::to_string(spec.min_srcs);
    if (spec.max_srcs != spec.min_srcs) want += " to " + std::to_string(spec.max_srcs);
    return "needs " + want + (spec.max_srcs == 1 ? " source" : " sources") + ", has " + std::to_string(srcs);
  });
  check((spec.args >> n.arg.index()) & 1u, where, [&] {
    static const char* const kinds[] = {"no argument", "a constant", "a dtype", "reduce axes", "a view"};
    std::string want;
    for (size_t i = 0; i < std::size(kinds); ++i)
      if ((spec.args >> i) & 1u) want += std::string(want.empty() ? "" : " or ") + kinds[i];
    return "needs " + want + ", has " + kinds[n.arg.index()];
  });
  if (const DType* dt = std::get_if<DType>(&n.arg)) check(int(*dt) < kNumDTypes, where, "bad dtype argument");
}

// The kernel's source against the program's record of it: one buffer parameter per listed
// buffer, one int per variable, and on a grid the sizes the source was rendered for (a larger
// grid would index past every buffer; GPU kernels carry no bounds of their own). Returns which
// of its buffers the kernel writes (a random kernel: its first).
std::vector<bool> check_kernel_interface(const ProgramKernel& kernel, const Checker& check,
                                         const std::string& where) {
  if (!kernel.custom.empty()) {
    std::vector<bool> writes(kernel.bufs.size(), false);
    if (!writes.empty()) writes[0] = true;
    return writes;
  }
  std::string why;
  std::optional<KernelInterface> in = kernel_interface(kernel.src, kernel.name, why);
  check(in.has_value(), where, [&] { return why; });
  check(
      in->buffer_written.size() == kernel.bufs.size() && size_t(in->ints) == kernel.vars.size(), where, [&] {
        return "its source takes " + std::to_string(in->buffer_written.size()) + " buffers and " +
               std::to_string(in->ints) + " ints, the program passes " + std::to_string(kernel.bufs.size()) +
               " buffers and " + std::to_string(kernel.vars.size()) + " variables";
      });
  if (!in->groups && !in->local) return in->buffer_written;
  std::array<int64_t, 3> ones{1, 1, 1};
  std::array<int64_t, 3> groups = in->groups.value_or(ones), local = in->local.value_or(ones);
  for (size_t d = 0; d < 3; ++d) {
    bool symbolic = d < kernel.global_size.size() && !kernel.global_size[d].is_int();
    int64_t g = d < kernel.global_size.size() && !symbolic ? int64_t(kernel.global_size[d]) : 1;
    int64_t l = d < kernel.local_size.size() ? kernel.local_size[d] : 1;
    check(symbolic || g == groups[d], where, [&] {
      return "global_size " + str(kernel.global_size) + " is not the grid its source was rendered for (" +
             std::to_string(groups[d]) + " groups on axis " + std::to_string(d) + ")";
    });
    check(l == local[d], where, [&] {
      return "local_size " + str(kernel.local_size) + " is not the work-group its source was rendered for (" +
             std::to_string(local[d]) + " on axis " + std::to_string(d) + ")";
    });
  }
  return in->buffer_written;
}

// Kernels run in order: an intermediate buffer is written by one kernel before another reads
// it. A program with kernels dropped or reordered fails this instead of reading zeros.
// `writes[k]`: which buffers kernel k writes (check_kernel_interface).
void check_written_before_read(const Program& p, const std::vector<std::vector<bool>>& writes_of,
                               const std::unordered_map<int, const BufferInfo*>& by_id,
                               const Checker& check) {
  std::unordered_set<int> written;
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const ProgramKernel& kernel = p.kernels[k];
    const std::vector<bool>& writes = writes_of[k];
    for (size_t i = 0; i < kernel.bufs.size(); ++i) {
      int id = kernel.bufs[i];
      if (!writes[i] && by_id.at(id)->role == BufferRole::Intermediate)
        check(written.count(id) != 0, "kernel " + std::to_string(k) + " '" + kernel.name + "'", [&] {
          return "reads buffer " + std::to_string(id) +
                 " before any kernel writes it (a kernel dropped or moved?)";
        });
    }
    for (size_t i = 0; i < kernel.bufs.size(); ++i)
      if (writes[i]) written.insert(kernel.bufs[i]);
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
    check_graph_node_shape(n, check, where);
    check_st(n.st, check, where);
    check(n.st.shape() == n.shape, where,
          [&] { return "view shape " + str(n.st.shape()) + " differs from node shape " + str(n.shape); });
    if (n.is_view()) {
      int64_t base_size = 1;
      for (const sint& d : g.nodes[n.srcs[0]].shape) base_size *= dim_at(d, check, where);
      check_st_in_buffer(n.st, base_size, check, where);
    }
    if (is_elementwise(n.op)) {
      std::vector<DType> src_dtypes;
      for (NodeId s : n.srcs) {
        check(g.nodes[s].shape == n.shape, where, [&] {
          return "source " + std::to_string(s) + " has shape " + str(g.nodes[s].shape) + ", expected " +
                 str(n.shape);
        });
        src_dtypes.push_back(g.nodes[s].dtype);
      }
      std::string bad = elementwise_dtype_error(n.op, n.dtype, src_dtypes, std::get_if<DType>(&n.arg));
      check(bad.empty(), where, [&] { return bad; });
    }
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
    check_device_name(n.device, check, where);
    if (n.op == Op::COPY) {
      if (n.srcs.empty())
        check(std::holds_alternative<std::monostate>(n.arg), where, "data from the host has no argument");
      else {
        const LazyNode& src = g.nodes[n.srcs[0]];
        check(n.data.empty() && std::holds_alternative<Scalar>(n.arg) && !src.is_view() &&
                  src.shape == n.shape && src.dtype == n.dtype && src.device != n.device,
              where,
              "a copy between devices needs a base of its shape and dtype on another device, and no data");
      }
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
      std::string where = "input '" + printable(in.name) + "'";
      check(!in.name.empty(), where, "empty name");
      check_printable_name(in.name, check, where);
      check(names.insert(in.name).second, where, "duplicate name");
      check(in.node < g.nodes.size(), where,
            [&] { return "node " + std::to_string(in.node) + " does not exist"; });
    }
  }
  std::set<std::string> names;
  for (const GraphOutput& out : g.outputs) {
    std::string where = "output '" + printable(out.name) + "'";
    check(!out.name.empty(), where, "empty name");
    check_printable_name(out.name, check, where);
    check(names.insert(out.name).second, where, "duplicate name");
    check(out.node < g.nodes.size(), where,
          [&] { return "node " + std::to_string(out.node) + " does not exist"; });
  }
  std::set<std::string> state_names;
  for (const GraphState& st : g.states) {
    std::string where = "state '" + printable(st.name) + "'";
    check(!st.name.empty(), where, "empty name");
    check_printable_name(st.name, check, where);
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
    check_device_name(kernel.device, check, where);
    std::vector<const BufferInfo*> buffers;
    for (int id : kernel.bufs) {
      auto it = by_id.find(id);
      check(it != by_id.end(), where, [&] { return "buffer " + std::to_string(id) + " does not exist"; });
      buffers.push_back(it->second);
    }
    if (!kernel.ast.empty() && kernel.ast[0] && kernel.ast[0]->op == Op::CUSTOM) {
      const LazyOp& root = *kernel.ast[0];
      const ConstBuffer* cb = std::get_if<ConstBuffer>(&root.arg);
      check(kernel.ast.size() == 1 && root.src.empty() && cb && cb->val.kind == Scalar::Kind::Int, where,
            "a CUSTOM kernel is one CUSTOM op with an int seed");
      check_st(cb->st, check, where);
      check(int(cb->dtype) < kNumDTypes, where, "bad dtype");
      check_custom_buffers(kernel.bufs, cb->dtype, prod(cb->st.shape()), by_id, check, where);
      continue;
    }
    AstChecker ast(check, where, buffers);
    for (const LazyOpPtr& root : kernel.ast) {
      check(root != nullptr, where, "null ast root");
      check(root->op == Op::STORE, where, "an ast root that is not a STORE");
      ast.visit(root.get());
    }
    ast.check_all_buffers_used();
  }
}

void validate_program(const Program& p) {
  Checker check("program", p.vars);
  check(!p.device.empty(), "device", "empty device name");
  check_vars(p.vars, check);
  std::unordered_map<int, const BufferInfo*> by_id;
  check_buffers(p.buffers, p.inputs, p.outputs, p.states, check, by_id);
  check_init_first(p.kernels, check);
  std::set<std::string> names;
  std::vector<std::vector<bool>> writes; // per kernel, which of its buffers it writes
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const ProgramKernel& kernel = p.kernels[k];
    std::string where = "kernel " + std::to_string(k) + " '" + kernel.name + "'";
    check(is_identifier(kernel.name), where, "kernel name is not an identifier");
    check_device_name(kernel.device, check, where);
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
      writes.push_back(check_kernel_interface(kernel, check, where));
      continue;
    }
    for (const std::string& v : kernel.vars) {
      check(is_identifier(v), where, [&] { return "variable name '" + v + "' is not an identifier"; });
      check(v == kSplitStartVar || v == kSplitEndVar ||
                std::any_of(p.vars.begin(), p.vars.end(), [&](const VarBinding& b) { return b.name == v; }),
            where, [&] { return "variable '" + v + "' is not in the program's vars"; });
    }
    check(names.insert(kernel.name).second, where, "a second kernel of this name");
    writes.push_back(check_kernel_interface(kernel, check, where));
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
  check_written_before_read(p, writes, by_id, check);
}

} // namespace tg
