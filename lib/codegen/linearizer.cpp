#include "codegen/linearizer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "util/error.h"

namespace tg {

const UOp* expr_to_uop(const Expr& e, const std::map<std::string, const UOp*>& loops, UOpGraph& g) {
  const ExprNode* n = e.node();
  auto sub = [&](const ExprNode* x) { return expr_to_uop(Expr(x), loops, g); };
  switch (n->kind) {
  case ExprKind::Num:
    return g.cnst_int(n->b);
  case ExprKind::Var: {
    if (auto it = loops.find(n->name); it != loops.end()) return it->second;
    return g.make(UOps::DEFINE_VAR, DType::Int32, {}, VarArg{n->name, n->min, n->max});
  }
  case ExprKind::Mul:
    return g.alu(Op::MUL, {sub(n->a), n->bn ? sub(n->bn) : g.cnst_int(n->b)});
  case ExprKind::Div:
    return g.alu(Op::IDIV, {sub(n->a), g.cnst_int(n->b)});
  case ExprKind::Mod:
    return g.alu(Op::MOD, {sub(n->a), g.cnst_int(n->b)});
  case ExprKind::Lt:
    return g.alu(Op::CMPLT, {sub(n->a), g.cnst_int(n->b)});
  case ExprKind::Sum:
  case ExprKind::And: {
    const UOp* acc = sub(n->nodes[0]);
    Op op = n->kind == ExprKind::Sum ? Op::ADD : Op::MUL;
    for (size_t i = 1; i < n->nodes.size(); i++) acc = g.alu(op, {acc, sub(n->nodes[i])});
    return acc;
  }
  }
  return nullptr;
}

namespace {

Expr make_var(const std::string& name, int64_t min, int64_t max) {
  return min == max ? Expr(min) : Expr::var(name, min, max);
}

// `lane`: the name of the vector-lane variable, which is never expanded ("" when none).
bool is_upcast_var(const Expr& v, const std::string& lane) {
  return v.kind() == ExprKind::Var && v.node()->name.rfind("_uidx", 0) == 0 && v.node()->name != lane;
}

// The upcast variable an index uses (or 0): linearizer.py's expand_idx.
Expr expand_idx(const Expr& node, const std::string& lane) {
  for (const Expr& v : node.vars())
    if (is_upcast_var(v, lane)) return v;
  return Expr(int64_t(0));
}

std::vector<Expr> expand_idxs(const std::vector<Expr>& nodes, const std::string& lane) {
  std::vector<Expr> out;
  for (const Expr& n : nodes) {
    Expr v = expand_idx(n, lane);
    bool seen = std::find(out.begin(), out.end(), v) != out.end() && !v.is_num();
    out.push_back(seen ? Expr(int64_t(0)) : v);
  }
  return out;
}

// Every assignment of the expand variables, the first variable counting fastest.
std::vector<std::vector<int64_t>> iter_idxs(const std::vector<Expr>& vars) {
  std::vector<std::vector<int64_t>> out{{}};
  for (int i = int(vars.size()) - 1; i >= 0; i--) {
    std::vector<std::vector<int64_t>> next;
    for (const auto& prefix : out)
      for (int64_t x = vars[size_t(i)].min(); x <= vars[size_t(i)].max(); x++) {
        auto p = prefix;
        p.push_back(x);
        next.push_back(std::move(p));
      }
    out = std::move(next);
  }
  for (auto& v : out) std::reverse(v.begin(), v.end());
  return out;
}

std::vector<Expr> expand_node(const Expr& node, const std::vector<Expr>& vars) {
  std::vector<Expr> out;
  for (const auto& rep : iter_idxs(vars)) {
    std::vector<std::pair<Expr, Expr>> subs;
    for (size_t i = 0; i < vars.size(); i++)
      if (vars[i].kind() == ExprKind::Var) subs.push_back({vars[i], Expr(rep[i])});
    out.push_back(subs.empty() ? node : node.substitute(subs));
  }
  return out;
}

Scalar reduce_identity(const LazyOp* r) {
  DType dt = r->dtype();
  if (r->op == Op::SUM) return is_float(dt) ? Scalar::of_float(0.0) : Scalar::of_int(0);
  if (is_int(dt)) {
    if (is_unsigned(dt)) return Scalar::of_int(0);
    return Scalar::of_int(itemsize(dt) == 8 ? std::numeric_limits<int64_t>::min()
                                            : -(int64_t(1) << (itemsize(dt) * 8 - 1)));
  }
  if (is_float(dt)) return Scalar::of_float(-INFINITY);
  return Scalar::of_bool(false);
}

// linearizer.py's get_grouped_dims: maps the kernel's global (or local) dims onto at most
// max_sizes.size() launch dimensions, splitting a dim too big for its axis and collapsing extra
// dims onto the left-most axis that has room. idxs: each dim's index; sizes: (x, y, z).
struct GroupedDims {
  std::vector<Expr> idxs, loop_idxs;
  std::vector<int> loop_axes; // the launch axis of each loop_idx
  Shape sizes;                // a symbolic dim is launched at its value (tg-run evaluates it)
};

GroupedDims grouped_dims(const std::string& prefix, int off, const Shape& dims,
                         std::vector<int64_t> max_sizes, bool reverse_dims) {
  if (max_sizes.empty()) max_sizes.assign(dims.size(), std::numeric_limits<int64_t>::max());
  if (max_sizes.empty()) return {};
  struct Part {
    size_t dim_idx;
    sint dim;
  };
  std::vector<std::vector<Part>> size_dims;
  for (size_t i = 0; i < dims.size(); ++i) size_dims.push_back({{i, dims[i]}});
  if (reverse_dims) std::reverse(size_dims.begin(), size_dims.end());
  auto axis_size = [](const std::vector<Part>& parts) {
    sint p = 1;
    for (const Part& x : parts) p = p * x.dim;
    return p;
  };
  for (size_t size_idx = 0; size_idx < std::min(max_sizes.size(), size_dims.size()); ++size_idx) {
    auto [dim_idx, sdim] = size_dims[size_idx][0];
    if (!sdim.is_int()) {
      if (sdim.max() > max_sizes[size_idx])
        fail("NotImplementedError", "tg: symbolic kernel dim " + sdim.str() +
                                        " can be larger than its launch axis (max " +
                                        std::to_string(max_sizes[size_idx]) + ")");
      continue;
    }
    int64_t dim = sdim;
    if (dim <= max_sizes[size_idx]) continue;
    for (int64_t factor = 2; factor * factor <= dim; ++factor)
      if (dim % factor == 0 && dim / factor <= max_sizes[size_idx]) {
        size_dims[size_idx] = {{dim_idx, dim / factor}};
        size_dims.insert(size_dims.begin() + long(size_idx) + 1, std::vector<Part>{{dim_idx, factor}});
        break;
      }
    if (int64_t(size_dims[size_idx][0].dim) > max_sizes[size_idx])
      fail("RuntimeError", "kernel dim " + std::to_string(dim) +
                               " is too large and non-factorable for its launch axis (max " +
                               std::to_string(max_sizes[size_idx]) + ")");
  }
  size_t cur = 0;
  while (size_dims.size() > max_sizes.size()) {
    if ((axis_size(size_dims[cur]) * size_dims[cur + 1][0].dim).max() <= max_sizes[cur]) {
      size_dims[cur].insert(size_dims[cur].end(), size_dims[cur + 1].begin(), size_dims[cur + 1].end());
      size_dims.erase(size_dims.begin() + long(cur) + 1);
    } else if (cur + 1 < max_sizes.size()) {
      ++cur;
    } else {
      fail("RuntimeError", "cannot fit the kernel's dims in its launch size");
    }
  }
  GroupedDims out;
  out.idxs.assign(dims.size(), Expr(int64_t(0)));
  const size_t n = size_dims.size();
  for (size_t i = 0; i < n; ++i) {
    sint size = axis_size(size_dims[i]);
    out.sizes.push_back(size);
    int number = reverse_dims ? int(n) - 1 - (int(i) + off) : int(i) + off;
    std::string name = prefix + std::to_string(number);
    if (!size.is_int()) { // launched at its value, so the index needs no bound of its own
      if (size_dims[i].size() != 1)
        fail("NotImplementedError", "tg: a symbolic kernel dim cannot share a launch axis with another dim");
      Expr var = Expr::var(name, 0, std::max<int64_t>(1, size.max() - 1));
      out.loop_idxs.push_back(var);
      out.loop_axes.push_back(int(i));
      out.idxs[size_dims[i][0].dim_idx] = var;
      continue;
    }
    Expr var = make_var(name, 0, int64_t(size) - 1);
    if (!var.is_num()) {
      // tinygrad numbers SPECIALs by their place among the loop vars; that is the launch axis
      // whenever no axis has size 1, and the axis is right when one has
      out.loop_idxs.push_back(var);
      out.loop_axes.push_back(int(i));
    }
    for (const Part& part : size_dims[i]) {
      int64_t dim = part.dim;
      out.idxs[part.dim_idx] = out.idxs[part.dim_idx] + (var % dim) * (out.idxs[part.dim_idx].max() + 1);
      var = var / dim;
    }
  }
  out.sizes.resize(max_sizes.size(), 1);
  return out;
}

class Linearizer {
public:
  Linearizer(const Kernel& k, UOpGraph& g) : k_(k), g_(g) {}

