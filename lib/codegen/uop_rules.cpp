// codegen layer, rewrite rules: tinygrad 0.9.1's constant_folder as a table of (pattern, rewrite)
// pairs. Constants fold through exec_alu, the evaluator the lazy graph folds with.
#include <algorithm>
#include <cmath>

#include "codegen/uops.h"
#include "ops/exec_alu.h"

namespace tg {

// ---------------------------------------------------------------- constant_folder

namespace {

using P = UPat;
bool int_like(const UOp* u) { return u->dtype && (is_int(*u->dtype) || *u->dtype == DType::Bool); }
bool int_typed(const UOp* u) { return u->dtype && is_int(*u->dtype); }
// op over constants in `like`'s dtype (index arithmetic: ints, so it cannot raise)
Scalar fold(Op op, const UOp* like, const std::vector<Scalar>& vals) {
  return exec_alu(op, *like->dtype, vals);
}
Scalar fold(Op op, const UOp* like, std::initializer_list<const UOp*> consts) {
  std::vector<Scalar> vals;
  for (const UOp* c : consts) vals.push_back(c->value());
  return fold(op, like, vals);
}

const UOp* fold_const_alu(const UOp* root, UOpGraph& g) {
  if (root->op != UOps::ALU || !root->dtype) return nullptr;
  std::vector<Scalar> vals;
  for (const UOp* s : root->src) {
    if (s->op != UOps::CONST) return nullptr;
    vals.push_back(s->value());
  }
  DType operand_dtype = root->src.back()->dtype.value_or(*root->dtype);
  if (root->alu() == Op::CMPLT || root->alu() == Op::CMPNE)
    operand_dtype = root->src[0]->dtype.value_or(operand_dtype);
  auto r = try_exec_alu(root->alu(), *root->dtype, vals, operand_dtype);
  return r ? g.cnst(*root->dtype, *r) : nullptr;
}

// value of a CONST cast to dtype, as C would convert it (nullopt where C is undefined)
std::optional<Scalar> cast_const(const Scalar& v, DType from, DType to) {
  if (to == DType::Bool) return Scalar::of_bool(v.truthy());
  if (is_int(to) && v.kind == Scalar::Kind::Float) {
    if (!std::isfinite(v.f) || std::fabs(v.f) >= 9.2e18) return std::nullopt;
    return truncate(Scalar::of_int(int64_t(v.f)), to);
  }
  if (is_float(to) && is_unsigned(from) && v.kind == Scalar::Kind::Int)
    return truncate(Scalar::of_float(double(uint64_t(v.i))), to);
  return truncate(as_const(v, to), to);
}

const UOp* sub(UOpGraph& g, const UOp* a, const UOp* b) { return g.add(a, g.neg(b)); }

// tinygrad 0.9.1's loop_collapse: where(idx + mval*r < compval, multconst, 0) summed over a
// reduce loop r in [start, end) is multconst times the number of r that pass, a closed form.
// The UNMUL carries the loop's length, which the sum's `x*n` (sum_collapse) then cancels.
const UOp* loop_collapse(const Bindings& b, const UOp* mval, UOpGraph& g) {
  const UOp *start = b.at("loop_start"), *end = b.at("loop_end"), *multconst = b.at("multconst");
  if (!std::get<LoopArg>(b.at("rng")->arg).reduce) return nullptr;
  if (mval->value().as_double() >= 0 || !start->is_const() || start->value().as_double() != 0) return nullptr;
  const UOp* span = sub(g, end, start);
  const UOp* passing = g.alu(Op::IDIV, {sub(g, sub(g, b.at("idx"), b.at("compval")), mval), mval});
  const UOp* clamped = g.alu(Op::MAX, {g.add(passing, span), start});
  const UOp* comprange = g.neg(g.alu(Op::MAX, {g.neg(end), g.neg(clamped)})); // min(end, clamped)
  DType dt = *multconst->dtype;
  return g.make(UOps::UNMUL, dt, {g.mul(g.cast(comprange, dt), multconst), span});
}

// float4: the vector v when `u` is a CAST of v's lanes 0..n-1 in order (n 2 or 4), GEPs as
// `lane_of` finds them in u's sources; else nullptr
template <class LaneOf> const UOp* regrouped(const UOp* u, LaneOf lane_of) {
  if (u->op != UOps::CAST || (u->src.size() != 4 && u->src.size() != 2)) return nullptr;
  const UOp* v = nullptr;
  for (size_t i = 0; i < u->src.size(); i++) {
    const UOp* gep = lane_of(u->src[i]);
    if (!gep || gep->op != UOps::GEP || std::get<int>(gep->arg) != int(i) || (v && gep->src[0] != v))
      return nullptr;
    v = gep->src[0];
  }
  return v;
}

// tinygrad 0.9.1's sum_collapse: acc + v over a loop, v not reading the loop, is acc + v*n
const UOp* sum_collapse(const Bindings& b, UOpGraph& g) {
  const UOp *acc = b.at("phi_input"), *loop = b.at("loop");
  if (acc->vcount != 1) return nullptr; // scalar accumulators only: tg's vector lanes have no x*n
  for (auto [v1, v2] : {std::pair(b.at("val1"), b.at("val2")), std::pair(b.at("val2"), b.at("val1"))}) {
    // (tinygrad's `loop not in v1.parents`; v1 being the loop itself also counts as reading it)
    if (graph_has(v1, [loop](const UOp* u) { return u == loop; }) || v1->vcount != 1) continue;
    const UOp* n = g.cast(sub(g, loop->src[1], loop->src[0]), *v1->dtype);
    return g.add(g.make(UOps::PHI, acc->dtype, {acc, v2}), g.mul(v1, n));
  }
  return nullptr;
}

P op_pattern(UOps op, std::string name = "") {
  P p = P::any(std::move(name));
  p.op = op;
  return p;
}

void add_loop_collapse_rules(std::vector<RewriteRule>& r) {
  auto rng = P::of(UOps::RANGE, {P::any("loop_start"), P::any("loop_end")}, "rng");
  auto gate = [](P stepped) {
    return P::of_alu(
        Op::WHERE,
        {P::of_alu(Op::CMPLT, {P::of_alu(Op::ADD, {P::any("idx"), std::move(stepped)}), P::cvar("compval")}),
         P::cvar("multconst"), P::cnst(0)});
  };
  r.push_back({"where(idx+mval*r < c, m, 0) -> unmul(m*count, n)",
               gate(P::of_alu(Op::MUL, {P::cvar("mval"), rng})),
               [](const Bindings& b, const UOp*, UOpGraph& g) { return loop_collapse(b, b.at("mval"), g); }});
  r.push_back({"where(idx-r < c, m, 0) -> unmul(m*count, n)", gate(P::of_alu(Op::NEG, {rng})),
               [](const Bindings& b, const UOp*, UOpGraph& g) {
                 return loop_collapse(b, g.cnst(DType::Int32, Scalar::of_int(-1)), g);
               }});
  r.push_back(
      {"phi(acc, v+x), v outside the loop -> phi(acc, x) + v*n",
       P::of(UOps::PHI, {P::of(UOps::DEFINE_ACC, {P::cvar(""), op_pattern(UOps::RANGE, "loop")}, "phi_input"),
                         P::of_alu(Op::ADD, {P::any("val1"), P::any("val2")})}),
       [](const Bindings& b, const UOp*, UOpGraph& g) { return sum_collapse(b, g); }});
  r.push_back(
      {"phi(gep(acc), v+x), v outside the loop -> phi(gep(acc), x) + v*n",
       P::of(UOps::PHI,
             {P::of(UOps::GEP, {P::of(UOps::DEFINE_ACC, {P::cvar(""), op_pattern(UOps::RANGE, "loop")})},
                    "phi_input"),
              P::of_alu(Op::ADD, {P::any("val1"), P::any("val2")})}),
       [](const Bindings& b, const UOp*, UOpGraph& g) { return sum_collapse(b, g); }});
  r.push_back({"unmul(v, n)*n -> v", P::of_alu(Op::MUL, {P::cvar("c1"), op_pattern(UOps::UNMUL, "u")}),
               [](const Bindings& b, const UOp*, UOpGraph&) -> const UOp* {
                 const UOp* u = b.at("u");
                 // tinygrad matches UNMUL's sources as a list: the first CONST one is the count
                 int c = u->src[0]->is_const() ? 0 : u->src[1]->is_const() ? 1 : -1;
                 if (c < 0) return nullptr;
                 bool same = b.at("c1")->value().as_double() == u->src[size_t(c)]->value().as_double();
                 return same ? u->src[size_t(1 - c)] : nullptr;
               }});
  r.push_back({"unmul(0, n) -> 0", P::of(UOps::UNMUL, {P::cnst(0), P::any()}),
               [](const Bindings&, const UOp* root, UOpGraph&) { return root->src[0]; }});
  r.push_back({"cast(unmul(v, n)) -> unmul(cast(v), n)", P::of(UOps::CAST, {op_pattern(UOps::UNMUL, "u")}),
               [](const Bindings& b, const UOp* root, UOpGraph& g) {
                 const UOp* u = b.at("u");
                 return g.make(UOps::UNMUL, root->dtype, {g.cast(u->src[0], *root->dtype), u->src[1]});
               }});
}

std::vector<RewriteRule> make_constant_folder_rules(bool with_loop_collapse) {
  std::vector<RewriteRule> r;
  // ** arange loop folding (early, as in tinygrad) **
  if (with_loop_collapse) add_loop_collapse_rules(r);
  auto x = P::any("x");
  // ** constant folding **
  r.push_back({"alu(const, ...) -> const",
               [] {
                 P p;
                 p.op = UOps::ALU;
                 return p;
               }(),
               [](const Bindings&, const UOp* root, UOpGraph& g) { return fold_const_alu(root, g); }});
  r.push_back({"cast(const) -> const", P::of(UOps::CAST, {P::cvar("c")}),
               [](const Bindings& b, const UOp* root, UOpGraph& g) -> const UOp* {
                 const UOp* c = b.at("c");
                 auto v = cast_const(c->value(), c->dtype.value_or(*root->dtype), *root->dtype);
                 return v ? g.cnst(*root->dtype, *v) : nullptr;
               }});
  r.push_back({"cast(x) to x's dtype -> x", P::of(UOps::CAST, {x}),
               [](const Bindings& b, const UOp* root, UOpGraph&) -> const UOp* {
                 return b.at("x")->dtype == root->dtype ? b.at("x") : nullptr;
               }});
  r.push_back({"gep(const) -> const", P::of(UOps::GEP, {P::cvar("c")}),
               [](const Bindings& b, const UOp* root, UOpGraph& g) {
                 return g.cnst(*root->dtype, b.at("c")->value());
               }});
  // (tinygrad turns a float4 accumulator outside any loop into a float4 constant, whose GEPs
  // fold; here its initial value is a CAST of lanes, and a lane of that is its source)
  r.push_back({"gep(cast(x0, x1, ...), i) -> xi", P::of(UOps::GEP, {op_pattern(UOps::CAST, "c")}),
               [](const Bindings& b, const UOp* root, UOpGraph&) -> const UOp* {
                 const UOp* c = b.at("c");
                 const int i = std::get<int>(root->arg);
                 return c->src.size() > 1 && i < int(c->src.size()) ? c->src[size_t(i)] : nullptr;
               }});
  // ** float4: a vector stored whole, accumulators updated whole **
  r.push_back({"store(buf, idx, cast(gep(v, 0..n-1))) -> store(buf, idx, v)",
               P::of(UOps::STORE, {P::any("buf"), P::any("idx"), op_pattern(UOps::CAST, "c")}),
               [](const Bindings& b, const UOp*, UOpGraph& g) -> const UOp* {
                 const UOp* v = regrouped(b.at("c"), [](const UOp* s) { return s; });
                 return v ? g.make(UOps::STORE, std::nullopt, {b.at("buf"), b.at("idx"), v}) : nullptr;
               }});
  r.push_back({"cast(phi(gep(acc, i), v_i)...) -> phi(acc, cast(v_i...))", op_pattern(UOps::CAST),
               [](const Bindings&, const UOp* root, UOpGraph& g) -> const UOp* {
                 const UOp* acc = regrouped(root, [](const UOp* s) {
                   return s->op == UOps::PHI && s->src.size() == 2 ? s->src[0] : nullptr;
                 });
                 if (!acc) return nullptr;
                 std::vector<const UOp*> vals;
                 for (const UOp* s : root->src) vals.push_back(s->src[1]);
                 return g.make(UOps::PHI, acc->dtype, {acc, g.make(UOps::CAST, acc->dtype, vals)});
               }});
  // ** accumulators: a DEFINE_ACC outside any loop is its initial value (every lane of it) **
  auto acc_init = [](const UOp* acc, UOpGraph& g) {
    const UOp* c = g.cast(acc->src[0], *acc->dtype);
    return acc->vcount > 1 ? g.make(UOps::CAST, acc->dtype, std::vector<const UOp*>(size_t(acc->vcount), c))
                           : c;
  };
  r.push_back({"define_acc(const) -> const", P::of(UOps::DEFINE_ACC, {P::cvar("c")}),
               [acc_init](const Bindings&, const UOp* root, UOpGraph& g) { return acc_init(root, g); }});
  r.push_back({"phi(acc, acc) -> acc init",
               P::of(UOps::PHI, {[] {
                                   P a = P::any("acc");
                                   a.op = UOps::DEFINE_ACC;
                                   return a;
                                 }(),
                                 P::any("acc")}),
               [acc_init](const Bindings& b, const UOp*, UOpGraph& g) { return acc_init(b.at("acc"), g); }});
  r.push_back({"phi(const, x) -> x", P::of(UOps::PHI, {P::cvar("c"), x}),
               [](const Bindings& b, const UOp*, UOpGraph&) { return b.at("x"); }});
  r.push_back({"phi(splat(const), x) -> x",
               P::of(UOps::PHI, {[] {
                                   P c = P::any("c");
                                   c.op = UOps::CAST;
                                   return c;
                                 }(),
                                 x}),
               [](const Bindings& b, const UOp*, UOpGraph&) -> const UOp* {
                 const UOp* c = b.at("c");
                 bool splat =
                     c->src.size() > 1 && c->src[0]->is_const() &&
                     std::all_of(c->src.begin(), c->src.end(), [&](const UOp* s) { return s == c->src[0]; });
                 return splat ? b.at("x") : nullptr;
               }});
  // ** conditionals **
  r.push_back({"where(g, v, v) -> v", P::of_alu(Op::WHERE, {P::any(), P::any("v"), P::any("v")}),
               [](const Bindings& b, const UOp*, UOpGraph&) { return b.at("v"); }});
  r.push_back({"where(const, a, b) -> a or b", P::of_alu(Op::WHERE, {P::cvar("c"), P::any("a"), P::any("b")}),
               [](const Bindings& b, const UOp*, UOpGraph&) {
                 return b.at("c")->value().truthy() ? b.at("a") : b.at("b");
               }});
  // ** self folding **
  r.push_back({"-(-x) -> x", P::of_alu(Op::NEG, {P::of_alu(Op::NEG, {x})}),
               [](const Bindings& b, const UOp*, UOpGraph&) { return b.at("x"); }});
  r.push_back({"x+0 -> x", P::of_alu(Op::ADD, {x, P::cnst(0)}),
               [](const Bindings& b, const UOp*, UOpGraph&) { return b.at("x"); }});
  r.push_back({"x*1 -> x", P::of_alu(Op::MUL, {x, P::cnst(1)}),
               [](const Bindings& b, const UOp*, UOpGraph&) { return b.at("x"); }});
  r.push_back({"x*-1 -> -x", P::of_alu(Op::MUL, {x, P::cnst(-1)}),
               [](const Bindings& b, const UOp*, UOpGraph& g) -> const UOp* {
                 return b.at("x")->dtype != DType::Bool ? g.neg(b.at("x")) : nullptr;
               }});
  r.push_back({"x*0 -> 0 (ints)", P::of_alu(Op::MUL, {x, P::cnst(0)}),
               [](const Bindings& b, const UOp*, UOpGraph& g) -> const UOp* {
                 return int_like(b.at("x")) ? g.like(b.at("x"), 0) : nullptr;
               }});
  r.push_back({"x//1 -> x", P::of_alu(Op::IDIV, {x, P::cnst(1)}),
               [](const Bindings& b, const UOp*, UOpGraph&) { return b.at("x"); }});
  r.push_back({"x//-1 -> -x", P::of_alu(Op::IDIV, {x, P::cnst(-1)}),
               [](const Bindings& b, const UOp*, UOpGraph& g) { return g.neg(b.at("x")); }});
  r.push_back({"x%1 -> 0", P::of_alu(Op::MOD, {x, P::cnst(1)}),
               [](const Bindings& b, const UOp*, UOpGraph& g) { return g.like(b.at("x"), 0); }});
  // ** index arithmetic (ints only: exact there, not for floats) **
  r.push_back({"(x+c1)+c2 -> x+(c1+c2)",
               P::of_alu(Op::ADD, {P::of_alu(Op::ADD, {x, P::cvar("c1")}), P::cvar("c2")}),
               [](const Bindings& b, const UOp*, UOpGraph& g) -> const UOp* {
                 const UOp* v = b.at("x");
                 if (!int_typed(v)) return nullptr;
                 return g.add(v, g.cnst(*v->dtype, fold(Op::ADD, v, {b.at("c1"), b.at("c2")})));
               }});
  r.push_back({"(x*c1)*c2 -> x*(c1*c2)",
               P::of_alu(Op::MUL, {P::of_alu(Op::MUL, {x, P::cvar("c1")}), P::cvar("c2")}),
               [](const Bindings& b, const UOp*, UOpGraph& g) -> const UOp* {
                 const UOp* v = b.at("x");
                 if (!int_typed(v)) return nullptr;
                 return g.mul(v, g.cnst(*v->dtype, fold(Op::MUL, v, {b.at("c1"), b.at("c2")})));
               }});
  r.push_back(
      {"x*c0+x*c1 -> x*(c0+c1)",
       P::of_alu(Op::ADD, {P::of_alu(Op::MUL, {x, P::cvar("c0")}), P::of_alu(Op::MUL, {x, P::cvar("c1")})}),
       [](const Bindings& b, const UOp*, UOpGraph& g) -> const UOp* {
         const UOp* v = b.at("x");
         if (!int_typed(v)) return nullptr;
         return g.mul(v, g.cnst(*v->dtype, fold(Op::ADD, v, {b.at("c0"), b.at("c1")})));
       }});
  r.push_back(
      {"x+x*c -> x*(c+1)", P::of_alu(Op::ADD, {x, P::of_alu(Op::MUL, {x, P::cvar("c")})}),
       [](const Bindings& b, const UOp*, UOpGraph& g) -> const UOp* {
         const UOp* v = b.at("x");
         if (!int_typed(v)) return nullptr;
         return g.mul(v, g.cnst(*v->dtype, fold(Op::ADD, v, {b.at("c")->value(), Scalar::of_int(1)})));
       }});
  r.push_back({"(x*c)//c -> x", P::of_alu(Op::IDIV, {P::of_alu(Op::MUL, {x, P::cvar("c")}), P::cvar("c")}),
               [](const Bindings& b, const UOp*, UOpGraph&) -> const UOp* {
                 return int_typed(b.at("x")) && b.at("c")->value().i != 0 ? b.at("x") : nullptr;
               }});
  r.push_back({"(x//c0)//c1 -> x//(c0*c1)",
               P::of_alu(Op::IDIV, {P::of_alu(Op::IDIV, {x, P::cvar("c0")}), P::cvar("c1")}),
               [](const Bindings& b, const UOp*, UOpGraph& g) -> const UOp* {
                 const UOp* v = b.at("x");
                 int64_t c0 = b.at("c0")->value().i, c1 = b.at("c1")->value().i;
                 if (!int_typed(v) || c0 <= 0 || c1 <= 0) return nullptr;
                 return g.alu(Op::IDIV, {v, g.cnst(*v->dtype, Scalar::of_int(c0 * c1))});
               }});
  r.push_back(
      {"c0+x < c1 -> x < c1-c0",
       P::of_alu(Op::CMPLT, {P::of_alu(Op::ADD, {P::cvar("c0"), x}), P::cvar("c1")}),
       [](const Bindings& b, const UOp*, UOpGraph& g) -> const UOp* {
         const UOp* v = b.at("x");
         if (!int_typed(v)) return nullptr;
         return g.alu(
             Op::CMPLT,
             {v, g.cnst(*v->dtype, fold(Op::ADD, v, {b.at("c1")->value(), fold(Op::NEG, v, {b.at("c0")})}))});
       }});
  r.push_back({"-x < c -> -c < x", P::of_alu(Op::CMPLT, {P::of_alu(Op::NEG, {x}), P::cvar("c")}),
               [](const Bindings& b, const UOp*, UOpGraph& g) -> const UOp* {
                 const UOp* v = b.at("x");
                 if (!int_typed(v)) return nullptr;
                 return g.alu(Op::CMPLT, {g.cnst(*v->dtype, fold(Op::NEG, v, {b.at("c")})), v});
               }});
  // ** gated loads and stores with a constant gate **
  // (a LOAD with a LaneRange has lane bounds where a gated one has its gate and alternative)
  r.push_back({"load(buf, idx, true, alt) -> load(buf, idx)",
               P::of(UOps::LOAD, {P::any("buf"), P::any("idx"), P::cnst(1), P::cvar("alt")}),
               [](const Bindings& b, const UOp* root, UOpGraph& g) -> const UOp* {
                 if (std::holds_alternative<LaneRange>(root->arg)) return nullptr;
                 return g.make(UOps::LOAD, root->dtype, {b.at("buf"), b.at("idx")}, root->arg);
               }});
  r.push_back({"load(buf, idx, false, alt) -> alt",
               P::of(UOps::LOAD, {P::any(), P::any(), P::cnst(0), P::cvar("alt")}),
               [](const Bindings& b, const UOp* root, UOpGraph&) -> const UOp* {
                 return std::holds_alternative<LaneRange>(root->arg) ? nullptr : b.at("alt");
               }});
  r.push_back({"store(buf, idx, v, true) -> store(buf, idx, v)",
               P::of(UOps::STORE, {P::any("buf"), P::any("idx"), P::any("v"), P::cnst(1)}),
               [](const Bindings& b, const UOp*, UOpGraph& g) {
                 return g.make(UOps::STORE, std::nullopt, {b.at("buf"), b.at("idx"), b.at("v")});
               }});
  r.push_back({"store(buf, idx, v, false) -> noop",
               P::of(UOps::STORE, {P::any(), P::any(), P::any(), P::cnst(0)}),
               [](const Bindings&, const UOp*, UOpGraph& g) { return g.make(UOps::NOOP, std::nullopt); }});
  r.push_back({"sink drops noops",
               [] {
                 P p;
                 p.op = UOps::SINK;
                 return p;
               }(),
               [](const Bindings&, const UOp* root, UOpGraph& g) -> const UOp* {
                 std::vector<const UOp*> keep;
                 for (const UOp* s : root->src)
                   if (s->op != UOps::NOOP) keep.push_back(s);
                 if (keep.size() == root->src.size()) return nullptr;
                 return g.make(UOps::SINK, std::nullopt, keep, root->arg);
               }});
  return r;
}

} // namespace

const PatternMatcher& constant_folder(bool loop_collapse) {
  static const PatternMatcher with(make_constant_folder_rules(true)),
      without(make_constant_folder_rules(false));
  return loop_collapse ? with : without;
}

} // namespace tg
