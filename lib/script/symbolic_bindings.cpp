// The script's tinygrad Variable (shape/symbolic.py): Variable("i", 1, 10).bind(3) is a
// symbolic dimension for shapes (reshape, expand, shrink ...). The binding is the program's
// default value for the variable; tg-run --var gives another.
#include "lazy/lazybuffer.h"
#include "script/interp.h"
#include "util/identifier.h"

namespace tg::script {

// tinygrad's str(node): "<i[1-10]>", "<i[1-10=3]>" once bound.
std::string node_str(const Expr& e) {
  if (e.kind() != ExprKind::Var) return "<" + e.render_debug() + ">";
  std::string bound;
  for (const VarBinding& b : bound_vars())
    if (b.name == e.node()->name) bound = "=" + std::to_string(b.value);
  return "<" + script_var_name(e.node()->name) + "[" + std::to_string(e.min()) + "-" +
         std::to_string(e.max()) + bound + "]>";
}

namespace {

using Args = std::vector<Value>;

const Expr& sym(const Value& v) { return v.as<SymObj>().e; }

const Expr& variable(const Value& v, const char* what) {
  if (v.kind != VKind::Symbol || sym(v).kind() != ExprKind::Var)
    raise("AttributeError", "'" + type_name(v) + "' object has no attribute '" + what + "'");
  return sym(v);
}

// An operand of symbol arithmetic or comparison: a symbol, or an int.
std::optional<Expr> operand(const Value& v) {
  if (v.kind == VKind::Symbol) return sym(v);
  if (v.is_intlike()) return Expr(v.as_int());
  return std::nullopt;
}

} // namespace

// Symbol arithmetic: + - * with ints and other symbols, // and % by an int.
std::optional<Value> symbol_op(PyOp op, const Value& a, const Value& b) {
  auto x = operand(a), y = operand(b);
  if (!x || !y) return std::nullopt;
  switch (op) {
  case PyOp::Add:
    return Value::symbol(sint(*x + *y));
  case PyOp::Sub:
    return Value::symbol(sint(*x - *y));
  case PyOp::Mul:
    return Value::symbol(sint(*x * *y));
  case PyOp::FloorDiv:
    if (!y->is_num() || y->num() == 0) return std::nullopt;
    return Value::symbol(sint(x->floordiv(y->num())));
  case PyOp::Mod:
    if (!y->is_num() || y->num() <= 0) return std::nullopt;
    return Value::symbol(sint(*x % y->num()));
  default:
    return std::nullopt;
  }
}

std::optional<bool> symbol_compare(PyOp op, const Value& a, const Value& b) {
  if (a.kind != VKind::Symbol && b.kind != VKind::Symbol) return std::nullopt;
  auto x = operand(a), y = operand(b);
  if (!x || !y) return std::nullopt;
  // Node.__le__ is a < b+1, __gt__ is -a < -b (b < a), __ge__ is -a < -b+1 (b < a+1)
  const sint p(*x), q(*y);
  switch (op) {
  case PyOp::Lt:
    return maybe_lt(p, q);
  case PyOp::Le:
    return maybe_lt(p, q + 1);
  case PyOp::Gt:
    return maybe_lt(q, p);
  case PyOp::Ge:
    return maybe_lt(q, p + 1);
  default:
    return std::nullopt;
  }
}

void register_symbolic(Registry& r) {
  r.function(
      "Variable", "expr, nmin, nmax", +[](Interp&, Args& a) {
        if (a[0].kind != VKind::Str) raise("TypeError", "Variable's name must be a str");
        int64_t lo = to_index(a[1]), hi = to_index(a[2]);
        const std::string& name = a[0].s();
        if (!(lo >= 0 && lo <= hi))
          raise("AssertionError", "invalid Variable expr='" + name + "' nmin=" + std::to_string(lo) +
                                      " nmax=" + std::to_string(hi));
        if (!is_identifier(name))
          raise("ValueError", "tg: a Variable's name must be an identifier, got '" + name + "'");
        if (hi > INT32_MAX)
          raise("ValueError", "tg: a Variable's range must fit in int32, got nmax=" + std::to_string(hi));
        return Value::symbol(sint(Expr::var(name, lo, hi))); // nmin == nmax: a NumNode, an int
      });
  r.method(
      VKind::Symbol, "bind", "self, val",
      +[](Interp&, Args& a) {
        const Expr v = variable(a[0], "bind");
        int64_t val = to_index(a[1]);
        SymObj& obj = a[0].as<SymObj>();
        if (obj.bound || !(v.min() <= val && val <= v.max()))
          raise("AssertionError", "cannot bind " + std::to_string(val) + " to " + node_str(v));
        // (another Variable of a bound name becomes another program variable, as its own object
        // in tinygrad; this object now names it, as Variable.bind mutates self)
        std::string name = bind_script_var(v.node()->name, v.min(), v.max(), val);
        if (name != v.node()->name) obj.e = Expr::var(name, v.min(), v.max());
        obj.bound = true;
        return a[0];
      },
      "Variable");
  auto p = [&](const char* name, Getter g) { r.properties[int(VKind::Symbol)][intern(name)] = g; };
  p(
      "val", +[](Interp&, const Value& v) {
        const Expr& e = variable(v, "val");
        for (const VarBinding& b : bound_vars())
          if (b.name == e.node()->name) return Value::integer(b.value);
        raise("AssertionError", "Variable isn't bound, can't access val of " + node_str(e));
      });
  p(
      "expr",
      +[](Interp&, const Value& v) { return Value::str(script_var_name(variable(v, "expr").node()->name)); });
  p(
      "min", +[](Interp&, const Value& v) { return Value::integer(sym(v).min()); });
  p(
      "max", +[](Interp&, const Value& v) { return Value::integer(sym(v).max()); });
}

} // namespace tg::script
