// codegen layer: panel packing (BLAS's "pack B") for host kernels. A 1024x1024 matmul's kernel
// keeps an 8x32 register tile and, for every row tile, reads B's 32 columns down all of K: 1024
// rows 4 KB apart. Those rows fall into few cache sets (4 KB is L1's whole set period) and on
// 1024 pages, so the 128 KB panel that should stay in L2 across the 128 row tiles is evicted
// and read again from L3 or memory each time. Copying the panel once per column block into a
// contiguous array makes it one sequential 128 KB run: on an Intel Xeon with 48 KB L1d and
// 2 MB L2, one thread went from 70 to 154 GFLOP/s. A copy changes no arithmetic, so results
// are bit for bit the same.
#include "codegen/pack_panels.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "dtype/dtype.h"

namespace tg {

namespace {

// An index as sum(coef * leaf) + c, leaves being loop counters and variables.
struct Affine {
  std::vector<std::pair<const UOp*, int64_t>> terms; // sorted by the leaf's id
  int64_t c = 0;
  int64_t coef(const UOp* leaf) const {
    for (auto& [l, k] : terms)
      if (l == leaf) return k;
    return 0;
  }
};

bool is_leaf(const UOp* u) {
  return u->op == UOps::RANGE || u->op == UOps::DEFINE_VAR || u->op == UOps::SPECIAL;
}

std::optional<Affine> affine(const UOp* u) {
  if (u->vcount != 1 || !u->dtype || (*u->dtype != DType::Int32 && *u->dtype != DType::Int64))
    return std::nullopt;
  if (u->is_const()) return Affine{{}, u->value().as_int()};
  if (is_leaf(u)) return Affine{{{u, 1}}, 0};
  if (u->is_alu(Op::ADD)) {
    auto a = affine(u->src[0]), b = affine(u->src[1]);
    if (!a || !b) return std::nullopt;
    for (const auto& term : b->terms) {
      const UOp* leaf = term.first; // (a structured binding: clang 14 cannot capture one)
      auto it = std::find_if(a->terms.begin(), a->terms.end(), [&](auto& t) { return t.first == leaf; });
      if (it != a->terms.end())
        it->second += term.second;
      else
        a->terms.push_back(term);
    }
    a->c += b->c;
    std::erase_if(a->terms, [](auto& t) { return t.second == 0; });
    std::sort(a->terms.begin(), a->terms.end(), [](auto& x, auto& y) { return x.first->id < y.first->id; });
    return a;
  }
  if (u->is_alu(Op::MUL) && (u->src[0]->is_const() || u->src[1]->is_const())) {
    bool left = u->src[0]->is_const();
    auto a = affine(u->src[left ? 1 : 0]);
    if (!a) return std::nullopt;
    int64_t k = u->src[left ? 0 : 1]->value().as_int();
    if (k == 0) return Affine{};
    for (auto& t : a->terms) t.second *= k;
    a->c *= k;
    return a;
  }
  return std::nullopt;
}

std::optional<int64_t> trip(const UOp* range) {
  if (!range->src[0]->is_const() || !range->src[1]->is_const()) return std::nullopt;
  return range->src[1]->value().as_int() - range->src[0]->value().as_int();
}

// One panel: the loads of `buf` inside reduce loop `r` at base + stride * r + c, c in [lo, hi).
struct Panel {
  const UOp* buf;
  const UOp* r;
  const UOp* g; // the global loop the copy goes in front of
  // global loops between g and r the index moves with (Kernel::block_columns' column blocks):
  // one panel for each of their iterations, side by side, outermost first; with their coefficients
  std::vector<std::pair<const UOp*, int64_t>> dims;
  Affine base; // the index without the terms of r and dims and the constant
  int64_t stride;
  std::vector<size_t> loads; // positions in the list
  int64_t lo = 0, hi = 0;
  int lanes = 1;                                  // the widest load, the copy's vector width
  std::vector<std::pair<int64_t, int64_t>> spans; // each load's [c, c + lanes)

