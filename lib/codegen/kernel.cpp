#include "codegen/kernel.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace tg {

std::string_view optops_name(OptOps op) {
  static constexpr std::string_view names[] = {"OptOps.TC",       "OptOps.UPCAST",   "OptOps.UPCASTMID",
                                               "OptOps.UNROLL",   "OptOps.LOCAL",    "OptOps.GROUP",
                                               "OptOps.GROUPTOP", "OptOps.NOLOCALS", "OptOps.PADTO"};
  return names[int(op)];
}

std::string Opt::repr() const {
  return "Opt(op=" + std::string(optops_name(op)) + ", axis=" + (axis ? std::to_string(*axis) : "None") +
         ", amt=" + (amt ? std::to_string(*amt) : "None") + ")";
}

DType buffer_dtype(const KernelBuffer& b) {
  return std::visit([](const auto& x) { return x.dtype; }, b);
}
const ShapeTracker& buffer_st(const KernelBuffer& b) {
  return std::visit([](const auto& x) -> const ShapeTracker& { return x.st; }, b);
}

namespace {

void check_opt(bool ok, const std::string& msg) {
  if (!ok) throw KernelOptError(msg);
}

// Rebuilds the AST so that structurally equal subtrees are one pointer (tinygrad compares
// LazyOps structurally; pointer identity is cheaper and means the same here).
class AstInterner {
public:
  LazyOpPtr intern(const LazyOpPtr& op) {
    if (auto it = seen_.find(op.get()); it != seen_.end()) return it->second;
    std::vector<LazyOpPtr> src;
    for (const LazyOpPtr& s : op->src) src.push_back(intern(s));
    // candidates share the op and the (already interned) sources; only their args differ
    std::vector<const LazyOp*> key_src;
    for (const LazyOpPtr& s : src) key_src.push_back(s.get());
    std::vector<LazyOpPtr>& same = canon_[{op->op, std::move(key_src)}];
    for (const LazyOpPtr& c : same)
      if (c->arg == op->arg) return seen_[op.get()] = c;
    LazyOpPtr made = LazyOp::make(op->op, std::move(src), op->arg);
    same.push_back(made);
    return seen_[op.get()] = made;
  }

private:
  std::map<std::pair<Op, std::vector<const LazyOp*>>, std::vector<LazyOpPtr>> canon_;
  std::map<const LazyOp*, LazyOpPtr> seen_;
};

// Every op once, preorder. The AST is a DAG with shared subexpressions (threefry shares
// each round's values); `seen` keeps the walk linear in the number of nodes.
void collect_lazyops(const LazyOp* op, std::vector<const LazyOp*>& out, std::set<const LazyOp*>& seen) {
  if (!seen.insert(op).second) return;
  out.push_back(op);
  for (const LazyOpPtr& s : op->src) collect_lazyops(s.get(), out, seen);
}
void collect_lazyops(const LazyOp* op, std::vector<const LazyOp*>& out) {
  std::set<const LazyOp*> seen(out.begin(), out.end());
  collect_lazyops(op, out, seen);
}

// dependency order: sources before users (each node visited once: a DAG walked as a tree
// is exponential in its depth)
void ordered_lazyops(const LazyOp* op, std::vector<const LazyOp*>& out, std::set<const LazyOp*>& seen) {
  if (!seen.insert(op).second) return;
  for (const LazyOpPtr& s : op->src) ordered_lazyops(s.get(), out, seen);
  out.push_back(op);
}

KernelBuffer buffer_of(const LazyOp* op) {
  if (auto* mb = std::get_if<MemBuffer>(&op->arg)) return *mb;
  return std::get<ConstBuffer>(op->arg);
}

bool is_buffer_op(Op op) { return op == Op::LOAD || op == Op::CONST || op == Op::STORE; }

template <class T> void push_unique(std::vector<T>& v, const T& x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

} // namespace

Kernel::Kernel(const std::vector<LazyOpPtr>& roots, RendererOpts options) : opts(std::move(options)) {
  check(!roots.empty(), "AssertionError", "a kernel needs at least one STORE");
  AstInterner interner;
  for (const LazyOpPtr& r : roots) {
    check(r->op == Op::STORE && std::holds_alternative<MemBuffer>(r->arg), "AssertionError",
          "kernel AST roots must be STOREs to a MemBuffer");
    ast.push_back(interner.intern(r));
  }
  std::set<const LazyOp*> lazyops_seen;
  for (const LazyOpPtr& r : ast) collect_lazyops(r.get(), lazyops, lazyops_seen);
  std::vector<const LazyOp*> ordered;
  std::set<const LazyOp*> ordered_seen;
  for (const LazyOpPtr& r : ast) ordered_lazyops(r.get(), ordered, ordered_seen);
  for (const LazyOp* op : ordered)
    if (is_reduce(op->op)) reduceops.push_back(op);

  for (const LazyOpPtr& r : ast) bufs.push_back(std::get<MemBuffer>(r->arg));
  std::vector<KernelBuffer> loads;
  for (const LazyOp* op : lazyops)
    if (op->op == Op::LOAD || op->op == Op::CONST) push_unique(loads, buffer_of(op));
  bufs.insert(bufs.end(), loads.begin(), loads.end());

  for (const LazyOp* r : reduceops) {
    std::vector<const LazyOp*> inside;
    collect_lazyops(r, inside);
    for (const LazyOp* op : inside)
      if (is_buffer_op(op->op)) earlybufs.push_back(buffer_of(op));
  }
  full_buf_index = earlybufs.empty() ? 0 : buffer_index(earlybufs[0]);
  for (const KernelBuffer& b : bufs) sts.push_back(buffer_st(b));
  for (const ShapeTracker& st : sts)
    check(st.shape().size() == sts[0].shape().size(), "AssertionError",
          "all buffers of a kernel need the same rank");

  // move all reduce axes to the end
  std::vector<int> permute;
  const Shape full = full_shape(), out = output_shape();
  for (size_t i = 0; i < full.size(); i++)
    if (full[i] == out[i]) permute.push_back(int(i));
  for (size_t i = 0; i < full.size(); i++)
    if (full[i] != out[i]) permute.push_back(int(i));
  reshape_and_permute(nullptr, &permute);

  simplify_ones();
  simplify_merge_adjacent();
}

bool Kernel::is_early(const KernelBuffer& b) const {
  return std::find(earlybufs.begin(), earlybufs.end(), b) != earlybufs.end();
}

int Kernel::buffer_index(const KernelBuffer& b, int from) const {
  for (size_t i = size_t(from); i < bufs.size(); i++)
    if (bufs[i] == b) return int(i);
  for (size_t i = 0; i < bufs.size(); i++)
    if (bufs[i] == b) return int(i);
  return -1;
}

Shape Kernel::full_unupcasted_shape() const {
  const Shape& f = full_shape();
  return Shape(f.begin(), f.begin() + (shape_len() - upcasted));
}

int Kernel::first_reduce() const {
  const Shape &out = output_shape(), &full = full_shape();
  int n = shape_len() - upcasted;
  for (int i = 0; i < n; i++)
    if (out[size_t(i)] != full[size_t(i)]) return i;
  return n;
}

std::vector<Kernel::UpcastAxis> Kernel::upcasted_axis(const ShapeTracker& st) const {
  std::vector<UpcastAxis> out;
  auto strides = st.real_strides();
  for (int i = shape_len() - upcasted; i < shape_len(); i++)
    out.push_back(
        {st.shape()[size_t(i)], strides[size_t(i)], output_shape()[size_t(i)] != full_shape()[size_t(i)]});
  return out;
}

std::vector<Kernel::UpcastAxis> Kernel::upcasted_axis(int buf) const {
  return upcasted_axis(sts[size_t(buf)]);
}

std::vector<int> Kernel::float4_axis(int buf) const {
  std::vector<int> out;
  const ShapeTracker& st = sts[size_t(buf)];
  for (int x : st.unit_stride_axes())
    if (x >= shape_len() - upcasted && st.shape()[size_t(x)] % 4 == 0)
      out.push_back(x - (shape_len() - upcasted));
  return out;
}

int64_t Kernel::shape_offsets_count(int buf) const {
  int64_t n = 1;
  for (const UpcastAxis& a : upcasted_axis(buf)) n *= a.size;
  return n;
}

std::vector<int> Kernel::acc_offsets(int buf) const { return acc_offsets(sts[size_t(buf)]); }

std::vector<int> Kernel::acc_offsets(const ShapeTracker& st) const {
  if (upcasted == 0) return {0};
  auto axes = upcasted_axis(st);
  std::reverse(axes.begin(), axes.end());
  Shape acc_shape;
  for (const UpcastAxis& a : axes) acc_shape.push_back(a.reduce ? 1 : a.size);
  Shape acc_strides = strides_for_shape(acc_shape);
  for (size_t i = 0; i < axes.size(); i++)
    if (axes[i].reduce) acc_strides[i] = 0;
  // itertools.product over the reversed axes: the last listed (the first upcast axis) is fastest
  std::vector<int> out{0};
  for (size_t i = 0; i < axes.size(); i++) {
    std::vector<int> next;
    for (int base : out)
      for (int64_t y = 0; y < axes[i].size; y++) next.push_back(base + int(y * acc_strides[i]));
    out = std::move(next);
  }
  return out;
}

std::string Kernel::name() const {
  std::string kind = "E";
  if (reduceop())
    kind = "r";
  else if (std::all_of(lazyops.begin(), lazyops.end(), [](const LazyOp* op) { return is_buffer_op(op->op); }))
    kind = "C";
  std::string s = kind + (n_outputs() > 1 ? std::to_string(n_outputs()) + "_" : "_");
  const Shape& f = full_shape();
  for (size_t i = 0; i < f.size(); i++) {
    if (!f[i].is_int()) { // tinygrad's to_function_name(str(node)): "<i[1-10]>" as 3Ci5B1D102D5D3E
      static const char* hex = "0123456789ABCDEF";
      s += i ? "_" : "";
      for (char c : "<" + f[i].expr().render_debug() + ">") {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
          s += c;
        else
          s += hex[(c >> 4) & 15], s += hex[c & 15];
      }
      continue;
    }
    s += (i ? "_" : "") + std::to_string(int64_t(f[i]));
  }
  return s;
}

// ---------------------------------------------------------------- simplifiers

void Kernel::reshape_and_permute(const std::function<Shape(const Shape&)>& new_shape,
                                 const std::vector<int>* axis) {
  for (ShapeTracker& st : sts) {
    if (new_shape) st = st.reshape(new_shape(st.shape()));
    if (axis) st = st.permute(*axis);
  }
}

void Kernel::upcast() {
  check_opt(full_shape().back() != 1, "can't upcast a dimension with size 1");
  upcasted += 1;
}

void Kernel::shift_to(int axis, int64_t amount, bool top, std::optional<int> insert_before_opt) {
  int old_len = shape_len();
  int insert_before = insert_before_opt.value_or(old_len);
  int move_axis = top ? axis : axis + 1;
  if (move_axis < insert_before) insert_before += 1;
  auto new_shape = [&](const Shape& x) {
    Shape s(x.begin(), x.begin() + axis);
    if (x[size_t(axis)] > 1) {
      if (top)
        s.insert(s.end(), {amount, x[size_t(axis)] / amount});
      else
        s.insert(s.end(), {x[size_t(axis)] / amount, amount});
    } else {
      s.insert(s.end(), {1, 1});
    }
    s.insert(s.end(), x.begin() + axis + 1, x.end());
    return s;
  };
  std::vector<int> perm;
  for (int i = 0; i < insert_before; i++)
    if (i != move_axis) perm.push_back(i);
  perm.push_back(move_axis);
  for (int i = insert_before; i < old_len + 1; i++)
    if (i != move_axis) perm.push_back(i);
  reshape_and_permute(new_shape, &perm);
}

bool Kernel::simplify_ones() {
  if (shape_len() == 0) return false;
  const Shape full = full_shape();
  std::vector<bool> ones;
  for (const sint& s : full) ones.push_back(s == 1);
  int fr = first_reduce();
  for (int i = fr - local_dims; i < fr; i++) local_dims -= ones[size_t(i)];
  for (int i = shape_len() - upcasted; i < shape_len(); i++) upcasted -= ones[size_t(i)];
  reshape_and_permute(
      [&](const Shape& shape) {
        Shape s;
        for (size_t i = 0; i < shape.size(); i++)
          if (!ones[i]) s.push_back(shape[i]);
        return s;
      },
      nullptr);
  return std::find(ones.begin(), ones.end(), true) != ones.end();
}

void Kernel::simplify_merge_adjacent() {
  if (shape_len() == 0) return;
  int fr = first_reduce();
  std::vector<Shape> shapes;
  std::vector<std::vector<std::optional<int64_t>>> strides;
  for (const ShapeTracker& st : sts) {
    shapes.push_back(st.shape());
    strides.push_back(st.real_strides());
  }
  using Dim = std::pair<sint, std::optional<int64_t>>; // (a symbolic stride is nullopt: never merged)
  std::vector<std::vector<Dim>> rets;
  for (size_t j = 0; j < sts.size(); j++) rets.push_back({{shapes[j][0], strides[j][0]}});
  for (size_t i = 1; i < shapes[0].size(); i++) {
    bool mergeable = int(i) != fr;
    for (size_t j = 0; j < sts.size() && mergeable; j++) {
      if (!shapes[j][i].is_int()) {
        mergeable = false;
        break;
      }
      int64_t si = shapes[j][i];
      std::optional<int64_t> sti = strides[j][i], last = rets[j].back().second;
      bool ok = sti && ((*sti != 0 && last && *last == si * *sti) || (*sti == 0 && last && *last == 0));
      mergeable = ok;
    }
    for (size_t j = 0; j < sts.size(); j++) {
      if (mergeable)
        rets[j].back() = {rets[j].back().first * shapes[j][i], strides[j][i]};
      else
        rets[j].push_back({shapes[j][i], strides[j][i]});
    }
  }
  for (size_t j = 0; j < sts.size(); j++) {
    Shape s;
    for (const Dim& d : rets[j]) s.push_back(d.first);
    sts[j] = sts[j].reshape(s);
  }
}

// ---------------------------------------------------------------- opts

void Kernel::apply_opt(const Opt& opt, bool append_opt) {
  auto saved_sts = sts;
  auto saved = std::tuple(applied_opts, group_for_reduces, upcasted, local_dims, dont_use_locals, tensor_core,
                          tensor_core_opts, bufs_for_tensor_core);
  try {
    apply_opt_unchecked(opt, append_opt);
  } catch (const KernelOptError&) {
    sts = std::move(saved_sts);
    std::tie(applied_opts, group_for_reduces, upcasted, local_dims, dont_use_locals, tensor_core,
             tensor_core_opts, bufs_for_tensor_core) = saved;
    throw;
  }
}

void Kernel::apply_opt_unchecked(const Opt& opt, bool append_opt) {
  check_opt(!dont_use_locals || (opt.op != OptOps::LOCAL && opt.op != OptOps::GROUP &&
                                 opt.op != OptOps::GROUPTOP && opt.op != OptOps::UPCASTMID),
            "not using locals");
  if (opt.op == OptOps::TC) {
    check_opt(applied_opts.empty(), "tensor core opts must be first");
    check_opt(opt.axis && opt.amt, "tensor core opts must have an axis and amt");
    const int use_tensor_cores = tc_setting();
    check_opt(use_tensor_cores == 2 || !opts.tensor_cores.empty(), "must have tensor cores or TC=2");
    check_opt(apply_tc_opt(use_tensor_cores, *opt.axis, int(*opt.amt)), "no tensor core available");
    applied_opts.push_back(opt);
    return;
  }
  int axis = -1;
  if (opt.axis) {
    axis = *opt.axis;
    if (opt.op == OptOps::UNROLL) axis += first_reduce();
    if (opt.op == OptOps::GROUP || opt.op == OptOps::GROUPTOP) axis += first_reduce() + group_for_reduces;
  }
  check_opt(axis < int(full_shape().size()), "invalid axis");
  int64_t amt = -1;
  if (opt.amt) {
    check_opt(axis >= 0, "opt needs an axis");
    amt = *opt.amt != 0 ? *opt.amt : int64_t(full_shape()[size_t(axis)]);
    check_opt(amt != 1, "shift/padto of amt 1 or Node is meaningless");
    if (opt.op != OptOps::PADTO)
      check_opt(amt > 0 && full_shape()[size_t(axis)] % amt == 0, "no longer valid shift");
  }
  const LazyOp* r = reduceop();
  if (r && (opt.op == OptOps::GROUP || opt.op == OptOps::GROUPTOP ||
            (group_for_reduces && opt.op != OptOps::NOLOCALS && opt.op != OptOps::PADTO))) {
    int64_t acc_sz = itemsize(r->dtype()), upcast_sz = 1, local_sz = 1;
    for (int i = shape_len() - upcasted; i < shape_len(); i++)
      if (full_shape()[size_t(i)] == output_shape()[size_t(i)]) upcast_sz *= full_shape()[size_t(i)];
    for (int i = first_reduce() - local_dims; i < first_reduce() + group_for_reduces; i++)
      local_sz *= full_shape()[size_t(i)];
    int64_t smem_sz = amt * acc_sz * upcast_sz * local_sz;
    check_opt(smem_sz <= opts.shared_max, "exceeds maximum shared memory size: needs " +
                                              std::to_string(smem_sz) + ", max " +
                                              std::to_string(opts.shared_max));
  }
  switch (opt.op) {
  case OptOps::LOCAL:
    check_opt(opts.has_local, "target does not support local");
    check_opt(axis >= 0 && axis < global_dims(), "local is for globals");
    shift_to(axis, amt, false, first_reduce());
    local_dims += 1;
    break;
  case OptOps::GROUP:
  case OptOps::GROUPTOP:
    check_opt(opts.has_local && opts.has_shared, "target does not support local or shared mem");
    check_opt(axis >= first_reduce() + group_for_reduces && axis < shape_len() - upcasted,
              "must be reduce axis to group");
    check_opt(tensor_core < 0, "can't group with tensor cores");
    shift_to(axis, amt, opt.op == OptOps::GROUPTOP, first_reduce() + group_for_reduces);
    group_for_reduces += 1;
    break;
  case OptOps::UPCASTMID:
    // only for image outputs, which tg does not have
    check_opt(false, "invalid upcast mid reduce");
    break;
  case OptOps::NOLOCALS:
    check_opt(opts.has_local && !dont_use_locals,
              "NOLOCALS is meaningless if target does not support local or already not using locals");
    check_opt(local_dims == 0 && group_for_reduces == 0, "can't have no locals with locals");
    dont_use_locals = true;
    break;
  case OptOps::UNROLL:
    check_opt(axis >= 0 && axis < shape_len() - upcasted, "can't upcasted already upcasted");
    check_opt(amt <= 32, "don't unroll more than 32");
    if (full_shape()[size_t(axis)] == amt && axis == first_reduce()) local_dims += 1;
    if (full_shape()[size_t(axis)] == amt && axis < first_reduce() + group_for_reduces)
      group_for_reduces -= 1;
    shift_to(axis, amt);
    upcast();
    break;
  case OptOps::UPCAST:
    check_opt(axis >= 0 && axis < first_reduce(), "upcast is for non-reduce");
    check_opt(!(tc() && global_dims() <= axis && axis < global_dims() + int(tc()->threads.size())),
              "can't upcast TC locals");
    check_opt(amt <= 8, "don't upcast more than 8");
    shift_to(axis, amt);
    upcast();
    break;
  case OptOps::PADTO: {
    check_opt(axis >= 0 && axis < shape_len() - upcasted, "cannot pad upcasted");
    if (first_reduce() <= axis) {
      const LazyOp* r = reduceop();
      bool safe = r && r->op == Op::SUM;
      if (safe) {
        std::vector<const LazyOp*> inside;
        for (const LazyOpPtr& s : r->src) collect_lazyops(s.get(), inside);
        for (const LazyOp* op : inside) safe = safe && !is_unsafe_pad_op(op->op);
      }
      check_opt(safe, "cannot pad");
    }
    bool padded = false;
    for (ShapeTracker& st : sts) {
      int64_t s = st.shape()[size_t(axis)];
      if (s == 1) continue;
      check_opt(s > amt / 4, "pad adds more than quadruple the work");
      int64_t ru = (s + amt - 1) / amt * amt - s;
      if (ru) {
        std::vector<std::pair<int64_t, int64_t>> arg(st.shape().size(), {0, 0});
        arg[size_t(axis)] = {0, ru};
        st = st.pad(arg);
        padded = true;
      }
    }
    check_opt(padded, "nothing was padded");
    break;
  }
  case OptOps::TC: // (handled above)
    break;
  }
  if (append_opt) applied_opts.push_back(opt);
  if (simplify_ones() && tensor_core_opts) tensor_core_opts->fix_axes(axis);
}

void Kernel::hand_coded_optimizations() {
  // (images and their required optimizations: tg has no image dtypes)
  auto prod_range = [](const Shape& s, int from, int to) {
    int64_t p = 1;
    for (int i = from; i < to; i++) p *= s[size_t(i)];
    return p;
  };

  // should use matvec (tinygrad's MV_BLOCKSIZE, MV_THREADS_PER_ROW, MV_ROWS_PER_THREAD defaults)
  constexpr int64_t MV_BLOCKSIZE = 4, MV_THREADS_PER_ROW = 8, MV_ROWS_PER_THREAD = 4;
  const LazyOp* r = reduceop();
  if (opts.has_local && r && r->op == Op::SUM && full_shape().size() >= 2 && opts.has_shared &&
      r->src[0]->op == Op::MUL && r->src[0]->src[0]->op == Op::LOAD && r->src[0]->src[1]->op == Op::LOAD) {
    const LazyOp* mulop = r->src[0].get();
    const ShapeTracker& st0 = sts[size_t(buffer_index(buffer_of(mulop->src[0].get())))];
    const ShapeTracker& st1 = sts[size_t(buffer_index(buffer_of(mulop->src[1].get())))];
    auto strides0 = st0.real_strides(), strides1 = st1.real_strides();
    auto has_expanded_axis = [](const Shape& shape, const std::vector<std::optional<int64_t>>& strides) {
      for (size_t i = 0; i < shape.size(); i++)
        if (shape[i] > 1 && strides[i] && *strides[i] == 0) return true;
      return false;
    };
    int fr = first_reduce();
    if (size_t(fr) < strides0.size() && strides0[size_t(fr)] && *strides0[size_t(fr)] == 1 &&
        !(has_expanded_axis(st0.shape(), strides0) && has_expanded_axis(st1.shape(), strides1))) {
      for (int global_idx = 0; global_idx < global_dims(); global_idx++) {
        if (full_shape()[size_t(fr)] % MV_THREADS_PER_ROW == 0 &&
            full_shape()[size_t(global_idx)] % (MV_BLOCKSIZE * MV_ROWS_PER_THREAD) == 0) {
          apply_opt({OptOps::GROUP, 0, MV_THREADS_PER_ROW});
          apply_opt({OptOps::LOCAL, global_idx, MV_BLOCKSIZE});
          apply_opt({OptOps::UPCAST, global_idx, MV_ROWS_PER_THREAD});
          return;
        }
      }
    }
  }

  if (opts.has_local && opts.has_shared) {
    // are we grouping? (requires local shape support)
    int fr = first_reduce();
    int64_t out_size = prod_range(sts[0].shape(), 0, fr);
    if (float4_axis(0).empty() && fr <= 2 && fr + 1 <= shape_len() && out_size <= 2048) {
      // TODO (tinygrad's): use 1024 if it's allowed in a smarter way
      for (int64_t sz : out_size <= 32 ? std::vector<int64_t>{256, 16} : std::vector<int64_t>{16}) {
        if (std::all_of(sts.begin(), sts.end(), [&](const ShapeTracker& st) {
              return st.shape()[size_t(fr)] % sz == 0 || st.shape()[size_t(fr)] == 1;
            })) {
          try { // may fail due to excessive smem usage
            apply_opt({OptOps::GROUPTOP, 0, sz});
            break;
          } catch (const KernelOptError&) {
          }
        }
      }
    }
  }

  // no more opt if we are grouping
  if (group_for_reduces) return;

  // upcast small masked axes (they might come from Tensor.stack)
  std::vector<int> to_upcast;
  for (int axis = 0; axis < first_reduce(); axis++) {
    if (!full_shape()[size_t(axis)].is_int()) continue; // (a symbolic axis keeps its loop)
    int64_t size = full_shape()[size_t(axis)];
    bool masked =
        std::any_of(sts.begin(), sts.end(), [&](const ShapeTracker& st) { return st.axis_is_masked(axis); });
    int64_t budget = 1;
    for (int i = shape_len() - upcasted; i < shape_len(); i++) budget *= full_shape()[size_t(i)];
    for (int j : to_upcast) budget *= full_shape()[size_t(j)];
    if (size <= 7 && masked && budget * size <= 7 * 7) to_upcast.push_back(axis);
  }
  for (auto it = to_upcast.rbegin(); it != to_upcast.rend(); ++it) apply_opt({OptOps::UPCAST, *it, 0});

  // upcast axes that some buffer broadcasts along (float4-style reuse)
  std::set<int> upcasted_axes;
  while (true) {
    int64_t out_elems = 1;
    for (int i = 0; i < first_reduce(); i++) out_elems *= output_shape()[size_t(i)].max();
    if (out_elems < 1024) break;
    std::vector<std::tuple<int, int64_t, int, int>> choices;
    for (int axis = 0; axis < first_reduce(); axis++) {
      for (int amount : {3, 4}) {
        if (upcasted_axes.count(axis) || !full_shape()[size_t(axis)].is_int() ||
            full_shape()[size_t(axis)] % amount != 0)
          continue;
        bool ok = false;
        for (size_t b = 0; b < sts.size() && !ok; b++) {
          if (sts[b].views.back().strides[size_t(axis)] != 0) continue;
          auto ua = upcasted_axis(int(b));
          ok = std::none_of(ua.begin(), ua.end(),
                            [](const UpcastAxis& a) { return a.stride && *a.stride == 0; });
        }
        if (!ok) continue;
        int positive = 0;
        int64_t total = 0;
        for (const ShapeTracker& st : sts) {
          int64_t s = st.views.back().strides[size_t(axis)].max(); // (a symbolic stride is positive)
          positive += s > 0;
          total += s;
        }
        choices.push_back({positive, total, axis, amount});
      }
    }
    if (choices.empty()) break;
    std::sort(choices.begin(), choices.end());
    apply_opt({OptOps::UPCAST, std::get<2>(choices[0]), std::get<3>(choices[0])});
    upcasted_axes.insert(std::get<2>(choices[0]));
  }

  // unroll a small last reduce dimension (loop unrolling)
  auto upcast_prod = [&] {
    int64_t p = 1;
    for (int i = shape_len() - upcasted; i < shape_len(); i++) p *= full_shape()[size_t(i)];
    return p;
  };
  if (first_reduce() < shape_len() - upcasted) {
    auto ua = upcasted_axis(full_buf_index);
    bool no_reduce_upcast = std::none_of(ua.begin(), ua.end(), [](const UpcastAxis& a) { return a.reduce; });
    const sint last = full_unupcasted_shape().back(); // (a symbolic one is not unrolled)
    if ((shape_offsets_count(full_buf_index) <= 4 || no_reduce_upcast) &&
        (upcasted == 0 || upcast_prod() < 64) && last.is_int()) {
      int64_t s = last;
      if (s <= 32) {
        apply_opt({OptOps::UNROLL, int(full_unupcasted_shape().size()) - 1 - first_reduce(), 0});
        if (first_reduce() < shape_len() - upcasted && s <= 3 && full_unupcasted_shape().back() <= 3)
          apply_opt({OptOps::UNROLL, int(full_unupcasted_shape().size()) - 1 - first_reduce(), 0});
      } else if (s % 4 == 0) {
        apply_opt({OptOps::UNROLL, int(full_unupcasted_shape().size()) - 1 - first_reduce(), 4});
      }
    }
  }

  // if nothing at all is upcasted and it's easy to, do an upcast
  Shape fu = full_unupcasted_shape();
  if (upcasted == 0 && !fu.empty() && fu.back().is_int() && fu.back() % 4 == 0) {
    try {
      apply_opt({OptOps::UPCAST, int(fu.size()) - 1, 4});
    } catch (const KernelOptError&) {
    }
  }

  // local groups (tinygrad's NOLOCALS environment switch is not read)
  if (opts.has_local) {
    // prioritize making expand axes local
    std::vector<std::pair<bool, int>> local_axis_ranking;
    for (int axis = 0; axis < first_reduce(); axis++) {
      bool expand = std::any_of(sts.begin(), sts.end(), [&](const ShapeTracker& st) {
        return st.views.back().strides[size_t(axis)] == 0;
      });
      local_axis_ranking.push_back({expand, axis});
    }
    std::sort(local_axis_ranking.begin(), local_axis_ranking.end(), [](const auto& a, const auto& b) {
      return std::pair(-int(a.first), -a.second) < std::pair(-int(b.first), -b.second);
    });
    std::vector<std::pair<int, int64_t>> to_local;
    for (const auto& [expand, axis] : local_axis_ranking) {
      int64_t local_size = 1;
      for (const auto& [a, sz] : to_local) local_size *= sz;
      std::vector<int64_t> candidates;
      if (axis == 0) candidates.push_back(32);
      candidates.insert(candidates.end(), {16, 8, 4, 3, 2});
      for (int64_t x : candidates)
        if (full_shape()[size_t(axis)].is_int() && full_shape()[size_t(axis)] % x == 0 &&
            local_size * x <= 128) {
          to_local.push_back({axis, x});
          break;
        }
    }
    if (to_local.size() > 3) to_local.resize(3);
    std::sort(to_local.begin(), to_local.end());
    int deleted_shape = 0;
    for (auto [axis, local_sz] : to_local) {
      axis -= deleted_shape;
      bool will_delete_shape = local_sz == full_shape()[size_t(axis)];
      apply_opt({OptOps::LOCAL, axis, local_sz});
      if (will_delete_shape) deleted_shape += 1;
    }
  }
}

} // namespace tg