  const Shape& global_size() const { return global_size_; }
  const std::vector<int64_t>& local_size() const { return local_size_; }

  const UOp* run() {
    std::vector<const UOp*> globals;
    for (size_t i = 0; i < k_.bufs.size(); i++) {
      auto* mb = std::get_if<MemBuffer>(&k_.bufs[i]);
      if (!mb) {
        buf_uops_.push_back(nullptr);
        continue;
      }
      bool is_output = false;
      for (size_t o = 0; o < k_.n_outputs(); o++) is_output |= std::get<MemBuffer>(k_.bufs[o]).idx == mb->idx;
      buf_uops_.push_back(g_.make(UOps::DEFINE_GLOBAL, mb->dtype, {}, GlobalArg{mb->idx, is_output}));
      if (std::find(globals.begin(), globals.end(), buf_uops_.back()) == globals.end())
        globals.push_back(buf_uops_.back());
    }

    const Shape& full = k_.full_shape();
    const int fr = k_.first_reduce(), shape_len = k_.shape_len(), up = k_.upcasted;
    const int gfr = k_.group_for_reduces;
    // a local buffer per reduce for the multistage (grouped) reduce: the local and group
    // dims, then the upcasted ones
    sts_ = k_.sts;
    if (gfr) {
      for (size_t r = 0; r < k_.reduceops.size(); r++) {
        Shape shape(size_t(k_.global_dims()), 1);
        shape.insert(shape.end(), full.begin() + k_.global_dims(), full.begin() + fr + gfr);
        shape.insert(shape.end(), size_t(shape_len - up - gfr - fr), 1);
        for (const Kernel::UpcastAxis& a : k_.upcasted_axis(0)) shape.push_back(a.size);
        sts_.push_back(ShapeTracker::from_shape(shape));
        std::string name = k_.reduceops.size() > 1 ? "temp" + std::to_string(r) : "temp";
        DType dt = k_.reduceop()->dtype();
        local_bufs_.push_back({name, dt});
        buf_uops_.push_back(g_.make(UOps::DEFINE_LOCAL, dt, {}, LocalArg{name, sts_.back().size()}));
      }
    }

    // tensor cores: each matmul input gets a local buffer shaped for the warp (tinygrad's late
    // alias; its only use is the shape, which places each thread's elements)
    if (k_.tc() && k_.tensor_core_opts) {
      const TensorCore& tc = *k_.tc();
      std::vector<int> pattern;
      auto add = [&](int64_t n, int v) { pattern.insert(pattern.end(), size_t(std::max<int64_t>(n, 0)), v); };
      add(k_.global_dims(), 0);
      add(int64_t(tc.threads.size()), 2);
      add(k_.local_dims - int64_t(tc.threads.size()), 0); // (Python's [0]*n: none when n < 0)
      add(shape_len - up - fr, 0);
      add(2, 1);
      add(up - 2, 3);
      for (const auto& [op, bufs] : k_.bufs_for_tensor_core)
        for (int b : {bufs.first, bufs.second}) alias_buffer(op, b, pattern);
    }

    std::vector<Expr> global_idxs;
    if (k_.opts.has_local) {
      // work-items: global dims are group ids (the last dim is x), local dims local ids
      Shape gl(full.begin(), full.begin() + fr + gfr);
      GroupedDims g =
          grouped_dims(k_.dont_use_locals ? "idx" : "gidx", 0,
                       Shape(gl.begin(), gl.begin() + k_.global_dims()), k_.opts.global_max, true);
      GroupedDims l = grouped_dims("lidx", k_.global_dims(), Shape(gl.begin() + k_.global_dims(), gl.end()),
                                   k_.opts.local_max, false);
      for (size_t i = 0; i < g.loop_idxs.size(); ++i) {
        special(g.loop_idxs[i], g.loop_axes[i]);
        const sint& size = g.sizes[size_t(g.loop_axes[i])];
        if (!size.is_int()) idx_ends_.emplace_back(g.loop_idxs[i].node(), size.expr());
      }
      if (!k_.dont_use_locals)
        for (size_t i = 0; i < l.loop_idxs.size(); ++i) special(l.loop_idxs[i], l.loop_axes[i]);
      global_size_ = g.sizes;
      local_size_ = shape_ints(l.sizes);
      global_idxs = g.idxs;
      local_idxs_ = l.idxs;
    } else {
      // global dims: one loop each (no local memory on this target)
      std::vector<Expr> loop_global_idxs;
      for (int i = 0; i < k_.global_dims(); i++) {
        Expr v = loop_var("gidx" + std::to_string(i), full[size_t(i)]);
        global_idxs.push_back(v);
        if (!v.is_num()) loop_global_idxs.push_back(v);
      }
      render_loop(loop_global_idxs, 1, false);
    }
    for (int i = shape_len - up; i < shape_len; i++) {
      int j = i - (shape_len - up);
      upcast_idxs_.push_back(make_var("_uidx" + std::to_string(j), 0, k_.output_shape()[size_t(i)] - 1));
      full_upcast_idxs_.push_back(make_var("_uidx" + std::to_string(j), 0, full[size_t(i)] - 1));
    }
    if (k_.lanes > 1) {
      // (reduce lanes: the upcast reduce axis, 0 in the output's indices, is in the full ones)
      const std::vector<Expr>& lane_idxs = k_.reduce_lanes ? full_upcast_idxs_ : upcast_idxs_;
      if (lane_idxs.empty() || lane_idxs[0].is_num() || lane_idxs[0].max() + 1 != k_.lanes ||
          k_.reduceops.size() > 1 || gfr)
        fail("RuntimeError", "linearize: vector lanes need an output axis of " + std::to_string(k_.lanes) +
                                 " as the first upcast axis, and at most one reduce");
      lanes_ = k_.lanes;
      lane_var_ = lane_idxs[0];
      lane_name_ = lane_var_.node()->name;
    }
    for (int i = fr + gfr; i < shape_len - up; i++) {
      reduce_idxs_.push_back(loop_var("ridx" + std::to_string(i), full[size_t(i)]));
      fake_reduce_idxs_.push_back(Expr(int64_t(0)));
    }
    global_idxs_ = global_idxs;
    index_local_aliases();

    for (size_t r = 0; r < k_.reduceops.size(); r++) render_reduceop(k_.reduceops[r], int(r));

    // late buffers, then the AST after the reduce
    std::vector<Expr> late = concat(global_idxs_, local_idxs_, fake_reduce_idxs_, upcast_idxs_);
    for (size_t i = 0; i < k_.bufs.size(); i++)
      if (!k_.is_early(k_.bufs[i])) loaded_[int(i)] = global_load(int(i), late);
    std::vector<const UOp*> sinks;
    for (size_t o = 0; o < k_.n_outputs(); o++) {
      std::map<const LazyOp*, std::vector<const UOp*>> cache;
      auto vals = ast_parse(k_.ast[o]->src[0].get(), accs_, nullptr, nullptr, cache);
      for (const UOp* s : global_store(int(o), late, vals)) sinks.push_back(s);
    }
    sinks.insert(sinks.end(), globals.begin(), globals.end());
    return g_.make(UOps::SINK, std::nullopt, sinks);
  }

private:
  using Accs = std::map<const LazyOp*, std::vector<const UOp*>>;