  int64_t panels() const {
    int64_t n = 1;
    for (auto& d : dims) n *= *trip(d.first);
    return n;
  }
  int64_t bytes() const { return panels() * *trip(r) * (hi - lo) * 4; }
};

// One window: the vector loads of `buf` in a nest of reduce loops that no global loop from `g`
// inward moves (a conv's image under one output tile, its channels and window, read again by
// every block of output channels). Each load gets a slot of `lanes` floats per iteration of the
// nest; the copy makes the same loads, masks and all, so the nest reads whole aligned vectors.
struct Window {
  const UOp* buf;
  const UOp* g;
  std::vector<const UOp*> rs; // the reduce loops, outermost first
  int lanes;
  std::vector<size_t> loads; // positions in the list, one slot each

  int64_t iterations() const {
    int64_t n = 1;
    for (const UOp* r : rs) n *= *trip(r);
    return n;
  }
  int64_t bytes() const { return iterations() * int64_t(loads.size()) * lanes * 4; }
};

// The loops an expression moves with.
void loops_of(const UOp* u, std::unordered_set<const UOp*>& seen, std::unordered_set<const UOp*>& loops) {
  if (!seen.insert(u).second) return;
  if (u->op == UOps::RANGE) {
    loops.insert(u);
    return;
  }
  for (const UOp* s : u->src) loops_of(s, seen, loops);
}

class Packer {
public:
  Packer(std::vector<const UOp*>& uops, UOpGraph& g) : uops_(uops), g_(g) {}

  // Calls visit(i, u, scope) for each float load u = uops_[i] of an input the kernel does not
  // write, with the RANGEs and IFs open around it (innermost last): what find and find_windows
  // look at.
  template <class Visit> void scan_input_loads(Visit visit) {
    std::unordered_set<const UOp*> stored;
    for (const UOp* u : uops_)
      if (u->op == UOps::STORE) stored.insert(u->src[0]);
    std::vector<const UOp*> scope;
    for (size_t i = 0; i < uops_.size(); ++i) {
      const UOp* u = uops_[i];
      if (u->op == UOps::RANGE || u->op == UOps::IF) scope.push_back(u);
      if ((u->op == UOps::ENDRANGE || u->op == UOps::ENDIF) && !scope.empty()) scope.pop_back();
      if (u->op == UOps::LOAD && u->src[0]->op == UOps::DEFINE_GLOBAL && u->dtype == DType::Float32 &&
          !stored.count(u->src[0]))
        visit(i, u, scope);
    }
  }

  // The panels worth packing, found in one scan of the list.
  std::vector<Panel> find() {
    std::vector<Panel> panels;
    scan_input_loads([&](size_t i, const UOp* u, const std::vector<const UOp*>& scope) {
      if (u->src.size() != 2 || std::holds_alternative<LaneRange>(u->arg)) return;
      if (scope.empty() || scope.back()->op != UOps::RANGE || !std::get<LoopArg>(scope.back()->arg).reduce)
        return;
      const UOp* r = scope.back();
      auto idx = affine(u->src[1]);
      if (!idx || !trip(r)) return;
      // g: the innermost global loop around r that the index does not move with, with no IF
      // from it inward; the global loops inside it that the index moves with are the dims
      long gi = long(scope.size()) - 2;
      while (gi >= 0 && scope[size_t(gi)]->op == UOps::RANGE &&
             std::get<LoopArg>(scope[size_t(gi)]->arg).reduce)
        --gi;
      std::vector<std::pair<const UOp*, int64_t>> dims;
      for (; gi >= 0 && scope[size_t(gi)]->op == UOps::RANGE && idx->coef(scope[size_t(gi)]) > 0; --gi) {
        const UOp* d = scope[size_t(gi)];
        if (!trip(d) || !d->src[0]->is_const()) break;
        dims.insert(dims.begin(), {d, idx->coef(d)});
      }
      if (gi < 0 || scope[size_t(gi)]->op != UOps::RANGE || idx->coef(scope[size_t(gi)]) != 0) return;
      const UOp* g = scope[size_t(gi)];
      int64_t stride = idx->coef(r);
      // the index may move only with r, the dims and the loops outside g (the base)
      bool ok = stride > 0;
      std::unordered_set<const UOp*> outer(scope.begin(), scope.begin() + gi);
      for (auto& d : dims) outer.insert(d.first);
      for (auto& [leaf, k] : idx->terms)
        if (leaf != r && leaf->op == UOps::RANGE && !outer.count(leaf)) ok = false;
      if (!ok) return;
      Affine base = *idx;
      std::erase_if(base.terms, [&](auto& t) {
        return t.first == r ||
               std::any_of(dims.begin(), dims.end(), [&](auto& d) { return d.first == t.first; });
      });
      int64_t c = base.c;
      base.c = 0;
      int lanes = std::holds_alternative<int>(u->arg) ? std::get<int>(u->arg) : 1;
      auto same = [&](const Panel& p) {
        return p.buf == u->src[0] && p.r == r && p.g == g && p.dims == dims && p.stride == stride &&
               p.base.terms == base.terms;
      };
      auto it = std::find_if(panels.begin(), panels.end(), same);
      if (it == panels.end()) {
        panels.push_back(Panel{u->src[0], r, g, dims, base, stride, {}, c, c + lanes, lanes, {}});
        it = panels.end() - 1;
      }
      it->loads.push_back(i);
      it->lo = std::min(it->lo, c), it->hi = std::max(it->hi, c + lanes);
      it->lanes = std::max(it->lanes, lanes);
      it->spans.emplace_back(c, c + lanes);
    });
    std::vector<Panel> worth;
    for (Panel& p : panels)
      if (covered(p.spans, p.lo, p.hi) && worth_packing(p)) worth.push_back(std::move(p));
    return worth;
  }

