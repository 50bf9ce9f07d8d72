// lazy layer: tinygrad's repr of symbolic expressions. See sym_repr.h.
#include "lazy/sym_repr.h"

#include <algorithm>
#include <vector>

#include "lazy/lazybuffer.h"
#include "shape/symbolic.h"

namespace tg {

namespace {

// symbolic.py's render_python with ctx="REPR": each leaf as its constructor,
// Sum and And operands sorted as text, a product of two variables with the smaller name first.
std::string node_repr(const ExprNode* n) {
  switch (n->kind) {
  case ExprKind::Num:
    return "NumNode(" + std::to_string(n->b) + ")";
  case ExprKind::Var: {
    std::string r = "Variable('" + script_var_name(n->name) + "', " + std::to_string(n->min) + ", " +
                    std::to_string(n->max) + ")";
    for (const VarBinding& b : bound_vars())
      if (b.name == n->name) r += ".bind(" + std::to_string(b.value) + ")";
    return r;
  }
  case ExprKind::Mul: {
    std::string a = node_repr(n->a), b = n->bn ? node_repr(n->bn) : std::to_string(n->b);
    if (n->bn && n->a->kind == ExprKind::Var && n->bn->kind == ExprKind::Var &&
        script_var_name(n->bn->name) < script_var_name(n->a->name)) // (.expr: the script's names)
      std::swap(a, b);
    return "(" + a + "*" + b + ")";
  }
  case ExprKind::Div:
    return "(" + node_repr(n->a) + "//" + std::to_string(n->b) + ")";
  case ExprKind::Mod:
    return "(" + node_repr(n->a) + "%" + std::to_string(n->b) + ")";
  case ExprKind::Lt:
    return "(" + node_repr(n->a) + "<" + std::to_string(n->b) + ")";
  case ExprKind::Sum:
  case ExprKind::And: {
    std::vector<std::string> parts;
    for (const ExprNode* c : n->nodes) parts.push_back(node_repr(c));
    std::sort(parts.begin(), parts.end());
    std::string out = "(", sep = n->kind == ExprKind::Sum ? "+" : " and ";
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
    return out + ")";
  }
  }
  return "?";
}

} // namespace

std::string sym_repr(const Expr& e) { return node_repr(e.node()); }

std::string sym_repr(const sint& d) { return d.is_int() ? std::to_string(int64_t(d)) : sym_repr(d.expr()); }

std::string shape_sym_repr(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + sym_repr(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

} // namespace tg