  static std::vector<Expr> concat(const std::vector<Expr>& a, const std::vector<Expr>& b,
                                  const std::vector<Expr>& c, const std::vector<Expr>& d) {
    std::vector<Expr> out = a;
    out.insert(out.end(), b.begin(), b.end());
    out.insert(out.end(), c.begin(), c.end());
    out.insert(out.end(), d.begin(), d.end());
    return out;
  }
  static std::vector<Expr> zeros(const std::vector<Expr>& a) {
    return std::vector<Expr>(a.size(), Expr(int64_t(0)));
  }

  bool is_local_buf(int i) const { return size_t(i) >= k_.bufs.size(); }

  // tinygrad's get_float4_upcast_dim: buffer i's unit-stride upcast axes (longer than 1), on a
  // target with float4 (GPU, CUDA), for a float buffer, or a half one where the target has half
  // vectors (CUDA; tg's OpenCL computes half as float and stores it lane by lane); none where
  // the kernel has lanes.
  std::vector<int> float4_upcast_dims(int i) const {
    if (!k_.opts.supports_float4 || lanes_ > 1) return {};
    DType dt =
        is_local_buf(i) ? local_bufs_[size_t(i) - k_.bufs.size()].second : buffer_dtype(k_.bufs[size_t(i)]);
    if (dt != DType::Float32 && !(dt == DType::Float16 && k_.opts.half_vectors)) return {};
    const ShapeTracker& st = sts_[size_t(i)];
    std::vector<int> out;
    for (int x : st.unit_stride_axes())
      if (x >= k_.shape_len() - k_.upcasted && st.shape()[size_t(x)] > 1) out.push_back(x);
    return out;
  }

  const UOp* render(const Expr& e) { return expr_to_uop(e, loop_uops_, g_); }

  void special(const Expr& v, int dim) {
    const std::string& name = v.node()->name;
    loop_uops_[name] = g_.make(UOps::SPECIAL, DType::Int32, {}, SpecialArg{dim, name, v.max() + 1});
  }

  // A loop variable over a dimension. Over a symbolic one its bounds are the largest the
  // dimension can be (what the simplifier may assume), and its loop ends at the dimension's
  // value, a DEFINE_VAR expression (symbolic_ends_).
  Expr loop_var(const std::string& name, const sint& size) {
    if (size.is_int()) return make_var(name, 0, int64_t(size) - 1);
    symbolic_ends_[name] = size.expr();
    Expr v = Expr::var(name, 0, std::max<int64_t>(1, size.max() - 1)); // (a Var even when max is 1)
    idx_ends_.emplace_back(v.node(), size.expr());
    return v;
  }

  std::vector<const UOp*> render_loop(const std::vector<Expr>& vars, int depth, bool reduce) {
    std::vector<const UOp*> loops;
    for (size_t i = 0; i < vars.size(); i++) {
      if (vars[i].is_num()) continue;
      auto sym = symbolic_ends_.find(vars[i].node()->name);
      const UOp* end = sym != symbolic_ends_.end() ? render(sym->second) : g_.cnst_int(vars[i].max() + 1);
      const UOp* range = g_.make(UOps::RANGE, DType::Int32, {g_.cnst_int(vars[i].min()), end},
                                 LoopArg{depth, int(i), reduce});
      loop_uops_[vars[i].node()->name] = range;
      loops.push_back(range);
    }
    return loops;
  }

  int buffer_of(const LazyOp* op) const {
    KernelBuffer b = std::holds_alternative<MemBuffer>(op->arg)
                         ? KernelBuffer(std::get<MemBuffer>(op->arg))
                         : KernelBuffer(std::get<ConstBuffer>(op->arg));
    return k_.buffer_index(b, int(k_.n_outputs()));
  }

  // One UOp per upcast combination: a load, a constant, or (acc set) an accumulator.
  // i: a buffer of the kernel, or (past them) a local buffer; acc_buf: the buffer number an
  // accumulator records (tinygrad's negative index of a local buffer)
  std::vector<const UOp*> global_load(int i, const std::vector<Expr>& idxs, const LazyOp* acc = nullptr,
                                      const std::vector<const UOp*>& loop_ctx = {},
                                      const UOp* barrier = nullptr) {
    const bool local = is_local_buf(i);
    const KernelBuffer* buf = local ? nullptr : &k_.bufs[size_t(i)];
    const size_t local_i = local ? size_t(i) - k_.bufs.size() : 0;
    DType localtype = acc ? acc->dtype() : local ? local_bufs_[local_i].second : buffer_dtype(*buf);
    const ConstBuffer* cb = local ? nullptr : std::get_if<ConstBuffer>(buf);
    const int acc_buf = local ? int(local_i) - int(local_bufs_.size()) : i;
    std::vector<Expr> expand_vars = expand_idxs(idxs, lane_name_);
    // float4 grouping: 2 or 4 upcast elements consecutive in memory, at an aligned index, load
    // as one vector (an accumulator as one vector variable); each is a GEP of it
    int dim = -1, amt = 1;
    Expr g_idx, g_valid;
    if (auto dims = float4_upcast_dims(i); dims.size() == 1) {
      std::vector<Expr> f4 =
          expand_node(idxs[size_t(dims[0])], {expand_idx(idxs[size_t(dims[0])], lane_name_)});
      if (f4.size() == 4 || f4.size() == 2) {
        dim = dims[0], amt = int(f4.size());
        std::vector<Expr> first = idxs;
        first[size_t(dim)] = f4[0];
        std::tie(g_idx, g_valid) = sts_[size_t(i)].expr_idxs(first, idx_ends_);
        if ((g_idx.floordiv(amt) * amt).node()->canonical != g_idx.node()->canonical) dim = -1, amt = 1;
      }
    }
    if (dim < 0) std::tie(g_idx, g_valid) = sts_[size_t(i)].expr_idxs(idxs, idx_ends_);
    std::vector<Expr> e_idxs = expand_node(g_idx, expand_vars), e_valids = expand_node(g_valid, expand_vars);
    std::vector<std::vector<int64_t>> reps;
    if (dim >= 0) reps = iter_idxs(expand_vars);
    std::vector<const UOp*> ret;
    int acc_count = 0;
    int acc_index = -1;
    if (acc) acc_index = int(std::find(k_.reduceops.begin(), k_.reduceops.end(), acc) - k_.reduceops.begin());
    for (size_t n = 0; n < e_idxs.size(); n++) {
      Expr idx = e_idxs[n], valid = e_valids[n];
      std::optional<Scalar> this_const = cb ? std::optional<Scalar>(cb->val) : std::nullopt;
      if (valid.max() == 0) {
        this_const = Scalar::of_int(0);
        idx = Expr(int64_t(0));
        valid = Expr(int64_t(1));
      }
      // tinygrad keys by text: f"CONST{value}" or the buffer, then the rendered idx and valid.
      // Here: the constant's kind and bits or the buffer number, and canonical nodes (equal
      // exactly when the rendered text is).
      int what = this_const && !acc ? 1 + int(this_const->kind) : 0;
      uint64_t which = what ? this_const->bits() : uint64_t(i);
      auto key = std::tuple(acc_index, int(localtype), amt, what, which, idx.node()->canonical,
                            valid.node()->canonical);
      auto it = load_cache_.find(key);
      if (it == load_cache_.end()) {
        const UOp* u;
        if (acc) {
          std::vector<const UOp*> src{g_.cnst(localtype, reduce_identity(acc))};
          src.insert(src.end(), loop_ctx.begin(), loop_ctx.end());
          u = g_.make(UOps::DEFINE_ACC, localtype, src,
                      AccArg{acc_buf, acc_count++,
                             has_lane(idx) || has_lane(valid) || k_.reduce_lanes ? lanes_ : amt});
        } else if (has_lane(valid) || (!this_const && has_lane(idx))) {
          u = lane_load(i, idx, valid, localtype, this_const, barrier);
        } else if (this_const) {
          // (a vector constant's GEP is the constant: tinygrad's rewrite folds it so)
          u = const_value(localtype, *this_const, valid);
        } else {
          u = load_uop(i, render(idx), valid, localtype, barrier, amt > 1 ? UOpArg(amt) : UOpArg{});
        }
        it = load_cache_.emplace(key, u).first;
      }
      const UOp* u = it->second;
      ret.push_back(dim >= 0 && u->vcount > 1 ? g_.make(UOps::GEP, localtype, {u}, int(reps[n][size_t(dim)]))
                                              : u);
    }
    return ret;
  }