  // The windows worth packing: vector loads in a nest of reduce loops (range loads, or a nest of
  // two or more loops: the rest are find's), found in one scan of the list.
  std::vector<Window> find_windows() {
    std::vector<Window> windows;
    scan_input_loads([&](size_t i, const UOp* u, const std::vector<const UOp*>& scope) {
      if (u->vcount < 2) return;
      const bool ranged = std::holds_alternative<LaneRange>(u->arg);
      if (!ranged && (!std::holds_alternative<int>(u->arg) || u->src.size() != 2)) return;
      size_t gi = scope.size();
      while (gi > 0 && scope[gi - 1]->op == UOps::RANGE && std::get<LoopArg>(scope[gi - 1]->arg).reduce) --gi;
      if (gi == 0 || gi == scope.size() || scope[gi - 1]->op != UOps::RANGE) return;
      const UOp* g = scope[gi - 1];
      std::vector<const UOp*> rs(scope.begin() + long(gi), scope.end());
      if ((!ranged && rs.size() < 2) ||
          std::any_of(rs.begin(), rs.end(), [](const UOp* r) { return !trip(r) || !r->src[0]->is_const(); }))
        return;
      // the load moves with the nest and with loops outside g only
      std::unordered_set<const UOp*> seen, loops;
      loops_of(u, seen, loops);
      std::unordered_set<const UOp*> allowed(scope.begin(), scope.begin() + long(gi) - 1);
      allowed.insert(rs.begin(), rs.end());
      if (std::any_of(loops.begin(), loops.end(), [&](const UOp* l) { return !allowed.count(l); }) ||
          std::none_of(rs.begin(), rs.end(), [&](const UOp* r) { return loops.count(r); }))
        return;
      auto it = std::find_if(windows.begin(), windows.end(), [&](const Window& w) {
        return w.buf == u->src[0] && w.g == g && w.rs == rs && w.lanes == u->vcount;
      });
      if (it == windows.end()) {
        windows.push_back(Window{u->src[0], g, rs, u->vcount, {}});
        it = windows.end() - 1;
      }
      if (std::none_of(it->loads.begin(), it->loads.end(), [&](size_t j) { return uops_[j] == u; }))
        it->loads.push_back(i);
    });
    std::erase_if(windows, [](const Window& w) {
      auto reuse = trip(w.g);
      return !reuse || *reuse < 4;
    });
    return windows;
  }

