// ShapeTracker: tinygrad 0.9.1 shape/shapetracker.py. A stack of views; movement ops change
// the last view, reshapes that can't be expressed on it push a new one, simplify() merges.
#include <algorithm>
#include <string>
#include <unordered_set>

#include "shape/shapetracker.h"
#include "util/error.h"

namespace tg {
namespace {

std::vector<Expr> default_idxs(const Shape& shape) {
  std::vector<Expr> idxs;
  idxs.reserve(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    idxs.push_back(Expr::var("idx" + std::to_string(i), 0, shape[i].max() - 1));
  return idxs;
}

// The symbolic ends of default_idxs over symbolic dimensions.
IdxEnds default_ends(const Shape& shape, const std::vector<Expr>& idxs) {
  IdxEnds ends;
  for (size_t i = 0; i < shape.size() && i < idxs.size(); ++i)
    if (!shape[i].is_int() && idxs[i].kind() == ExprKind::Var)
      ends.emplace_back(idxs[i].node(), shape[i].expr());
  return ends;
}

// What bounds an index: the loops' symbolic ends, and which variables are loop indices (the rest
// are the program's variables, which are their own bound). The indices' variables are gathered
// only when a split by a symbolic dimension asks: expr_idxs is on the linearizer's hot path.
struct IdxBounds {
  const IdxEnds& ends;
  const std::vector<Expr>& idxs;
  mutable std::optional<std::vector<Expr>> index_vars;
  bool is_index(const Expr& v) const {
    if (!index_vars) {
      index_vars.emplace();
      for (const Expr& e : idxs)
        for (const Expr& x : e.vars()) index_vars->push_back(x);
    }
    return std::find(index_vars->begin(), index_vars->end(), v) != index_vars->end();
  }
};

// An upper bound of e at every value (the lowest with `lowest`): an index looping over a
// symbolic dimension is below its end, another index is within its int range, a program
// variable is itself; sums and products by non-negative factors bound term by term.
Expr upper(const Expr& e, const IdxBounds& b, bool lowest = false) {
  switch (e.kind()) {
  case ExprKind::Num:
    return e;
  case ExprKind::Var:
    for (const auto& [v, end] : b.ends)
      if (v == e.node()) return lowest ? Expr(e.min()) : end - Expr(1);
    if (b.is_index(e)) return Expr(lowest ? e.min() : e.max());
    return e;
  case ExprKind::Sum: {
    std::vector<Expr> parts;
    for (const ExprNode* c : e.node()->nodes) parts.push_back(upper(Expr(c), b, lowest));
    return Expr::sum(parts);
  }
  case ExprKind::Div: // (x // k for an int k > 0 is monotone in x)
    return upper(Expr(e.node()->a), b, lowest).floordiv(e.node()->b);
  case ExprKind::Mul: {
    const ExprNode* n = e.node();
    if (!n->bn) return upper(Expr(n->a), b, n->b < 0 ? !lowest : lowest) * n->b;
    if (n->a->min >= 0 && n->bn->min >= 0)
      return upper(Expr(n->a), b, lowest) * upper(Expr(n->bn), b, lowest);
    [[fallthrough]];
  }
  default:
    return Expr(lowest ? e.min() : e.max());
  }
}

// x // n and x % n for a split dimension n, symbolic by tinygrad's Node rules: x % n is x where
// 0 <= x < n at every value, a term (a*n) leaves n*a in the quotient and nothing in the remainder.
bool below(const Expr& x, const Expr& n, const IdxBounds& b) {
  return x.min() >= 0 && (n - upper(x, b)).min() > 0;
}
std::optional<Expr> quotient_of_term(const ExprNode* c, const Expr& n) { // c = q*n: q
  if (Expr(c) == n) return Expr(1);
  if (c->kind != ExprKind::Mul) return std::nullopt;
  const ExprNode* m = n.node(); // (i*32) over (i*8): 4
  if (!c->bn && m->kind == ExprKind::Mul && !m->bn && c->a == m->a && c->b % m->b == 0)
    return Expr(c->b / m->b);
  if (!c->bn) {
    auto q = quotient_of_term(c->a, n);
    return q ? std::optional(*q * c->b) : std::nullopt;
  }
  if (auto q = quotient_of_term(c->bn, n)) return Expr(c->a) * *q;
  if (auto q = quotient_of_term(c->a, n)) return *q * Expr(c->bn);
  return std::nullopt;
}
// x as (the sum of a over its terms a*n, the rest)
std::pair<Expr, Expr> split_terms(const Expr& x, const Expr& n) {
  std::vector<const ExprNode*> terms =
      x.kind() == ExprKind::Sum ? x.node()->nodes : std::vector<const ExprNode*>{x.node()};
  std::vector<Expr> q, rest;
  for (const ExprNode* c : terms) {
    if (auto a = quotient_of_term(c, n))
      q.push_back(*a);
    else
      rest.emplace_back(c);
  }
  return {Expr::sum(q), Expr::sum(rest)};
}
// n = N*k for a symbolic N and an int k (a dim of n*8 after a merge): x = N*q + rest with rest in
// [0, N) gives x // n = q // k and x % n = (q % k)*N + rest.
std::optional<std::pair<Expr, Expr>> split_scaled(const Expr& x, const Expr& n, const IdxBounds& bounds) {
  const ExprNode* m = n.node();
  if (m->kind != ExprKind::Mul || m->bn || m->b <= 0 || m->a->kind == ExprKind::Num) return std::nullopt;
  const Expr base(m->a);
  auto [q, rest] = split_terms(x, base);
  if (!below(rest, base, bounds) || q.min() < 0) return std::nullopt;
  return std::make_pair(q.floordiv(m->b), (q % m->b) * base + rest);
}
Expr split_div(const Expr& x, const sint& n, const IdxBounds& bounds) {
  if (n.is_int()) return x.floordiv(int64_t(n));
  const Expr nn = n.expr();
  if (x == nn) return Expr(1);
  auto [q, rest] = split_terms(x, nn);
  if (below(rest, nn, bounds)) return q;
  if (auto s = split_scaled(x, nn, bounds)) return s->first;
  fail("RuntimeError", "not supported: " + x.render() + " // " + n.str());
}
Expr split_mod(const Expr& x, const sint& n, const IdxBounds& bounds) {
  if (n.is_int()) return x % int64_t(n);
  const Expr nn = n.expr();
  if (x == nn) return Expr(0);
  Expr rest = split_terms(x, nn).second;
  if (below(rest, nn, bounds)) return rest;
  if (auto s = split_scaled(x, nn, bounds)) return s->second;
  fail("RuntimeError", "not supported: " + x.render() + " % " + n.str());
}

// _expr_view: the buffer index and the validity of one view for the given per-dim indices.
std::pair<Expr, Expr> expr_view(const View& view, const std::vector<Expr>& idxs, std::optional<Expr> valid) {
  check(idxs.size() == view.shape.size(), "AssertionError", "need an idx for all dimensions");
  std::vector<Expr> iexpr{view.offset.expr()};
  std::vector<Expr> vexpr;
  if (valid) vexpr.push_back(*valid);
  for (size_t i = 0; i < idxs.size(); ++i) {
    if (view.shape[i] != 1 && view.strides[i] != 0) iexpr.push_back(idxs[i] * view.strides[i].expr());
    if (view.mask) {
      const auto& [b, e] = (*view.mask)[i];
      // a symbolic bound moves to the left: idx-b >= 0 and idx-e < 0 compare with ints, which
      // the simplifier and the linearizer know (tinygrad's LtNode with a node operand)
      vexpr.push_back(b.is_int() ? idxs[i].ge(int64_t(b)) : (idxs[i] - b.expr()).ge(0));
      vexpr.push_back(e.is_int() ? idxs[i].lt(int64_t(e)) : (idxs[i] - e.expr()).lt(0));
    }
  }
  return {Expr::sum(iexpr), Expr::ands(vexpr)};
}

} // namespace

ShapeTracker ShapeTracker::from_shape(const Shape& shape) { return ShapeTracker{{View::create(shape)}}; }

ShapeTracker ShapeTracker::operator+(const ShapeTracker& st) const {
  ShapeTracker ret = *this;
  for (const View& v : st.views) { // one view at a time simplifies better
    ret.views.push_back(v);
    ret = ret.simplify();
  }
  return ret;
}

std::optional<ShapeTracker> ShapeTracker::invert(const Shape& out_shape) const {
  ShapeTracker inverted;
  for (size_t k = views.size(); k-- > 0;) {
    const Shape& target = k > 0 ? views[k - 1].shape : out_shape;
    auto v = views[k].invert(target);
    if (!v) return std::nullopt;
    inverted.views.push_back(*v);
  }
  return inverted.reshape(out_shape);
}

int64_t ShapeTracker::real_size() const {
  const Shape& s = shape();
  if (std::find(s.begin(), s.end(), 0) != s.end()) return 0;
  auto [idx, valid] = expr_idxs();
  if (!valid.truthy()) return 0;
  return idx.max() + 1;
}

bool ShapeTracker::consecutive() const {
  return views.size() == 1 && !views[0].mask && views[0].strides == strides_for_shape(views[0].shape);
}

std::vector<std::optional<int64_t>> ShapeTracker::real_strides(bool ignore_valid) const {
  const View& last = views.back();
  std::vector<std::optional<int64_t>> ret(last.shape.size());
  if (views.size() == 1 && !last.mask) {
    for (size_t i = 0; i < ret.size(); ++i)
      if (last.strides[i].is_int()) ret[i] = int64_t(last.strides[i]); // a symbolic stride: unknown
    return ret;
  }
  std::vector<Expr> idxs = default_idxs(last.shape);
  auto [idx, valid] = expr_idxs(idxs, default_ends(last.shape, idxs));
  std::unordered_set<const ExprNode*> bad_vars;
  auto terms = idx.kind() == ExprKind::Sum ? idx.node()->nodes : std::vector<const ExprNode*>{idx.node()};
  for (const ExprNode* term : terms) {
    const ExprNode* base = term->kind == ExprKind::Mul ? term->a : term;
    if (term->bn) { // a symbolic stride: not a number the optimizer can use
      for (const Expr& v : Expr(term).vars()) bad_vars.insert(v.node());
      continue;
    }
    int64_t stride = term->kind == ExprKind::Mul ? term->b : 1;
    bool found = false;
    if (base->kind == ExprKind::Var)
      for (size_t i = 0; i < idxs.size() && !found; ++i)
        if (idxs[i].node() == base) ret[i] = stride, found = true;
    if (!found)
      for (const Expr& v : Expr(base).vars()) bad_vars.insert(v.node());
  }
  std::unordered_set<const ExprNode*> idx_vars, valid_vars;
  for (const Expr& v : idx.vars()) idx_vars.insert(v.node());
  for (const Expr& v : valid.vars()) valid_vars.insert(v.node());
  for (size_t i = 0; i < idxs.size(); ++i) {
    const ExprNode* t = idxs[i].node();
    if (bad_vars.count(t) || (valid_vars.count(t) && !ignore_valid))
      ret[i] = std::nullopt;
    else if (!idx_vars.count(t))
      ret[i] = 0;
  }
  return ret;
}

std::vector<int> ShapeTracker::unit_stride_axes(bool ignore_valid) const {
  std::vector<int> out;
  auto strides = real_strides(ignore_valid);
  for (size_t i = 0; i < strides.size(); ++i)
    if (strides[i] == 1) out.push_back(static_cast<int>(i));
  return out;
}

std::pair<Expr, Expr> ShapeTracker::expr_idxs(std::optional<std::vector<Expr>> idxs,
                                              const IdxEnds& ends) const {
  std::vector<Expr> current = idxs ? *idxs : default_idxs(shape());
  const IdxEnds own = idxs ? IdxEnds{} : default_ends(shape(), current);
  const IdxBounds bounds{idxs ? ends : own, current, std::nullopt};
  auto [idx, valid] = expr_view(views.back(), current, std::nullopt);
  for (size_t k = views.size() - 1; k-- > 0;) {
    if (valid.max() == 0) return {Expr(int64_t{-1}), valid};
    View view = views[k].minify();
    std::vector<Expr> split(view.shape.size());
    sint acc = 1;
    for (size_t d = view.shape.size(); d-- > 0;) {
      split[d] = split_mod(split_div(idx, acc, bounds), view.shape[d], bounds);
      acc = acc * view.shape[d];
    }
    std::tie(idx, valid) = expr_view(view, split, valid);
  }
  // (no lambda for the message: clang 15 cannot capture the structured binding idx)
  if (idx.min() < -(int64_t{1} << 31)) fail("AssertionError", "idx.min too small. idx=" + idx.render());
  if (idx.max() >= (int64_t{1} << 31)) fail("AssertionError", "idx.max too big. idx=" + idx.render());
  return {idx, valid};
}

bool ShapeTracker::axis_is_masked(int axis) const {
  auto [idx, valid] = expr_idxs();
  const std::string name = "idx" + std::to_string(axis);
  for (const Expr& v : valid.vars())
    if (v.node()->name == name) return true;
  return false;
}

ShapeTracker ShapeTracker::simplify() const {
  ShapeTracker ret = *this;
  while (ret.views.size() >= 2) {
    auto merged = ret.views.back().merge_onto(ret.views[ret.views.size() - 2]);
    if (!merged) break;
    ret.views.pop_back();
    ret.views.back() = *merged;
  }
  return ret;
}

namespace {
ShapeTracker with_last(const ShapeTracker& st, View v) {
  ShapeTracker ret = st;
  ret.views.back() = std::move(v);
  return ret;
}
} // namespace

ShapeTracker ShapeTracker::pad(const std::vector<std::pair<int64_t, int64_t>>& arg) const {
  return with_last(*this, views.back().pad(arg));
}
ShapeTracker ShapeTracker::shrink(const std::vector<std::pair<int64_t, int64_t>>& arg) const {
  return with_last(*this, views.back().shrink(arg));
}
ShapeTracker ShapeTracker::shrink_symbolic(const DimPairs& arg) const {
  return with_last(*this, views.back().shrink_symbolic(arg));
}
ShapeTracker ShapeTracker::pad_symbolic(const DimPairs& arg) const {
  return with_last(*this, views.back().pad_symbolic(arg));
}
ShapeTracker ShapeTracker::expand(const Shape& new_shape) const {
  return with_last(*this, views.back().expand(new_shape));
}
ShapeTracker ShapeTracker::permute(const std::vector<int>& axis) const {
  return with_last(*this, views.back().permute(axis));
}
ShapeTracker ShapeTracker::stride(const std::vector<int64_t>& mul) const {
  return with_last(*this, views.back().stride(mul));
}
ShapeTracker ShapeTracker::reshape(const Shape& new_shape) const {
  if (auto v = views.back().reshape(new_shape)) return with_last(*this, *v);
  ShapeTracker ret = *this;
  ret.views.push_back(View::create(new_shape));
  return ret;
}

} // namespace tg