  std::vector<const UOp*> global_store(int i, const std::vector<Expr>& idxs,
                                       const std::vector<const UOp*>& vals) {
    std::vector<Expr> expand_vars = expand_idxs(idxs, lane_name_);
    std::vector<std::vector<Expr>> per_dim;
    for (const Expr& idx : idxs) per_dim.push_back(expand_node(idx, expand_vars));
    size_t combos = idxs.empty() ? 1 : per_dim[0].size();
    // as tinygrad's dict: a repeated index keeps its last value, at its first position
    std::vector<std::pair<std::vector<Expr>, const UOp*>> stores;
    for (size_t n = 0; n < combos && n < vals.size(); n++) {
      std::vector<Expr> key;
      for (auto& d : per_dim) key.push_back(d[n]);
      auto it = std::find_if(stores.begin(), stores.end(), [&](auto& s) { return s.first == key; });
      if (it != stores.end())
        it->second = vals[n];
      else
        stores.push_back({key, vals[n]});
    }
    // float4 grouping: the values of 2 or 4 consecutive elements store as one vector
    if (auto dims = float4_upcast_dims(i); dims.size() == 1) {
      const size_t dim = size_t(dims[0]);
      std::vector<Expr> f4 = expand_node(idxs[dim], {expand_idx(idxs[dim], lane_name_)});
      if (f4.size() == 4 || f4.size() == 2) {
        std::vector<std::pair<std::vector<Expr>, std::vector<const UOp*>>> groups;
        for (auto& [key, val] : stores) {
          std::vector<Expr> k = key;
          k[dim] = f4[0];
          auto g = std::find_if(groups.begin(), groups.end(), [&](auto& x) { return x.first == k; });
          if (g == groups.end()) groups.push_back({k, {}}), g = groups.end() - 1;
          g->second.push_back(val);
        }
        // (tinygrad asserts float4 stores are aligned; an unaligned group stays scalar stores)
        bool aligned = std::all_of(groups.begin(), groups.end(), [&](auto& x) {
          Expr idx = sts_[size_t(i)].expr_idxs(x.first, idx_ends_).first;
          int64_t n = int64_t(x.second.size());
          return n == 1 || (idx.floordiv(n) * n).node()->canonical == idx.node()->canonical;
        });
        if (aligned) {
          std::vector<std::pair<std::vector<Expr>, const UOp*>> grouped;
          for (auto& [k, vs] : groups)
            grouped.push_back({k, vs.size() == 1 ? vs[0] : vectorize(*vs[0]->dtype, vs)});
          stores = std::move(grouped);
        }
      }
    }
    std::vector<const UOp*> out;
    for (auto& [key, val] : stores) {
      auto [idx, valid] = sts_[size_t(i)].expr_idxs(key, idx_ends_);
      if (has_lane(idx) || has_lane(valid)) {
        lane_store(i, idx, valid, val, out);
        continue;
      }
      // every lane writes the one address: the last one's value stays, as when unrolled (a
      // float4 group, where there are no lanes, stores its vector)
      if (val->vcount > 1 && lanes_ > 1) val = g_.make(UOps::GEP, val->dtype, {val}, val->vcount - 1);
      std::vector<const UOp*> src{buf_uops_[size_t(i)], render(idx), val};
      if (valid.min() != 1) src.push_back(render(valid));
      out.push_back(g_.make(UOps::STORE, std::nullopt, src));
    }
    return out;
  }

  // linearizer.py's render_reduceop: the reduce loop into accumulators; with grouped reduce
  // dims, each work-item's partial accumulators go to a local buffer and the first work-item
  // of the group reduces them after a barrier.
  void render_reduceop(const LazyOp* reduceop, int r) {
    const int gfr = k_.group_for_reduces, nreduce = int(k_.reduceops.size());
    std::vector<Expr> local_idxs = local_idxs_;
    std::vector<const UOp*> loop_ctx = render_loop(reduce_idxs_, r * 2 + 2, true);
    const int out_buf = gfr ? int(k_.bufs.size()) + r : 0;
    accs_[reduceop] = global_load(out_buf, concat(global_idxs_, local_idxs, fake_reduce_idxs_, upcast_idxs_),
                                  reduceop, loop_ctx);
    if (k_.tc()) {
      render_wmma(reduceop);
      load_cache_.clear();
      return;
    }
    std::vector<Expr> early = concat(global_idxs_, local_idxs, reduce_idxs_, full_upcast_idxs_);
    for (size_t i = 0; i < k_.bufs.size(); i++)
      if (k_.is_early(k_.bufs[i])) loaded_[int(i)] = global_load(int(i), early);
    // accumulators of earlier reduces, masked where the full buffer is invalid
    Accs local_accs;
    auto valids = expand_node(sts_[size_t(k_.full_buf_index)].expr_idxs(early, idx_ends_).second,
                              expand_idxs(early, lane_name_));
    for (auto& [op, accs] : accs_) {
      std::vector<const UOp*> gated;
      for (size_t n = 0; n < accs.size(); n++) {
        const UOp* a = accs[n];
        // (kernels with lanes have one reduce, whose own accumulators are not read here)
        if (n < valids.size() && valids[n].min() == 0 && valids[n].max() == 1 && !has_lane(valids[n]))
          a = g_.alu(Op::WHERE, {render(valids[n]), a, g_.cnst(op->dtype(), Scalar::of_int(0))});
        gated.push_back(a);
      }
      local_accs[op] = gated;
    }
    std::vector<int> offs = lane_offsets(k_.acc_offsets(k_.full_buf_index));
    std::map<const LazyOp*, std::vector<const UOp*>> cache;
    ast_parse(reduceop, local_accs, &offs, &accs_[reduceop], cache);
    load_cache_.clear();
    if (!gfr) return;

    // end the local loop, do the local reduce
    const int global_dims = k_.global_dims(), local_dims = k_.local_dims, fr = k_.first_reduce();
    const ShapeTracker& temp_st = sts_[size_t(out_buf)];
    std::vector<Expr> fake_global_idxs = zeros(global_idxs_);
    std::vector<const UOp*> stores = global_store(
        out_buf, concat(fake_global_idxs, local_idxs, fake_reduce_idxs_, upcast_idxs_), accs_[reduceop]);
    const UOp* barrier = g_.make(UOps::BARRIER, std::nullopt, stores);
    if (k_.opts.has_local) {
      std::vector<Expr> fake_idxs(temp_st.shape().size(), Expr(int64_t(0)));
      for (size_t j = size_t(local_dims); j < local_idxs.size(); j++)
        fake_idxs[size_t(global_dims) + j] = local_idxs[j];
      const UOp* if_cond = render(temp_st.expr_idxs(fake_idxs, idx_ends_).first.lt(1));
      barrier = g_.make(UOps::IF, std::nullopt, {if_cond, barrier});
    }
    // new late reduce loops over the group dims replace their local ids
    std::vector<Expr> end_local_idxs;
    for (int i = 0; i < fr + gfr; i++)
      end_local_idxs.push_back(
          make_var("tidx" + std::to_string(i), 0, i >= fr ? int64_t(k_.full_shape()[size_t(i)]) - 1 : 0));
    local_idxs.resize(size_t(local_dims));
    local_idxs.insert(local_idxs.end(), end_local_idxs.begin() + global_dims + local_dims,
                      end_local_idxs.end());
    // (group dims that are not reduces come from UPCASTMID, which needs images)

    // late reduce loop, late accumulator, the local buffer's values
    loop_ctx = render_loop(end_local_idxs, r * 2 + 3, true);
    std::vector<Expr> late = concat(fake_global_idxs, local_idxs, fake_reduce_idxs_, upcast_idxs_);
    accs_[reduceop] = global_load(0, late, reduceop, loop_ctx);
    std::vector<const UOp*> temp_vals = global_load(out_buf, late, nullptr, {}, barrier);
    reduce_into(reduceop->op, temp_vals, k_.acc_offsets(temp_st), accs_[reduceop]);
    load_cache_.clear();

    if (r != nreduce - 1) {
      // later reduces read this one's result: every work-item loads it from the local buffer
      std::vector<Expr> fake_local_idxs(local_idxs.begin(), local_idxs.begin() + local_dims);
      fake_local_idxs.resize(local_idxs.size(), Expr(int64_t(0)));
      std::vector<Expr> idxs = concat(fake_global_idxs, fake_local_idxs, fake_reduce_idxs_, upcast_idxs_);
      stores = global_store(out_buf, idxs, accs_[reduceop]);
      barrier = g_.make(UOps::BARRIER, std::nullopt, stores);
      accs_[reduceop] = global_load(out_buf, idxs, nullptr, {}, barrier);
    } else {
      // the group dims' ids are no longer valid after the reduce
      local_idxs.resize(size_t(local_dims));
      local_idxs.resize(size_t(local_dims + gfr), Expr(int64_t(0)));
      local_idxs_ = local_idxs;
    }
  }

