#include "shape/sint.h"

#include "util/error.h"

namespace tg {

sint::sint(const Expr& e) {
  if (e.is_num())
    v_ = e.num();
  else
    e_ = e.node(), v_ = e.max();
}

void sint::not_concrete() const {
  fail("NotImplementedError", "symbolic dimension " + expr().render() + " where tg needs a concrete size");
}

int64_t eval_dim(const sint& d, const std::vector<VarBinding>& vars) {
  if (d.is_int()) return int64_t(d);
  std::vector<std::pair<Expr, Expr>> vals;
  for (const Expr& v : d.expr().vars()) {
    const VarBinding* b = nullptr;
    for (const VarBinding& x : vars)
      if (x.name == v.node()->name) b = &x;
    if (!b)
      fail("ValueError", "symbolic dimension " + d.str() + " uses variable '" + v.node()->name +
                             "', which the program does not define");
    vals.push_back({v, Expr(b->value)});
  }
  Expr r = d.expr().substitute(vals);
  if (!r.is_num()) fail("ValueError", "symbolic dimension " + d.str() + " does not evaluate to an int");
  return r.num();
}

sint operator+(const sint& a, const sint& b) {
  if (a.is_int() && b.is_int()) return sint(int64_t(a) + int64_t(b));
  return sint(a.expr() + b.expr());
}
sint operator-(const sint& a, const sint& b) {
  if (a.is_int() && b.is_int()) return sint(int64_t(a) - int64_t(b));
  return sint(a.expr() - b.expr());
}
sint operator*(const sint& a, const sint& b) {
  if (a.is_int() && b.is_int()) return sint(int64_t(a) * int64_t(b));
  return sint(a.expr() * b.expr());
}

bool maybe_lt(const sint& a, const sint& b) {
  if (a.is_int() && b.is_int()) return int64_t(a) < int64_t(b);
  return !(a == b) && a.min() < b.max();
}

namespace {
[[noreturn]] void undecided(const char* op, const sint& a, const sint& b, const char* what) {
  fail("NotImplementedError", std::string("tg: ") + what + " needs " + op + "(" + a.str() + ", " + b.str() +
                                  "), which depends on the variables' values");
}
} // namespace

sint smin(const sint& a, const sint& b, const char* what) {
  if (a.max() <= b.min()) return a;
  if (b.max() <= a.min()) return b;
  undecided("min", a, b, what);
}

sint smax(const sint& a, const sint& b, const char* what) {
  if (a.max() <= b.min()) return b;
  if (b.max() <= a.min()) return a;
  undecided("max", a, b, what);
}

} // namespace tg