  // Copies `w` in front of its global loop: loops like the nest's, each making the window's loads
  // with the nest's counters replaced by its own; the nest then reads slot s of its iteration.
  // Returns the bytes of its local array.
  int64_t pack(const Window& w, int n) {
    DType it = *w.rs[0]->dtype;
    auto num = [&](int64_t v) { return g_.cnst(it, Scalar::of_int(v)); };
    const int64_t row = int64_t(w.loads.size()) * w.lanes; // floats per iteration of the nest
    const UOp* local =
        g_.make(UOps::DEFINE_LOCAL, DType::Float32, {}, LocalArg{"pack" + std::to_string(n), w.bytes() / 4});
    // iteration number of counters `at` (the nest's or the copy's), times the row
    auto offset = [&](const std::vector<const UOp*>& at) {
      const UOp* flat = nullptr;
      for (size_t j = 0; j < at.size(); ++j) {
        const UOp* from0 = w.rs[j]->src[0]->value().as_int()
                               ? g_.add(at[j], num(-w.rs[j]->src[0]->value().as_int()))
                               : at[j];
        flat = flat ? g_.add(g_.mul(flat, num(*trip(w.rs[j]))), from0) : from0;
      }
      return g_.mul(flat, num(row));
    };
    std::unordered_set<size_t> loads(w.loads.begin(), w.loads.end());
    std::unordered_map<const UOp*, size_t> slot;
    for (size_t s = 0; s < w.loads.size(); ++s) slot[uops_[w.loads[s]]] = s;
    splice(
        w.g,
        [&](auto&& place, std::vector<const UOp*>& out) {
          place(local);
          std::vector<const UOp*> loops;
          std::unordered_map<const UOp*, const UOp*> to_copy;
          for (size_t j = 0; j < w.rs.size(); ++j) {
            const UOp* r = w.rs[j];
            const UOp* l = g_.make(UOps::RANGE, it, {r->src[0], r->src[1]}, LoopArg{200 + int(j), n, false});
            place(l->src[0]), place(l->src[1]);
            out.push_back(l);
            loops.push_back(l);
            to_copy[r] = l;
          }
          const UOp* at = offset(loops);
          std::unordered_map<const UOp*, const UOp*> memo;
          for (size_t s = 0; s < w.loads.size(); ++s) {
            const UOp* v = substitute(uops_[w.loads[s]], to_copy, memo);
            place(g_.make(UOps::STORE, std::nullopt,
                          {local, s ? g_.add(at, num(int64_t(s) * w.lanes)) : at, v}));
          }
          for (size_t l = loops.size(); l-- > 0;)
            out.push_back(g_.make(UOps::ENDRANGE, std::nullopt, {loops[l]}));
          return loops[0];
        },
        [&](size_t i, const UOp* u) -> const UOp* {
          if (!loads.count(i)) return nullptr;
          const UOp* at = offset(w.rs);
          const size_t s = slot.at(u);
          return g_.make(UOps::LOAD, u->dtype, {local, s ? g_.add(at, num(int64_t(s) * w.lanes)) : at},
                         UOpArg(w.lanes));
        });
    return w.bytes();
  }