  // ---- tensor cores ----
  // kernel.py's alias_buffer: a local buffer for buffer i whose strides follow `pattern`'s
  // priorities (1 first: the unrolled K and first upcast; 2: the warp threads; 3: upcasts)
  void alias_buffer(const LazyOp* op, int i, const std::vector<int>& pattern) {
    const ShapeTracker& st = sts_[size_t(i)];
    if (pattern.size() != st.shape().size())
      fail("RuntimeError", "linearize: a tensor core's alias pattern has " + std::to_string(pattern.size()) +
                               " dims for a buffer of " + std::to_string(st.shape().size()));
    auto real = st.real_strides();
    Shape shp(st.shape().size()), stride(st.shape().size(), 0);
    for (size_t j = 0; j < shp.size(); j++) shp[j] = pattern[j] != 0 ? st.shape()[j] : sint(1);
    int64_t bst = 1;
    const int top = *std::max_element(pattern.begin(), pattern.end());
    for (int priority = 1; priority <= top; priority++)
      for (size_t j = 0; j < pattern.size(); j++)
        if (pattern[j] == priority && !(real[j] && *real[j] == 0)) {
          stride[j] = bst;
          bst *= shp[j];
        }
    sts_.push_back(ShapeTracker{{View::create(shp, stride)}});
    std::string name = "ldata" + std::to_string(i);
    local_bufs_.push_back({name, DType::Float32});
    buf_uops_.push_back(g_.make(UOps::DEFINE_LOCAL, DType::Float32, {}, LocalArg{name, sts_.back().size()}));
    auto& aliases = local_alias_[op];
    auto it = std::find_if(aliases.begin(), aliases.end(), [&](const auto& a) { return a.first == i; });
    if (it != aliases.end())
      it->second = int(sts_.size()) - 1;
    else
      aliases.push_back({i, int(sts_.size()) - 1});
  }

  // the index expressions of a tensor core's operand: each entry of `aliases` combines local
  // ids (i > 0) and the thread's element number _uidx_tc split by local_sizes (-i)
  std::vector<Expr> calc_tc_idxs(const std::vector<int>& local_sizes,
                                 const std::vector<std::vector<int>>& aliases,
                                 const std::vector<Expr>& local_idxs) const {
    int64_t total = 1;
    for (int s : local_sizes) total *= s;
    Expr thread_idx = Expr::var("_uidx_tc", 0, total - 1);
    std::vector<Expr> thread_idxs, out;
    for (int s : local_sizes) {
      thread_idxs.push_back(thread_idx % s);
      thread_idx = thread_idx / s;
    }
    for (const std::vector<int>& alias : aliases) {
      Expr full(int64_t(0));
      int64_t size = 1;
      if (alias[0] != 0)
        for (int i : alias) {
          const Expr& next = i > 0 ? local_idxs[size_t(i - 1)] : thread_idxs[size_t(-i - 1)];
          full = full + next * size;
          size *= next.max() + 1;
        }
      out.push_back(full);
    }
    return out;
  }

  // linearizer.py's index_local_aliases: each aliased input's indices with the tensor core's
  // thread and element layout in place of its local and upcast dims; the output's local and
  // upcast indices likewise
  void index_local_aliases() {
    const TensorCore* tc = k_.tc();
    const int shape_len = k_.shape_len(), up = k_.upcasted;
    std::vector<Expr> all = concat(global_idxs_, local_idxs_, reduce_idxs_, full_upcast_idxs_);
    for (const auto& [op, aliases] : local_alias_) {
      int min_alias = aliases[0].first;
      for (const auto& a : aliases) min_alias = std::min(min_alias, a.first);
      for (const auto& [i, local_i] : aliases) {
        auto strides = k_.sts[size_t(i)].real_strides();
        std::vector<Expr> idxs;
        for (size_t j = 0; j < std::min(all.size(), strides.size()); j++)
          idxs.push_back(strides[j] && *strides[j] == 0 ? Expr(int64_t(0)) : all[j]);
        if (tc) {
          size_t which = size_t(i - min_alias);
          std::vector<Expr> rep =
              calc_tc_idxs(tc->thread_local_sizes.at(which), tc->thread_local_aliases.at(which), local_idxs_);
          for (size_t n = 0; n < tc->threads.size(); n++) idxs[size_t(k_.global_dims()) + n] = rep[n];
          for (size_t n = 0; n < size_t(tc->num_upcasts()); n++)
            idxs[size_t(shape_len - up) + n] = rep[tc->threads.size() + n];
        }
        alias_idxs_[op].push_back({i, local_i, idxs});
      }
    }
    if (tc) {
      std::vector<Expr> rep =
          calc_tc_idxs(tc->thread_local_sizes[2], tc->thread_local_aliases[2], local_idxs_);
      for (size_t n = 0; n < tc->threads.size(); n++) local_idxs_[n] = rep[n];
      for (size_t n = 0; n + tc->threads.size() < rep.size(); n++)
        upcast_idxs_[n] = rep[tc->threads.size() + n];
    }
  }

