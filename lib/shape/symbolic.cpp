// Symbolic integer expressions: tinygrad 0.9.1 shape/symbolic.py. Every node is interned in
// one global table, so building the same structure twice yields the same pointer. The
// simplification rules run while nodes are built, following the Python class dispatch:
// each op below has a per-kind function (mirroring SumNode.__floordiv__, MulNode.__mod__, ...)
// and a generic one (Node.__floordiv__, Node.__mod__) that the per-kind ones fall back to.
#include "shape/symbolic.h"

#include <algorithm>
#include <mutex>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "util/error.h"

namespace tg {
namespace {

using Node = const ExprNode*;

// ---- Python integer semantics ----

int64_t floordiv_int(int64_t a, int64_t b) {
  check(b != 0, "ZeroDivisionError", "integer division or modulo by zero");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t mod_int(int64_t a, int64_t b) { return a - floordiv_int(a, b) * b; }
int64_t gcd_int(int64_t a, int64_t b) { return std::gcd(a, b); } // math.gcd: non-negative

// ---- interning ----

size_t hash_mix(size_t h, size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

struct NodeHash {
  size_t operator()(Node n) const {
    size_t h = static_cast<size_t>(n->kind);
    h = hash_mix(h, std::hash<int64_t>()(n->b));
    h = hash_mix(h, std::hash<const void*>()(n->a));
    h = hash_mix(h, std::hash<const void*>()(n->bn));
    for (Node c : n->nodes) h = hash_mix(h, std::hash<const void*>()(c));
    if (n->kind == ExprKind::Var) {
      h = hash_mix(h, std::hash<std::string>()(n->name));
      h = hash_mix(h, std::hash<int64_t>()(n->min));
      h = hash_mix(h, std::hash<int64_t>()(n->max));
    }
    return h;
  }
};
struct NodeEq {
  bool operator()(Node x, Node y) const {
    return x->kind == y->kind && x->b == y->b && x->a == y->a && x->bn == y->bn && x->nodes == y->nodes &&
           x->min == y->min && x->max == y->max && x->name == y->name;
  }
};

struct InternTable {
  std::recursive_mutex mutex;
  std::unordered_set<Node, NodeHash, NodeEq> nodes;
};
InternTable& intern_table() {
  static InternTable* table = new InternTable(); // never freed: nodes live for the whole process
  return *table;
}

Node intern(ExprNode&& tmp);

// The representative tinygrad's text equality would pick: Sum/And operands sorted (by pointer).
Node canonical_of(Node n) {
  switch (n->kind) {
  case ExprKind::Num:
  case ExprKind::Var:
    return n;
  case ExprKind::Mul:
  case ExprKind::Div:
  case ExprKind::Mod:
  case ExprKind::Lt: {
    if (n->a->canonical == n->a && (!n->bn || n->bn->canonical == n->bn)) return n;
    ExprNode c = *n;
    c.a = n->a->canonical;
    if (n->bn) c.bn = n->bn->canonical;
    c.canonical = nullptr;
    return intern(std::move(c));
  }
  case ExprKind::Sum:
  case ExprKind::And: {
    std::vector<Node> sorted;
    sorted.reserve(n->nodes.size());
    for (Node c : n->nodes) sorted.push_back(c->canonical);
    std::sort(sorted.begin(), sorted.end(), std::less<Node>());
    if (sorted == n->nodes) return n;
    ExprNode c = *n;
    c.nodes = std::move(sorted);
    c.canonical = nullptr;
    return intern(std::move(c));
  }
  }
  return n;
}

Node intern(ExprNode&& tmp) {
  InternTable& table = intern_table();
  std::lock_guard<std::recursive_mutex> lock(table.mutex);
  if (auto it = table.nodes.find(&tmp); it != table.nodes.end()) return *it;
  auto* fresh = new ExprNode(std::move(tmp));
  fresh->canonical = nullptr;
  table.nodes.insert(fresh);
  fresh->canonical = canonical_of(fresh);
  return fresh;
}

// ---- constructors (the Python class constructors plus create_node) ----

Node make_num(int64_t v) {
  ExprNode n;
  n.kind = ExprKind::Num;
  n.min = n.max = n.b = v;
  return intern(std::move(n));
}

Node variable(const std::string& name, int64_t min, int64_t max) {
  check(min >= 0 && min <= max, "AssertionError",
        "invalid Variable expr='" + name + "' nmin=" + std::to_string(min) + " nmax=" + std::to_string(max));
  if (min == max) return make_num(min);
  ExprNode n;
  n.kind = ExprKind::Var;
  n.min = min;
  n.max = max;
  n.name = name;
  return intern(std::move(n));
}

// create_node: a node whose bounds pin one value is that NumNode.
Node create(ExprNode&& n) {
  check(n.min <= n.max, "AssertionError", "min greater than max!");
  if (n.min == n.max) return make_num(n.min);
  return intern(std::move(n));
}

ExprNode op_node(ExprKind kind, Node a, int64_t b) {
  ExprNode n;
  n.kind = kind;
  n.a = a;
  n.b = b;
  switch (kind) {
  case ExprKind::Mul:
    check(a->min >= 0, "AssertionError", "MulNode operand must be non-negative");
    n.min = b >= 0 ? a->min * b : a->max * b;
    n.max = b >= 0 ? a->max * b : a->min * b;
    break;
  case ExprKind::Div:
    check(a->min >= 0, "AssertionError", "DivNode operand must be non-negative");
    n.min = floordiv_int(a->min, b);
    n.max = floordiv_int(a->max, b);
    break;
  case ExprKind::Mod:
    check(a->min >= 0, "AssertionError", "ModNode operand must be non-negative");
    if (a->max - a->min >= b || (a->min != a->max && mod_int(a->min, b) >= mod_int(a->max, b))) {
      n.min = 0;
      n.max = b - 1;
    } else {
      n.min = mod_int(a->min, b);
      n.max = mod_int(a->max, b);
    }
    break;
  case ExprKind::Lt:
    if (a->max < b)
      n.min = n.max = 1;
    else if (a->min >= b)
      n.min = n.max = 0;
    else
      n.min = 0, n.max = 1;
    break;
  default:
    fail("AssertionError", "not an op node");
  }
  return n;
}

ExprNode red_node(ExprKind kind, std::vector<Node> nodes) {
  ExprNode n;
  n.kind = kind;
  if (kind == ExprKind::Sum) {
    n.min = n.max = 0;
    for (Node c : nodes) n.min += c->min, n.max += c->max;
  } else {
    n.min = nodes[0]->min;
    n.max = nodes[0]->max;
    for (Node c : nodes) n.min = std::min(n.min, c->min), n.max = std::max(n.max, c->max);
  }
  n.nodes = std::move(nodes);
  return n;
}

bool is(Node n, ExprKind k) { return n->kind == k; }
// A MulNode by an int (the form every int-only rule below reads through ->b).
bool is_int_mul(Node n) { return n->kind == ExprKind::Mul && !n->bn; }
bool truthy(Node n) { return !(n->min == 0 && n->max == 0); }

// ---- Node.sum ----

void flat_components(Node n, std::vector<Node>& out) {
  if (is(n, ExprKind::Sum))
    for (Node c : n->nodes) flat_components(c, out);
  else
    out.push_back(n);
}

struct TermGroups { // mul_groups: insertion-ordered, keyed like a Python dict of Nodes
  std::vector<std::pair<Node, int64_t>> terms;
  std::unordered_map<Node, size_t> index; // built once the list is long enough to matter
  void add(Node a, int64_t coeff) {
    Node key = a->canonical;
    if (index.empty()) {
      for (auto& t : terms)
        if (t.first->canonical == key) {
          t.second += coeff;
          return;
        }
      terms.emplace_back(a, coeff);
      if (terms.size() == 16)
        for (size_t i = 0; i < terms.size(); ++i) index.emplace(terms[i].first->canonical, i);
      return;
    }
    auto [it, inserted] = index.emplace(key, terms.size());
    if (inserted)
      terms.emplace_back(a, coeff);
    else
      terms[it->second].second += coeff;
  }
};

Node sum_nodes(const std::vector<Node>& in) {
  std::vector<Node> nodes;
  nodes.reserve(in.size());
  for (Node x : in)
    if (x->max || x->min) nodes.push_back(x);
  if (nodes.empty()) return make_num(0);
  if (nodes.size() == 1) return nodes[0];

  std::vector<Node> flat;
  for (Node x : nodes) flat_components(x, flat);
  TermGroups groups;
  int64_t constant = 0;
  for (Node x : flat) {
    if (is(x, ExprKind::Num))
      constant += x->b;
    else if (is_int_mul(x))
      groups.add(x->a, x->b);
    else
      groups.add(x, 1);
  }
  std::vector<Node> out;
  out.reserve(groups.terms.size() + 1);
  for (auto& [a, coeff] : groups.terms) {
    if (coeff == 0) continue;
    out.push_back(coeff != 1 ? intern(op_node(ExprKind::Mul, a, coeff)) : a);
  }
  if (constant) out.push_back(make_num(constant));
  if (out.size() > 1) return create(red_node(ExprKind::Sum, std::move(out)));
  return out.size() == 1 ? out[0] : make_num(0);
}

Node add(Node x, Node y) { return sum_nodes({x, y}); }
Node add(Node x, int64_t v) { return sum_nodes({x, make_num(v)}); }

// ---- multiplication ----

Node mul_generic(Node x, int64_t b) { // Node.__mul__
  if (b == 0) return make_num(0);
  if (b == 1) return x;
  return create(op_node(ExprKind::Mul, x, b));
}

Node mul(Node x, int64_t b) {
  switch (x->kind) {
  case ExprKind::Num:
    return make_num(x->b * b);
  case ExprKind::Mul:
    if (x->bn) return mul_generic(x, b);
    return mul_generic(x->a, x->b * b); // two muls in one mul
  case ExprKind::Sum: {                 // distribute mul into sum
    std::vector<Node> parts;
    parts.reserve(x->nodes.size());
    for (Node c : x->nodes) parts.push_back(mul(c, b));
    return sum_nodes(parts);
  }
  default:
    return mul_generic(x, b);
  }
}

// MulNode(a, b) with a Node b (tinygrad's Node.__mul__ for a non-NumNode b): symbolic strides
// such as idx0*i. Sums distribute, as SumNode.__mul__ does; products of ints are ints.
Node mul(Node x, Node y) {
  if (is(y, ExprKind::Num)) return mul(x, y->b);
  if (is(x, ExprKind::Num)) return mul(y, x->b);
  if (is(x, ExprKind::Sum)) {
    std::vector<Node> parts;
    for (Node c : x->nodes) parts.push_back(mul(c, y));
    return sum_nodes(parts);
  }
  if (is(x, ExprKind::Mul) && !x->bn) return mul(x->a, mul(y, x->b)); // two muls in one mul
  check(x->min >= 0, "AssertionError", "MulNode operand must be non-negative");
  ExprNode n;
  n.kind = ExprKind::Mul;
  n.a = x;
  n.bn = y;
  n.min = y->min >= 0 ? x->min * y->min : x->max * y->min;
  n.max = y->min >= 0 ? x->max * y->max : x->min * y->max;
  return create(std::move(n));
}

// ---- floor division ----

// factoring: unset = the Python default of the receiving class (MulNode defaults to False).
using Factoring = std::optional<bool>;
Node mod(Node x, int64_t b);
Node floordiv(Node x, int64_t b, Factoring factoring = std::nullopt);

// Added for symbolic strides: a product by a node that b divides exactly ((n*128) by 128), as
// tinygrad's MulNode.__floordiv__ finds with `self.b % b == 0` on a node operand.
bool divisible(Node x, int64_t b) {
  if (is(x, ExprKind::Num) || is_int_mul(x)) return mod_int(x->b, b) == 0;
  if (is(x, ExprKind::Mul)) return divisible(x->bn, b) || divisible(x->a, b);
  if (is(x, ExprKind::Sum))
    return std::all_of(x->nodes.begin(), x->nodes.end(), [&](Node c) { return divisible(c, b); });
  return false;
}
Node exact_div(Node x, int64_t b) { // (only where divisible)
  if (is(x, ExprKind::Num)) return make_num(x->b / b);
  if (is_int_mul(x)) return mul(x->a, x->b / b);
  if (is(x, ExprKind::Sum)) {
    std::vector<Node> parts;
    for (Node c : x->nodes) parts.push_back(exact_div(c, b));
    return sum_nodes(parts);
  }
  return divisible(x->bn, b) ? mul(x->a, exact_div(x->bn, b)) : mul(exact_div(x->a, b), x->bn);
}

Node floordiv_generic(Node x, int64_t b, bool factoring) { // Node.__floordiv__
  check(b != 0, "AssertionError", "division by zero in symbolic floordiv");
  if (b < 0) return floordiv(mul(x, -1), -b, factoring);
  if (b == 1) return x;
  if (x->min < 0) { // make the numerator non-negative, then shift back; no factoring again
    int64_t offset = floordiv_int(x->min, b);
    return add(floordiv(add(x, -offset * b), b, false), offset);
  }
  return create(op_node(ExprKind::Div, x, b));
}

struct DivKey {
  Node node;
  int64_t b;
  bool factoring;
  bool operator==(const DivKey& o) const { return node == o.node && b == o.b && factoring == o.factoring; }
};
struct DivKeyHash {
  size_t operator()(const DivKey& k) const {
    return hash_mix(hash_mix(std::hash<const void*>()(k.node), std::hash<int64_t>()(k.b)), k.factoring);
  }
};

Node floordiv_sum_uncached(Node x, int64_t b, bool factoring) { // SumNode.__floordiv__
  if (b == 1) return x;
  if (!factoring) return floordiv_generic(x, b, factoring);
  int64_t gcd = b, divisor = 1;
  std::vector<Node> fully_divided, rest;
  std::vector<Node> flat;
  flat_components(x, flat);
  for (Node c : flat) {
    if (is(c, ExprKind::Mul) && c->bn && divisible(c, b)) {
      fully_divided.push_back(exact_div(c, b));
      continue;
    }
    if (is(c, ExprKind::Num) || is_int_mul(c)) {
      if (mod_int(c->b, b) == 0) {
        fully_divided.push_back(floordiv(c, b));
        continue;
      }
      if (is(c, ExprKind::Num)) {
        if (int64_t whole = floordiv_int(c->b, b)) {
          fully_divided.push_back(make_num(whole));
          c = make_num(c->b - b * whole);
        }
      }
      rest.push_back(c);
      gcd = gcd_int(gcd, c->b);
      if (is(c, ExprKind::Mul) && divisor == 1 && mod_int(b, c->b) == 0) divisor = c->b;
    } else {
      rest.push_back(c);
      gcd = 1;
    }
  }
  Node divided = sum_nodes(fully_divided);
  if (gcd > 1) return add(divided, floordiv(floordiv(sum_nodes(rest), gcd), floordiv_int(b, gcd)));
  if (divisor > 1)
    return add(divided, floordiv(floordiv(sum_nodes(rest), divisor), floordiv_int(b, divisor)));
  return add(divided, floordiv_generic(sum_nodes(rest), b, true));
}

// tinygrad memoises floordiv like a Python lru_cache (by text equality). Per thread, and emptied
// per kernel by reset_symbolic_memo: a hit for an equal-text sum returns the first one's
// result, so a process-wide table would make a kernel's text depend on which kernels were
// lowered before it, and on which thread.
using DivMemo = std::unordered_map<DivKey, Node, DivKeyHash>;
DivMemo& div_memo() {
  thread_local DivMemo memo;
  return memo;
}

Node floordiv_sum(Node x, int64_t b, bool factoring) {
  DivMemo& cache = div_memo();
  DivKey key{x->canonical, b, factoring};
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  Node r = floordiv_sum_uncached(x, b, factoring);
  cache.emplace(key, r);
  return r;
}

Node floordiv(Node x, int64_t b, Factoring factoring) {
  check(b != 0, "ZeroDivisionError", "integer division or modulo by zero");
  switch (x->kind) {
  case ExprKind::Num:
    return make_num(floordiv_int(x->b, b));
  case ExprKind::Sum:
    return floordiv_sum(x, b, factoring.value_or(true));
  case ExprKind::Mul: // MulNode.__floordiv__
    if (x->bn) return divisible(x, b) ? exact_div(x, b) : floordiv_generic(x, b, factoring.value_or(false));
    if (mod_int(x->b, b) == 0) return mul(x->a, floordiv_int(x->b, b));
    if (mod_int(b, x->b) == 0 && x->b > 0) return floordiv(x->a, floordiv_int(b, x->b));
    return floordiv_generic(x, b, factoring.value_or(false));
  case ExprKind::Div:
    return floordiv(x->a, x->b * b); // two divs is one div
  case ExprKind::Mod:
    if (mod_int(x->b, b) == 0) return mod(floordiv(x->a, b), floordiv_int(x->b, b));
    return floordiv_generic(x, b, factoring.value_or(true));
  default:
    return floordiv_generic(x, b, factoring.value_or(true));
  }
}

// ---- modulo ----

Node mod_generic(Node x, int64_t b) { // Node.__mod__
  check(b > 0, "AssertionError", "symbolic mod needs a positive divisor");
  if (b == 1) return make_num(0);
  if (x->min >= 0 && x->max < b) return x;
  int64_t low = floordiv_int(x->min, b);
  if (low == floordiv_int(x->max, b)) return add(x, -(b * low));
  if (x->min < 0) return mod(add(x, -(low * b)), b);
  return create(op_node(ExprKind::Mod, x, b));
}

Node mod(Node x, int64_t b) {
  check(b != 0, "ZeroDivisionError", "integer division or modulo by zero");
  switch (x->kind) {
  case ExprKind::Mul:
    if (x->bn) return divisible(x, b) ? make_num(0) : mod_generic(x, b);
    return mod_generic(mul_generic(x->a, mod_int(x->b, b)), b);
  case ExprKind::Mod:
    if (mod_int(x->b, b) == 0) return mod(x->a, b);
    return mod_generic(x, b);
  case ExprKind::Sum: {
    std::vector<Node> parts;
    parts.reserve(x->nodes.size());
    for (Node c : x->nodes)
      parts.push_back(is(c, ExprKind::Num) || is_int_mul(c) || (c->bn && divisible(c, b)) ? mod(c, b) : c);
    return mod_generic(sum_nodes(parts), b);
  }
  default:
    return mod_generic(x, b);
  }
}

// ---- comparisons and ands ----

Node lt_plain(Node x, int64_t b) { return create(op_node(ExprKind::Lt, x, b)); } // Node.__lt__

Node create_lt(Node lhs, int64_t b) {
  if (is(lhs, ExprKind::Sum)) {
    std::vector<Node> others_than_num;
    for (Node c : lhs->nodes) {
      if (is(c, ExprKind::Num))
        b -= c->b;
      else
        others_than_num.push_back(c);
    }
    lhs = sum_nodes(others_than_num);
    std::vector<Node> parts = is(lhs, ExprKind::Sum) ? lhs->nodes : std::vector<Node>{lhs};
    std::vector<Node> muls, others;
    for (Node c : parts) (is_int_mul(c) && c->b > 0 && c->max >= b ? muls : others).push_back(c);
    if (!muls.empty()) {
      int64_t mul_gcd = b;
      for (Node m : muls) mul_gcd = gcd_int(mul_gcd, m->b);
      Node all_others = sum_nodes(others);
      if (all_others->min >= 0 && all_others->max < mul_gcd) {
        std::vector<Node> divided;
        for (Node m : muls) divided.push_back(floordiv(m, mul_gcd));
        lhs = sum_nodes(divided);
        b = floordiv_int(b, mul_gcd);
      }
    }
    return is(lhs, ExprKind::Sum) ? lt_plain(lhs, b) : create_lt(lhs, b);
  }
  if (is_int_mul(lhs)) {
    if (lhs->b == -1) return lt_plain(lhs, b);
    int64_t sign = lhs->b > 0 ? 1 : -1, scale = std::abs(lhs->b);
    return lt_plain(mul(lhs->a, sign), floordiv_int(b + scale - 1, scale));
  }
  return lt_plain(lhs, b);
}

Node ands_nodes(const std::vector<Node>& in) {
  if (in.empty()) return make_num(1);
  if (in.size() == 1) return in[0];
  for (Node x : in)
    if (!truthy(x)) return make_num(0);
  std::vector<Node> nodes;
  for (Node x : in)
    if (x->min != x->max) nodes.push_back(x);
  if (nodes.size() > 1) return create(red_node(ExprKind::And, std::move(nodes)));
  return nodes.size() == 1 ? nodes[0] : make_num(1);
}

// ---- rendering, vars, substitute ----

std::string render_node(Node n, bool debug) {
  switch (n->kind) {
  case ExprKind::Num:
    return std::to_string(n->b);
  case ExprKind::Var:
    return debug ? n->name + "[" + std::to_string(n->min) + "-" + std::to_string(n->max) + "]" : n->name;
  case ExprKind::Mul:
    return "(" + render_node(n->a, debug) + "*" + (n->bn ? render_node(n->bn, debug) : std::to_string(n->b)) +
           ")";
  case ExprKind::Div:
    return "(" + render_node(n->a, debug) + "//" + std::to_string(n->b) + ")";
  case ExprKind::Mod:
    return "(" + render_node(n->a, debug) + "%" + std::to_string(n->b) + ")";
  case ExprKind::Lt:
    return "(" + render_node(n->a, debug) + "<" + std::to_string(n->b) + ")";
  case ExprKind::Sum:
  case ExprKind::And: {
    std::vector<std::string> parts;
    for (Node c : n->nodes) parts.push_back(render_node(c, debug));
    std::sort(parts.begin(), parts.end());
    std::string sep = is(n, ExprKind::Sum) ? "+" : " and ", out = "(";
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
    return out + ")";
  }
  }
  return "?";
}

void collect_vars(Node n, std::vector<Expr>& out, std::unordered_set<Node>& seen) {
  if (is(n, ExprKind::Var)) {
    if (seen.insert(n).second) out.emplace_back(n);
  } else if (n->a) {
    collect_vars(n->a, out, seen);
    if (n->bn) collect_vars(n->bn, out, seen);
  }
  for (Node c : n->nodes) collect_vars(c, out, seen);
}

// a handful of variables at most (the linearizer's expand lanes): a flat list beats a hash map
using VarValues = std::vector<std::pair<Node, Node>>;

Node substitute_node(Node n, const VarValues& vals) {
  switch (n->kind) {
  case ExprKind::Num:
    return n;
  case ExprKind::Var: {
    for (const auto& [var, value] : vals)
      if (var == n) return value;
    return n;
  }
  case ExprKind::Mul:
    if (n->bn) return mul(substitute_node(n->a, vals), substitute_node(n->bn, vals));
    return mul(substitute_node(n->a, vals), n->b);
  case ExprKind::Div:
    return floordiv(substitute_node(n->a, vals), n->b);
  case ExprKind::Mod:
    return mod(substitute_node(n->a, vals), n->b);
  case ExprKind::Lt:
    return create_lt(substitute_node(n->a, vals), n->b);
  case ExprKind::Sum: {
    std::vector<Node> parts;
    for (Node c : n->nodes) parts.push_back(substitute_node(c, vals));
    return sum_nodes(parts);
  }
  case ExprKind::And: {
    std::vector<Node> parts;
    for (Node c : n->nodes) {
      Node s = substitute_node(c, vals);
      if (!truthy(s)) return make_num(0);
      parts.push_back(s);
    }
    return ands_nodes(parts);
  }
  }
  return n;
}

std::vector<Node> unwrap(const std::vector<Expr>& xs) {
  std::vector<Node> out;
  out.reserve(xs.size());
  for (const Expr& x : xs) out.push_back(x.node());
  return out;
}

} // namespace

// ---- Expr ----

void reset_symbolic_memo() { div_memo().clear(); }

Expr::Expr(int64_t v) : n_(make_num(v)) {}
Expr Expr::var(const std::string& name, int64_t min, int64_t max) { return Expr(variable(name, min, max)); }
Expr Expr::sum(const std::vector<Expr>& xs) { return Expr(sum_nodes(unwrap(xs))); }
Expr Expr::ands(const std::vector<Expr>& xs) { return Expr(ands_nodes(unwrap(xs))); }

Expr Expr::operator-() const { return Expr(mul(n_, -1)); }
Expr Expr::operator+(const Expr& o) const { return Expr(add(n_, o.n_)); }
Expr Expr::operator-(const Expr& o) const { return Expr(add(n_, mul(o.n_, -1))); }
Expr Expr::operator*(int64_t b) const { return Expr(mul(n_, b)); }
Expr Expr::operator*(const Expr& b) const { return Expr(mul(n_, b.n_)); }
// `x // b` in Python takes the receiving class's default; an explicit false turns factoring off.
Expr Expr::floordiv(int64_t b, bool factoring_allowed) const {
  return Expr(tg::floordiv(n_, b, factoring_allowed ? Factoring() : Factoring(false)));
}
Expr Expr::operator%(int64_t b) const { return Expr(mod(n_, b)); }
Expr Expr::operator<(int64_t b) const { return Expr(lt_plain(n_, b)); }
Expr Expr::operator<(const Expr& b) const {
  if (b.is_num()) return Expr(lt_plain(n_, b.num()));
  if (*this == b) return Expr(0);
  if (max() < b.min()) return Expr(1);
  if (min() >= b.max()) return Expr(0);
  fail("RuntimeError", "not supported: " + render() + " < " + b.render());
}
Expr Expr::operator>=(int64_t b) const { return Expr(lt_plain(mul(n_, -1), -b + 1)); }
Expr Expr::lt(int64_t b) const { return Expr(create_lt(n_, b)); }
Expr Expr::ge(int64_t b) const { return Expr(create_lt(mul(n_, -1), -b + 1)); }

std::string Expr::render() const { return render_node(n_, false); }
std::string Expr::render_debug() const { return render_node(n_, true); }

std::vector<Expr> Expr::vars() const {
  std::vector<Expr> out;
  std::unordered_set<Node> seen;
  collect_vars(n_, out, seen);
  return out;
}

Expr Expr::substitute(const std::vector<std::pair<Expr, Expr>>& var_vals) const {
  VarValues vals;
  vals.reserve(var_vals.size());
  for (const auto& [k, v] : var_vals) vals.emplace_back(k.node(), v.node());
  return Expr(substitute_node(n_, vals));
}

} // namespace tg