  // Copies `p` in front of its global loop; returns the bytes of its local array.
  int64_t pack(const Panel& p, int n) {
    DType it = *p.r->dtype;
    auto num = [&](int64_t v) { return g_.cnst(it, Scalar::of_int(v)); };
    int64_t start = p.r->src[0]->value().as_int(), rows = *trip(p.r), width = p.hi - p.lo;
    const UOp* local =
        g_.make(UOps::DEFINE_LOCAL, DType::Float32, {}, LocalArg{"pack" + std::to_string(n), p.bytes() / 4});
    // panel j of the dims starts at sum((d_j - start_j) * dim_stride_j), innermost dim's stride rows * width
    std::vector<int64_t> dim_stride(p.dims.size());
    int64_t offset = 0; // of the dims' starts
    for (size_t d = p.dims.size(), step = size_t(rows * width); d-- > 0;) {
      dim_stride[d] = int64_t(step);
      offset += p.dims[d].first->src[0]->value().as_int() * int64_t(step);
      step *= size_t(*trip(p.dims[d].first));
    }
    std::unordered_set<size_t> loads(p.loads.begin(), p.loads.end());
    splice(
        p.g,
        [&](auto&& place, std::vector<const UOp*>& out) {
          place(local);
          // source row k: base + stride * (start + k) + lo; the base goes before the copy loop, as
          // the rest of the kernel may use its parts
          const UOp* base = num(p.stride * start + p.lo);
          for (auto& [leaf, coef] : p.base.terms)
            base = g_.add(base, coef == 1 ? leaf : g_.mul(leaf, num(coef)));
          place(base);
          // copy loops: one per dim (over the dim's own range), then the rows
          std::vector<const UOp*> loops;
          const UOp* dst_base = nullptr;
          for (size_t d = 0; d < p.dims.size(); ++d) {
            const UOp* dim = p.dims[d].first;
            const UOp* l =
                g_.make(UOps::RANGE, it, {dim->src[0], dim->src[1]}, LoopArg{100 + int(d), n, false});
            place(l->src[0]), place(l->src[1]);
            out.push_back(l);
            loops.push_back(l);
            base = g_.add(base, g_.mul(l, num(p.dims[d].second)));
            const UOp* at_dim = g_.mul(l, num(dim_stride[d]));
            dst_base = dst_base ? g_.add(dst_base, at_dim) : at_dim;
          }
          if (dst_base && offset) dst_base = g_.add(dst_base, num(-offset));
          const UOp* k = g_.make(UOps::RANGE, it, {num(0), num(rows)}, LoopArg{99, n, false});
          place(k->src[0]), place(k->src[1]);
          out.push_back(k);
          loops.push_back(k);
          const UOp* row = g_.add(base, g_.mul(k, num(p.stride)));
          const UOp* dst_row = dst_base ? g_.add(dst_base, g_.mul(k, num(width))) : g_.mul(k, num(width));
          int vw = width % p.lanes == 0 ? p.lanes : 1;
          for (int64_t t = 0; t < width; t += vw) {
            UOpArg arg = vw > 1 ? UOpArg(vw) : UOpArg();
            const UOp* v = g_.make(UOps::LOAD, DType::Float32, {p.buf, t ? g_.add(row, num(t)) : row}, arg);
            place(g_.make(UOps::STORE, std::nullopt, {local, t ? g_.add(dst_row, num(t)) : dst_row, v}));
          }
          for (size_t l = loops.size(); l-- > 0;)
            out.push_back(g_.make(UOps::ENDRANGE, std::nullopt, {loops[l]}));
          return loops[0];
        },
        // the loads read the local array at (r - start) * width + (c - lo)
        [&](size_t i, const UOp* u) -> const UOp* {
          if (!loads.count(i)) return nullptr;
          int64_t c = affine(u->src[1])->c - p.lo - start * width - offset;
          const UOp* idx = g_.add(g_.mul(p.r, num(width)), num(c));
          for (size_t d = 0; d < p.dims.size(); ++d)
            idx = g_.add(idx, g_.mul(p.dims[d].first, num(dim_stride[d])));
          return g_.make(UOps::LOAD, u->dtype, {local, idx}, u->arg);
        });
    return p.bytes();
  }

private:
  // Puts a copy in front of global loop `g`: `copy(place, out)` appends its loops (placing what
  // they use with `place`) and returns the first. Then rewrites the rest of the list: the load at
  // position i becomes `read(i, load)` where that is not null, and its users follow.
  template <class Copy, class Read> void splice(const UOp* g, Copy&& copy, Read&& read) {
    size_t at = size_t(std::find(uops_.begin(), uops_.end(), g) - uops_.begin());
    // Every uop appears once in the list, before its users: `listed` holds those placed so far.
    std::unordered_set<const UOp*> listed(uops_.begin(), uops_.begin() + long(at));
    std::vector<const UOp*> out(uops_.begin(), uops_.begin() + long(at));
    auto place_rec = [&](auto&& self, const UOp* u) -> void {
      if (listed.count(u) || u->op == UOps::RANGE || u->op == UOps::DEFINE_VAR || u->op == UOps::SPECIAL ||
          u->op == UOps::DEFINE_GLOBAL)
        return;
      for (const UOp* s : u->src) self(self, s);
      listed.insert(u);
      out.push_back(u);
    };
    auto place = [&](const UOp* u) { place_rec(place_rec, u); };
    const UOp* first = copy(place, out);
    // what the copy loops define exists only inside them
    for (size_t i = out.size(); out[--i] != first;) listed.erase(out[i]);

    std::unordered_map<const UOp*, const UOp*> repl;
    for (size_t i = at; i < uops_.size(); ++i) {
      const UOp* u = uops_[i];
      if (const UOp* nu = read(i, u)) {
        repl[u] = nu;
        place(nu);
        continue;
      }
      bool changed = false;
      std::vector<const UOp*> src = u->src;
      for (const UOp*& s : src)
        if (auto r = repl.find(s); r != repl.end()) s = r->second, changed = true;
      if (changed) {
        const UOp* nu = g_.make(u->op, u->dtype, std::move(src), u->arg);
        repl[u] = nu;
        u = nu;
      }
      if (listed.insert(u).second) out.push_back(u); // a part of the base is already above
    }
    uops_ = std::move(out);
  }