  // linearizer.py's tensor-core reduce: the inputs' elements (loaded per thread as the aliases
  // place them) packed into vectors, a chain of WMMAs per output tile, PHIs back to the accs
  void render_wmma(const LazyOp* reduceop) {
    const TensorCore& tc = *k_.tc();
    struct ToStore {
      int local_i;
      std::vector<const UOp*> vals;
    };
    std::vector<ToStore> locals;
    for (const auto& [i, local_i, idxs] : alias_idxs_[reduceop])
      locals.push_back({local_i, global_load(i, idxs)});
    if (locals.size() < 2) fail("RuntimeError", "linearize: a tensor core needs two aliased inputs");
    std::array<int, 3> sz{};
    for (size_t j = 0; j < 3; j++) {
      sz[j] = 1;
      for (int x : tc.thread_local_sizes[j]) sz[j] *= x;
    }
    // each operand's upcast axes past the tensor core's own: (stride in its vectors, size)
    auto upcast_strides = [&](const ShapeTracker& st) {
      std::vector<std::pair<int64_t, int64_t>> out;
      int64_t next = 1;
      auto axes = k_.upcasted_axis(st);
      for (size_t a = size_t(tc.num_upcasts()); a < axes.size(); a++) {
        bool zero = axes[a].stride && *axes[a].stride == 0;
        out.push_back({zero ? 0 : next, axes[a].size});
        next *= zero ? 1 : axes[a].size;
      }
      return out;
    };
    const std::array<std::vector<std::pair<int64_t, int64_t>>, 3> upcasts{
        upcast_strides(sts_[size_t(locals[0].local_i)]), upcast_strides(sts_[size_t(locals[1].local_i)]),
        upcast_strides(sts_[0])};
    const WmmaArg arg{tc.name(), tc.dims, tc.dtype_in, tc.dtype_out, sz};
    std::vector<const UOp*>& accs = accs_[reduceop];
    std::vector<const UOp*> wmmas;
    for (size_t x = 0; x < accs.size(); x += size_t(sz[2]))
      wmmas.push_back(
          vectorize(tc.dtype_out,
                    std::vector<const UOp*>(accs.begin() + long(x), accs.begin() + long(x + size_t(sz[2])))));
    auto slice = [](const std::vector<const UOp*>& v, int64_t from, int64_t n) {
      return std::vector<const UOp*>(v.begin() + from,
                                     v.begin() + std::min<int64_t>(from + n, int64_t(v.size())));
    };
    // every combination of the first input's upcasts, the first counting fastest
    std::vector<int64_t> it(upcasts[0].size(), 0);
    while (true) {
      std::array<int64_t, 3> offs{};
      for (size_t j = 0; j < 3; j++) {
        int64_t o = 0;
        for (size_t a = 0; a < std::min(it.size(), upcasts[j].size()); a++) o += it[a] * upcasts[j][a].first;
        offs[j] = o * sz[j];
      }
      const UOp* a = vectorize(tc.dtype_in, slice(locals[0].vals, offs[0], sz[0]));
      const UOp* b = vectorize(tc.dtype_in, slice(locals[1].vals, offs[1], sz[1]));
      const size_t w = size_t(offs[2] / sz[2]);
      wmmas.at(w) = g_.make(UOps::WMMA, tc.dtype_out, {a, b, wmmas[w]}, arg);
      size_t a_i = 0;
      while (a_i < it.size() && ++it[a_i] == upcasts[0][a_i].second) it[a_i++] = 0;
      if (a_i == it.size()) break;
    }
    for (size_t z = 0; z < accs.size(); z++)
      accs[z] = g_.make(
          UOps::PHI, tc.dtype_out,
          {accs[z], g_.make(UOps::GEP, tc.dtype_out, {wmmas[z / size_t(sz[2])]}, int(z % size_t(sz[2])))});
  }

  // Kernel::reduce_lanes: each accumulator's lanes reduced in lane order, after the loop
  std::vector<const UOp*> across_lanes(Op op, const std::vector<const UOp*>& accs) {
    std::vector<const UOp*> out;
    for (const UOp* a : accs) {
      const UOp* v = lane(a, 0);
      for (int l = 1; l < a->vcount; l++) v = g_.alu(op == Op::SUM ? Op::ADD : Op::MAX, {v, lane(a, l)});
      out.push_back(v);
    }
    return out;
  }

  // acc[off] = acc[off] <op> value for each value, then PHIs for the changed accumulators
  std::vector<const UOp*> reduce_into(Op op, const std::vector<const UOp*>& values,
                                      const std::vector<int>& offs, std::vector<const UOp*>& acc) {
    Op alu = op == Op::SUM ? Op::ADD : Op::MAX;
    std::vector<const UOp*> ret, input_acc = acc;
    for (size_t n = 0; n < offs.size() && n < values.size(); n++) {
      size_t off = size_t(offs[n]);
      acc[off] = lane_alu(alu, {values[n], acc[off]});
      ret.push_back(acc[off]);
    }
    for (size_t off = 0; off < acc.size(); off++)
      if (input_acc[off] != acc[off])
        acc[off] = g_.make(UOps::PHI, input_acc[off]->dtype, {input_acc[off], acc[off]});
    return ret;
  }

  // `cache` holds each LazyOp's values once: the AST is a DAG whose shared subexpressions
  // (threefry reuses every round's values) would otherwise be walked as a tree.
  std::vector<const UOp*> ast_parse(const LazyOp* x, const Accs& accs, const std::vector<int>* offs,
                                    std::vector<const UOp*>* reduce_acc,
                                    std::map<const LazyOp*, std::vector<const UOp*>>& cache) {
    if (auto it = cache.find(x); it != cache.end()) return it->second;
    if (x->op == Op::LOAD || x->op == Op::CONST) return loaded_.at(buffer_of(x));
    if (x->op == Op::CAST || x->op == Op::BITCAST) {
      std::vector<const UOp*> out;
      for (const UOp* u : ast_parse(x->src[0].get(), accs, offs, nullptr, cache))
        out.push_back(per_lane(u->vcount, [&](int l) {
          return g_.make(x->op == Op::CAST ? UOps::CAST : UOps::BITCAST, std::get<DType>(x->arg),
                         {lane(u, l)});
        }));
      cache[x] = out;
      return out;
    }
    if (is_reduce(x->op) && !reduce_acc) {
      const auto& a = k_.reduce_lanes && !offs ? across_lanes(x->op, accs.at(x)) : accs.at(x);
      if (!offs) return a;
      std::vector<const UOp*> out;
      for (int o : *offs) out.push_back(a.at(size_t(o)));
      return out;
    }
    std::vector<std::vector<const UOp*>> values;
    for (const LazyOpPtr& s : x->src) values.push_back(ast_parse(s.get(), accs, offs, nullptr, cache));
    std::vector<const UOp*> ret;
    if (is_reduce(x->op)) {
      ret = reduce_into(x->op, values[0], *offs, *reduce_acc);
    } else {
      for (size_t n = 0; n < values[0].size(); n++) {
        std::vector<const UOp*> src;
        for (auto& v : values) src.push_back(v[n]);
        ret.push_back(lane_alu(x->op, src));
      }
    }
    cache[x] = ret;
    return ret;
  }

  // ---- vector lanes (Kernel::lanes) ----
  bool has_lane(const Expr& e) const {
    if (lanes_ == 1) return false;
    for (const Expr& v : e.vars())
      if (v.node()->name == lane_name_) return true;
    return false;
  }
  Expr at_lane(const Expr& e, int64_t l) const { return e.substitute({{lane_var_, Expr(l)}}); }
  // base, when lane l of `e` is base + l for every lane: consecutive elements
  std::optional<Expr> consecutive_base(const Expr& e) const {
    Expr base = at_lane(e, 0);
    if (has_lane(base)) return std::nullopt;
    if ((base + lane_var_).render() == e.render()) return base;
    for (int64_t l = 1; l < lanes_; l++)
      if (at_lane(e, l).render() != (base + Expr(l)).render()) return std::nullopt;
    return base;
  }
  // base, when lane l of `e` is base + 2*l (a stride-2 conv's image row)
  std::optional<Expr> stride2_base(const Expr& e) const {
    Expr base = at_lane(e, 0);
    if (has_lane(base) || !has_lane(e) || at_lane(e, 1) - base != Expr(int64_t(2))) return std::nullopt;
    if ((base + lane_var_ * 2).render() == e.render()) return base;
    for (int64_t l = 1; l < lanes_; l++)
      if (at_lane(e, l).render() != (base + Expr(2 * l)).render()) return std::nullopt;
    return base;
  }
  // Lane l of u: a vector made of per-lane values gives that value back (so a vector of bools,
  // which C cannot declare, is never read and never rendered), another vector a GEP.
  const UOp* lane(const UOp* u, int l) {
    if (u->vcount == 1) return u;
    if (u->op == UOps::CAST && u->src.size() == size_t(u->vcount)) return u->src[size_t(l)];
    return g_.make(UOps::GEP, u->dtype, {u}, l);
  }
  const UOp* vectorize(DType dt, std::vector<const UOp*> parts) {
    return g_.make(UOps::CAST, dt, std::move(parts));
  }
  // one scalar UOp per lane, made a vector again (n == 1: just the one)
  template <class F> const UOp* per_lane(int n, F&& f) {
    if (n == 1) return f(0);
    std::vector<const UOp*> parts;
    for (int l = 0; l < n; l++) parts.push_back(f(l));
    DType dt = *parts[0]->dtype; // (before the move: argument order is unspecified)
    return vectorize(dt, std::move(parts));
  }
  // a constant buffer's value where valid, else 0
  const UOp* const_value(DType dt, const Scalar& v, const Expr& valid) {
    const UOp* u = g_.cnst(dt, v);
    if (valid.min() == 0 && valid.max() == 1)
      u = g_.alu(Op::WHERE, {render(valid), u, g_.cnst(dt, Scalar::of_int(0))});
    return u;
  }
  // buffer i at idx, 0 where valid is false; arg: a vector's lanes (consecutive elements)
  const UOp* load_uop(int i, const UOp* idx, const Expr& valid, DType dt, const UOp* barrier,
                      UOpArg arg = {}) {
    std::vector<const UOp*> src{buf_uops_[size_t(i)], idx};
    if (valid.min() == 0) {
      src.push_back(render(valid));
      src.push_back(g_.cnst(dt, Scalar::of_int(0)));
    }
    if (barrier) src.push_back(barrier);
    return g_.make(UOps::LOAD, dt, src, std::move(arg));
  }
  // Arithmetic C's vector extensions do lane-wise with a scalar broadcast, and RECIP, EXP2, LOG2
  // where the renderer has them (RendererOpts::vector_math); the rest goes lane by lane (the
  // optimizer gives lanes only to float32 kernels: results are float vectors, or bools and ints
  // that only lane() reads).
  const UOp* lane_alu(Op op, std::vector<const UOp*> src) {
    int n = 1;
    for (const UOp* s : src) n = std::max(n, s->vcount);
    if (n == 1) return g_.alu(op, std::move(src));
    bool floats =
        std::all_of(src.begin(), src.end(), [](const UOp* s) { return s->dtype == DType::Float32; });
    bool whole = floats && (op == Op::ADD || op == Op::MUL || op == Op::NEG || op == Op::MAX ||
                            (k_.opts.vector_math && (op == Op::RECIP || op == Op::EXP2 || op == Op::LOG2)));
    if (whole) {
      // (+ and * take a scalar operand as it is; MAX, a function, needs both as vectors)
      if (op == Op::MAX)
        for (const UOp*& s : src)
          if (s->vcount == 1) s = vectorize(*s->dtype, std::vector<const UOp*>(size_t(n), s));
      return g_.alu(op, std::move(src));
    }
    if (k_.opts.vector_masks)
      if (const UOp* m = mask_alu(op, src, n, floats)) return m;
    return per_lane(n, [&](int l) {
      std::vector<const UOp*> s1;
      for (const UOp* s : src) s1.push_back(lane(s, l));
      return g_.alu(op, std::move(s1));
    });
  }
  // A bool vector computed as a whole (a compare of float vectors, or masks combined): a mask.
  // (A bool vector made lane by lane is not one: C would hold its 1s, not a mask's -1s.)
  static bool is_mask(const UOp* u) { return u->vcount > 1 && u->dtype == DType::Bool && u->op == UOps::ALU; }
  // tinygrad's maximum, clip and relu6 compare and select: where(x<y, y, where((x!=y)!=True, ...)).
  // Compares of float vectors make masks, masks combine, and WHERE selects float vectors by one:
  // the epilogue of a conv with relu6 is vector code instead of 8 lanes of scalar selects.
  // nullptr where the op is not one of these (it then goes lane by lane).
  const UOp* mask_alu(Op op, std::vector<const UOp*> src, int n, bool floats) {
    if ((op == Op::CMPLT || op == Op::CMPNE) && floats) return g_.alu(op, std::move(src));
    auto is_bool_const = [](const UOp* u) { return u->is_const() && u->dtype == DType::Bool; };
    if ((op == Op::CMPNE || op == Op::MUL) && src.size() == 2)
      for (int i = 0; i < 2; i++)
        if (is_mask(src[size_t(i)]) && is_bool_const(src[size_t(1 - i)])) {
          const bool c = src[size_t(1 - i)]->value().truthy();
          if (op == Op::CMPNE) return c ? g_.alu(Op::NEG, {src[size_t(i)]}) : src[size_t(i)]; // m != c
          if (c) return src[size_t(i)];                                                       // m * true
        }
    if ((op == Op::CMPNE || op == Op::MUL) && src.size() == 2 && is_mask(src[0]) && is_mask(src[1]))
      return g_.alu(op, std::move(src));
    if (op == Op::WHERE && is_mask(src[0]) && src[1]->dtype == DType::Float32 &&
        src[2]->dtype == DType::Float32) {
      for (size_t i = 1; i < 3; i++)
        if (src[i]->vcount == 1)
          src[i] = vectorize(DType::Float32, std::vector<const UOp*>(size_t(n), src[i]));
      return g_.alu(op, std::move(src));
    }
    return nullptr;
  }
  std::vector<int> lane_offsets(const std::vector<int>& offs) const {
    if (lanes_ == 1) return offs;
    // the lane axis is the first upcast axis: fastest in the offsets, stride 1 among the accs
    // (stride 0 when the lanes are on the reduce axis: each acc is then one vector already)
    std::vector<int> out;
    for (size_t n = 0; n < offs.size(); n += size_t(lanes_))
      out.push_back(k_.reduce_lanes ? offs[n] : offs[n] / lanes_);
    return out;
  }
  // Lane l's condition `valid` as lo <= l < hi, lo and hi lane-free, when every condition on the
  // lane is linear in it with coefficient +-1 or +-2 (a padded image's edges, read with stride 1
  // or 2); the lane-free conditions gate the whole vector. nullopt when valid has another form.
  struct LaneBounds {
    const UOp *lo, *hi;
  };
  std::optional<LaneBounds> lane_bounds(const Expr& valid) {
    std::vector<const ExprNode*> conds;
    if (valid.kind() == ExprKind::And)
      conds = valid.node()->nodes;
    else
      conds.push_back(valid.node());
    const UOp *lo = g_.cnst_int(0), *hi = g_.cnst_int(lanes_), *gate = nullptr;
    for (const ExprNode* c : conds) {
      Expr ce(c);
      if (!has_lane(ce)) {
        gate = gate ? g_.alu(Op::MUL, {gate, render(ce)}) : render(ce);
        continue;
      }
      if (c->kind != ExprKind::Lt) return std::nullopt;
      std::vector<const ExprNode*> terms = c->a->kind == ExprKind::Sum ? c->a->nodes : std::vector{c->a};
      int64_t coef = 0;
      Expr rest(int64_t(0));
      for (const ExprNode* t : terms) {
        Expr te(t);
        if (!has_lane(te)) {
          rest = rest + te;
        } else if (coef == 0 && t->kind == ExprKind::Var) {
          coef = 1;
        } else if (coef == 0 && t->kind == ExprKind::Mul && t->a->kind == ExprKind::Var &&
                   (t->b == -1 || t->b == 2 || t->b == -2)) {
          coef = t->b;
        } else {
          return std::nullopt;
        }
      }
      // (C's division truncates: where it differs from floor, the bound is past 0 either way)
      auto halve = [&](const UOp* x) { return g_.alu(Op::IDIV, {x, g_.cnst_int(2)}); };
      if (coef > 0) { // coef*l + rest < b: l < b - rest, or l < (b - rest + 1) // 2
        const UOp* h = coef == 1 ? render(Expr(c->b) - rest) : halve(render(Expr(c->b + 1) - rest));
        hi = g_.alu(Op::WHERE, {g_.alu(Op::CMPLT, {h, hi}), h, hi});
      } else { // -l + rest < b: l >= rest - b + 1; -2l + rest < b: l >= (rest - b + 2) // 2
        const UOp* l = coef == -1 ? render(rest - Expr(c->b) + Expr(int64_t(1)))
                                  : halve(render(rest - Expr(c->b) + Expr(int64_t(2))));
        lo = g_.alu(Op::MAX, {lo, l});
      }
    }
    if (gate) hi = g_.alu(Op::WHERE, {gate, hi, g_.cnst_int(0)}); // gate false: no lane
    return LaneBounds{lo, hi};
  }