  // `u` with the loops in `to` replaced (memoized in `memo`).
  const UOp* substitute(const UOp* u, const std::unordered_map<const UOp*, const UOp*>& to,
                        std::unordered_map<const UOp*, const UOp*>& memo) {
    if (auto t = to.find(u); t != to.end()) return t->second;
    if (auto m = memo.find(u); m != memo.end()) return m->second;
    std::vector<const UOp*> src = u->src;
    bool changed = false;
    for (const UOp*& s : src) {
      const UOp* ns = substitute(s, to, memo);
      changed |= ns != s;
      s = ns;
    }
    const UOp* out = changed ? g_.make(u->op, u->dtype, std::move(src), u->arg) : u;
    memo[u] = out;
    return out;
  }

  static bool covered(std::vector<std::pair<int64_t, int64_t>> spans, int64_t lo, int64_t hi) {
    std::sort(spans.begin(), spans.end());
    int64_t end = lo;
    for (auto& [a, b] : spans) {
      if (a > end) return false;
      end = std::max(end, b);
    }
    return end == hi;
  }

  static bool worth_packing(const Panel& p) {
    int64_t width = p.hi - p.lo;
    // rows at least 1 KB apart (else the reads are nearly sequential already) and the copy
    // reused by at least 4 iterations of the loops it is hoisted out of
    if (p.stride * 4 < 1024 || p.stride < 2 * width) return false;
    auto reuse = trip(p.g);
    return reuse && *reuse >= 4;
  }

  std::vector<const UOp*>& uops_;
  UOpGraph& g_;
};

// The index arithmetic of the loads that now read the local arrays has no users left; the
// renderer wants none such (it inlines an ALU into its one user).
void drop_unused(std::vector<const UOp*>& uops) {
  auto pure = [](const UOp* u) {
    return u->op == UOps::ALU || u->op == UOps::CONST || u->op == UOps::CAST || u->op == UOps::BITCAST ||
           u->op == UOps::GEP;
  };
  std::unordered_map<const UOp*, int> users;
  for (const UOp* u : uops)
    for (const UOp* s : u->src) ++users[s];
  std::vector<bool> dead(uops.size(), false);
  for (size_t i = uops.size(); i-- > 0;) // users come after their sources
    if (pure(uops[i]) && users[uops[i]] == 0) {
      dead[i] = true;
      for (const UOp* s : uops[i]->src) --users[s];
    }
  size_t w = 0;
  for (size_t i = 0; i < uops.size(); ++i)
    if (!dead[i]) uops[w++] = uops[i];
  uops.resize(w);
}

} // namespace

int pack_panels(std::vector<const UOp*>& uops, UOpGraph& g, int64_t max_bytes) {
  int n = 0;
  int64_t used = 0;
  // one at a time: packing one moves the list's positions; panels first, then windows
  auto pack_all = [&](auto find) {
    for (bool again = true; again && n < 4;) {
      again = false;
      Packer packer(uops, g);
      for (const auto& p : find(packer)) {
        if (used + p.bytes() > max_bytes) continue;
        used += packer.pack(p, n++);
        again = true;
        break;
      }
    }
  };
  pack_all([](Packer& p) { return p.find(); });
  pack_all([](Packer& p) { return p.find_windows(); });
  if (n) drop_unused(uops);
  return n;
}

} // namespace tg