  // A padded lane axis (PADTO) keeps `pos < c` in every valid, pos = lane + rest the position
  // on the axis (rest: the vector's start, chunk*lanes, when the axis spans several vectors;
  // none when one). Lanes at or past c are never loaded or stored, so the index and the other
  // conditions may assume pos < c, and then often simplify: a padded conv row's (x+kx)%16 is
  // x+kx there, which makes its loads consecutive (one vector load for 8 lanes gathered one by
  // one: ResNet-50's 3x3 convs over 28- and 14-wide images on AVX2).
  void narrow_lanes(Expr& idx, Expr& valid) const {
    std::vector<const ExprNode*> conds;
    if (valid.kind() == ExprKind::And)
      conds = valid.node()->nodes;
    else
      conds.push_back(valid.node());
    const ExprNode* bound = nullptr; // the condition pos < c
    Expr rest(int64_t(0));
    for (const ExprNode* n : conds) {
      if (n->kind != ExprKind::Lt || n->b >= n->a->max + 1 || n->a->min < 0) continue;
      if (n->a == lane_var_.node()) {
        bound = n, rest = Expr(int64_t(0));
        break;
      }
      if (n->a->kind != ExprKind::Sum || bound) continue;
      std::vector<Expr> others;
      bool lane = false, other_lane = false;
      for (const ExprNode* t : n->a->nodes) {
        if (t == lane_var_.node())
          lane = true;
        else if (has_lane(Expr(t)))
          other_lane = true;
        else
          others.push_back(Expr(t));
      }
      if (lane && !other_lane) bound = n, rest = Expr::sum(others);
    }
    if (!bound || bound->b < 2) return;
    const Expr pos(bound->a);
    const Expr narrow = Expr::var(lane_name_ + "_pos", pos.min(), bound->b - 1);
    auto within = [&](const Expr& e) {
      return e.substitute({{lane_var_, narrow - rest}}).substitute({{narrow, pos}});
    };
    std::vector<Expr> kept;
    for (const ExprNode* n : conds) kept.push_back(n == bound ? Expr(n) : within(Expr(n)));
    idx = within(idx);
    valid = Expr::ands(kept);
  }

  // LOAD of a LaneRange: lanes b.lo..b.hi-1 of buffer i at base + stride*lane
  const UOp* range_load(int i, DType dt, const Expr& base, const LaneBounds& b, int stride) {
    const UOp* start = render(base);
    // the buffer holds at least the elements its view reaches (tg-run refuses less)
    const MemBuffer& mb = std::get<MemBuffer>(k_.bufs[size_t(i)]);
    auto range = index_range(mb.st.views.front());
    const UOp* whole = g_.cnst(DType::Bool, Scalar::of_bool(false));
    if (range && range->first >= 0)
      whole = g_.alu(Op::MUL, {g_.alu(Op::NEG, {g_.alu(Op::CMPLT, {start, g_.cnst_int(0)})}),
                               g_.alu(Op::CMPLT, {start, g_.cnst_int(range->second + 2 - stride * lanes_)})});
    return g_.make(UOps::LOAD, dt, {buf_uops_[size_t(i)], start, b.lo, b.hi, whole},
                   LaneRange{lanes_, stride});
  }

  const UOp* lane_load(int i, Expr idx, Expr valid, DType dt, const std::optional<Scalar>& cnst,
                       const UOp* barrier) {
    narrow_lanes(idx, valid);
    // consecutive elements whose lanes are valid in one range: a masked vector load (the padded
    // image of a conv), which reads only the valid lanes
    const bool ranges = !cnst && k_.opts.vector_lane_ranges && !barrier;
    if (ranges && has_lane(valid))
      if (auto base = consecutive_base(idx))
        if (auto b = lane_bounds(valid)) return range_load(i, dt, *base, *b, 1);
    if (!cnst && !has_lane(valid))
      if (auto base = consecutive_base(idx)) return load_uop(i, render(*base), valid, dt, barrier, lanes_);
    // every other element (a stride-2 conv's image row): the same, two vector loads and a shuffle
    if (ranges)
      if (auto base = stride2_base(idx))
        if (auto b = lane_bounds(valid)) return range_load(i, dt, *base, *b, 2);
    return per_lane(lanes_, [&](int l) {
      Expr li = at_lane(idx, l), lv = at_lane(valid, l);
      if (lv.max() == 0) return g_.cnst(dt, Scalar::of_int(0));
      return cnst ? const_value(dt, *cnst, lv) : load_uop(i, render(li), lv, dt, barrier);
    });
  }
  void lane_store(int i, Expr idx, Expr valid, const UOp* val, std::vector<const UOp*>& out) {
    narrow_lanes(idx, valid);
    if (!has_lane(valid))
      if (auto base = consecutive_base(idx)) {
        if (val->vcount == 1) val = vectorize(*val->dtype, std::vector<const UOp*>(size_t(lanes_), val));
        std::vector<const UOp*> src{buf_uops_[size_t(i)], render(*base), val};
        if (valid.min() != 1) src.push_back(render(valid));
        out.push_back(g_.make(UOps::STORE, std::nullopt, src));
        return;
      }
    for (int l = 0; l < lanes_; l++) {
      Expr li = at_lane(idx, l), lv = at_lane(valid, l);
      if (lv.max() == 0) continue;
      std::vector<const UOp*> src{buf_uops_[size_t(i)], render(li), lane(val, l)};
      if (lv.min() != 1) src.push_back(render(lv));
      out.push_back(g_.make(UOps::STORE, std::nullopt, src));
    }
  }

  const Kernel& k_;
  UOpGraph& g_;
  std::vector<const UOp*> buf_uops_;
  std::vector<ShapeTracker> sts_;                         // the kernel's, then the local buffers'
  std::vector<std::pair<std::string, DType>> local_bufs_; // name, dtype (past the kernel's buffers)
  std::vector<Expr> local_idxs_;
  std::map<std::string, const UOp*> loop_uops_;
  std::map<std::string, Expr> symbolic_ends_; // loop variable -> its symbolic end (loop_var)
  IdxEnds idx_ends_; // the same, and symbolic launch indices, for views over symbolic shapes
  std::vector<Expr> global_idxs_, upcast_idxs_, full_upcast_idxs_, reduce_idxs_, fake_reduce_idxs_;
  std::map<std::tuple<int, int, int, int, uint64_t, const ExprNode*, const ExprNode*>, const UOp*>
      load_cache_;
  std::map<int, std::vector<const UOp*>> loaded_;
  Accs accs_;
  // tensor cores: per reduce, its inputs' local aliases (buffer, local buffer) and their indices
  std::map<const LazyOp*, std::vector<std::pair<int, int>>> local_alias_;
  struct AliasIdxs {
    int buf, local_buf;
    std::vector<Expr> idxs;
  };
  std::map<const LazyOp*, std::vector<AliasIdxs>> alias_idxs_;
  Shape global_size_;
  std::vector<int64_t> local_size_;
  int lanes_ = 1;
  Expr lane_var_{int64_t(0)};
  std::string lane_name_; // "" when the kernel has no lanes: every upcast var is expanded
};

} // namespace

LinearizedKernel linearize_kernel(const Kernel& k, UOpGraph& g) {
  Linearizer lin(k, g);
  const UOp* sink = lin.run();
  return {sink, lin.global_size(), lin.local_size()};
}

} // namespace tg
