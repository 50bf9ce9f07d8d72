#include "codegen/uops.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <set>
#include <sstream>
#include <unordered_set>

#include "util/error.h"

namespace tg {

std::string_view uops_name(UOps op) {
  static constexpr std::string_view names[] = {
      "UOps.SINK",     "UOps.DEFINE_GLOBAL", "UOps.DEFINE_VAR", "UOps.DEFINE_LOCAL", "UOps.DEFINE_ACC",
      "UOps.CONST",    "UOps.SPECIAL",       "UOps.NOOP",       "UOps.UNMUL",        "UOps.GEP",
      "UOps.CAST",     "UOps.BITCAST",       "UOps.ALU",        "UOps.WMMA",         "UOps.LOAD",
      "UOps.STORE",    "UOps.PHI",           "UOps.BARRIER",    "UOps.IF",           "UOps.RANGE",
      "UOps.ENDRANGE", "UOps.ENDIF"};
  return names[int(op)];
}

// ---------------------------------------------------------------- interning

namespace {

uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ULL + (h >> 29); }

uint64_t hash_arg(const UOpArg& arg) {
  uint64_t h = arg.index();
  std::visit(
      [&](const auto& a) {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, Op>)
          h = mix(h, uint64_t(a));
        else if constexpr (std::is_same_v<T, Scalar>)
          h = mix(mix(h, uint64_t(a.kind)), a.bits());
        else if constexpr (std::is_same_v<T, int>)
          h = mix(h, uint64_t(a));
        else if constexpr (std::is_same_v<T, GlobalArg>)
          h = mix(mix(h, a.idx), a.mutable_);
        else if constexpr (std::is_same_v<T, LoopArg>)
          h = mix(mix(mix(h, a.depth), a.index), a.reduce);
        else if constexpr (std::is_same_v<T, AccArg>)
          h = mix(mix(mix(h, a.buf), a.count), a.lanes);
        else if constexpr (std::is_same_v<T, VarArg>)
          h = mix(mix(mix(h, std::hash<std::string>{}(a.name)), a.min), a.max);
        else if constexpr (std::is_same_v<T, SpecialArg>)
          h = mix(mix(mix(h, std::hash<std::string>{}(a.name)), a.dim), a.size);
        else if constexpr (std::is_same_v<T, LocalArg>)
          h = mix(mix(h, std::hash<std::string>{}(a.name)), a.size);
        else if constexpr (std::is_same_v<T, LaneRange>)
          h = mix(mix(h, uint64_t(a.lanes)), uint64_t(a.stride));
        else if constexpr (std::is_same_v<T, WmmaArg>)
          h = mix(h, std::hash<std::string>{}(a.name));
      },
      arg);
  return h;
}

bool same_arg(const UOpArg& a, const UOpArg& b) {
  if (a.index() != b.index()) return false;
  if (auto* x = std::get_if<Scalar>(&a)) return *x == std::get<Scalar>(b);
  return a == b;
}

} // namespace

size_t UOpGraph::KeyHash::operator()(const UOp* u) const {
  uint64_t h = mix(uint64_t(u->op), u->dtype ? uint64_t(*u->dtype) + 1 : 0);
  for (const UOp* s : u->src) h = mix(h, s->id);
  return size_t(mix(h, hash_arg(u->arg)));
}

bool UOpGraph::KeyEq::operator()(const UOp* a, const UOp* b) const {
  return a->op == b->op && a->dtype == b->dtype && a->src == b->src && same_arg(a->arg, b->arg);
}

namespace {
int derive_vcount(const UOp& u) {
  switch (u.op) {
  case UOps::LOAD:
    if (auto* r = std::get_if<LaneRange>(&u.arg)) return r->lanes;
    return std::holds_alternative<int>(u.arg) ? std::get<int>(u.arg) : 1;
  case UOps::DEFINE_ACC:
    return std::get<AccArg>(u.arg).lanes;
  case UOps::WMMA:
    return std::get<WmmaArg>(u.arg).sizes[2];
  case UOps::CAST:
    if (u.src.size() > 1) return int(u.src.size());
    [[fallthrough]];
  case UOps::ALU:
  case UOps::PHI:
  case UOps::BITCAST: {
    int n = 1;
    for (const UOp* s : u.src) n = std::max(n, s->vcount);
    return n;
  }
  default:
    return 1;
  }
}
} // namespace

const UOp* UOpGraph::make(UOps op, std::optional<DType> dtype, std::vector<const UOp*> src, UOpArg arg) {
  UOp probe{op, dtype, std::move(src), std::move(arg), 0};
  if (auto it = intern_.find(&probe); it != intern_.end()) return it->second;
  probe.id = uint32_t(nodes_.size());
  probe.vcount = derive_vcount(probe);
  nodes_.push_back(std::move(probe));
  const UOp* u = &nodes_.back();
  intern_.emplace(u, u);
  return u;
}

const UOp* UOpGraph::cnst(DType dtype, const Scalar& value) {
  return make(UOps::CONST, dtype, {}, as_const(value, dtype));
}

const UOp* UOpGraph::alu(Op op, std::vector<const UOp*> src) {
  std::optional<DType> dt =
      (op == Op::CMPLT || op == Op::CMPNE) ? std::optional<DType>(DType::Bool) : src.back()->dtype;
  return make(UOps::ALU, dt, std::move(src), op);
}

const UOp* UOpGraph::like(const UOp* x, int64_t v) {
  return cnst(x->dtype.value_or(DType::Int32), Scalar::of_int(v));
}

// ---------------------------------------------------------------- patterns

namespace {
bool is_commutative(Op op) {
  return op == Op::ADD || op == Op::MUL || op == Op::MAX || op == Op::CMPNE || op == Op::XOR;
}
} // namespace

UPat UPat::of(UOps op, std::vector<UPat> src, std::string name) {
  UPat p;
  p.op = op;
  p.src = std::move(src);
  p.match_src = true;
  p.name = std::move(name);
  return p;
}

UPat UPat::of_alu(Op op, std::vector<UPat> src, std::string name) {
  UPat p = of(UOps::ALU, std::move(src), std::move(name));
  p.alu = op;
  return p;
}

static bool match_sources(const UOp* u, const std::vector<const UPat*>& pats, Bindings& store) {
  if (u->src.size() != pats.size()) return false;
  Bindings trial = store;
  for (size_t i = 0; i < pats.size(); i++)
    if (!match(u->src[i], *pats[i], trial)) return false;
  store = std::move(trial);
  return true;
}

bool match(const UOp* u, const UPat& pat, Bindings& store) {
  if (!pat.name.empty() && !store.bind(pat.name, u)) return false;
  if (pat.op && *pat.op != u->op) return false;
  if (pat.alu && !(u->op == UOps::ALU && u->alu() == *pat.alu)) return false;
  if (pat.dtype && u->dtype && *pat.dtype != *u->dtype) return false;
  if (pat.value) {
    if (u->op != UOps::CONST) return false;
    const Scalar& v = u->value();
    if (v.kind == Scalar::Kind::Float ? v.f != *pat.value : double(v.as_int()) != *pat.value) return false;
  }
  if (!pat.match_src) return true;
  std::vector<const UPat*> order;
  for (const UPat& s : pat.src) order.push_back(&s);
  if (match_sources(u, order, store)) return true;
  if (pat.alu && is_commutative(*pat.alu) && order.size() == 2) {
    std::swap(order[0], order[1]);
    return match_sources(u, order, store);
  }
  return false;
}

const UOp* PatternMatcher::rewrite(const UOp* u, UOpGraph& g) const {
  for (const RewriteRule& rule : rules_) {
    if (rule.pattern.op && *rule.pattern.op != u->op) continue;
    if (rule.pattern.alu && !(u->op == UOps::ALU && u->alu() == *rule.pattern.alu)) continue;
    Bindings store;
    if (!match(u, rule.pattern, store)) continue;
    if (const UOp* r = rule.rewrite(store, u, g); r && r != u) return r;
  }
  return nullptr;
}

bool graph_has(const UOp* root, const std::function<bool(const UOp*)>& pred) {
  std::vector<const UOp*> stack{root};
  std::unordered_set<const UOp*> seen; // (a search visits a small part of a big graph)
  while (!stack.empty()) {
    const UOp* u = stack.back();
    stack.pop_back();
    if (!seen.insert(u).second) continue;
    if (pred(u)) return true;
    stack.insert(stack.end(), u->src.begin(), u->src.end());
  }
  return false;
}

bool graph_has(const UOp* root, UOps op) {
  return graph_has(root, [op](const UOp* u) { return u->op == op; });
}

const UOp* graph_rewrite(const UOp* sink, const PatternMatcher& pm, UOpGraph& g) {
  UOpMap<const UOp*> replace;
  std::function<const UOp*(const UOp*)> inner = [&](const UOp* n) -> const UOp* {
    if (const UOp* done = replace.get(n)) return done;
    std::vector<const UOp*> src;
    src.reserve(n->src.size());
    for (const UOp* s : n->src) src.push_back(inner(s));
    const UOp* x = g.make(n->op, n->dtype, std::move(src), n->arg);
    const UOp* result = x;
    // a rule written for scalars may fold a vector into a scalar constant: not a replacement
    if (const UOp* r = pm.rewrite(x, g); r && r->vcount == x->vcount) result = inner(r);
    replace[n] = result;
    replace[x] = result;
    return result;
  };
  return inner(sink);
}

// ---------------------------------------------------------------- linearize

namespace {

int compare_arg(const UOpArg& a, const UOpArg& b) {
  if (a.index() != b.index()) return a.index() < b.index() ? -1 : 1;
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  if (auto* x = std::get_if<Scalar>(&a)) {
    const Scalar& y = std::get<Scalar>(b);
    if (x->kind == Scalar::Kind::Float || y.kind == Scalar::Kind::Float)
      return cmp(x->as_double(), y.as_double());
    return cmp(x->as_int(), y.as_int());
  }
  if (auto* x = std::get_if<GlobalArg>(&a)) {
    auto& y = std::get<GlobalArg>(b);
    return cmp(std::pair(x->idx, x->mutable_), std::pair(y.idx, y.mutable_));
  }
  if (auto* x = std::get_if<LoopArg>(&a)) {
    auto& y = std::get<LoopArg>(b);
    return cmp(std::tuple(x->depth, x->index, x->reduce), std::tuple(y.depth, y.index, y.reduce));
  }
  if (auto* x = std::get_if<AccArg>(&a)) {
    auto& y = std::get<AccArg>(b);
    return cmp(std::pair(x->buf, x->count), std::pair(y.buf, y.count));
  }
  if (auto* x = std::get_if<VarArg>(&a)) return cmp(x->name, std::get<VarArg>(b).name);
  if (auto* x = std::get_if<SpecialArg>(&a)) {
    auto& y = std::get<SpecialArg>(b);
    return cmp(std::tuple(x->dim, x->name, x->size), std::tuple(y.dim, y.name, y.size));
  }
  if (auto* x = std::get_if<LocalArg>(&a)) {
    auto& y = std::get<LocalArg>(b);
    return cmp(std::pair(x->name, x->size), std::pair(y.name, y.size));
  }
  if (auto* x = std::get_if<int>(&a)) return cmp(*x, std::get<int>(b));
  if (auto* x = std::get_if<LaneRange>(&a)) {
    const LaneRange& y = std::get<LaneRange>(b);
    return cmp(std::pair(x->lanes, x->stride), std::pair(y.lanes, y.stride));
  }
  return 0; // ALU ops compare equal here, as tinygrad's cmp_tuple does
}

// tinygrad's UOp.__lt__ as a three-way comparison: its cmp_tuple (op, arg, dtype, src) compared
// as Python compares tuples: the first source that is not the same UOp decides, and two UOps
// can tie (all ALUs have one "arg"), which leaves their order to the heap.
int compare_uop(const UOp* a, const UOp* b) {
  if (a == b) return 0;
  if (a->op != b->op) return a->op < b->op ? -1 : 1;
  if (int c = compare_arg(a->arg, b->arg)) return c;
  if (a->dtype != b->dtype) return a->dtype < b->dtype ? -1 : 1;
  if (a->vcount != b->vcount) return a->vcount < b->vcount ? -1 : 1;
  for (size_t i = 0; i < std::min(a->src.size(), b->src.size()); i++)
    if (a->src[i] != b->src[i]) return compare_uop(a->src[i], b->src[i]);
  return a->src.size() == b->src.size() ? 0 : a->src.size() < b->src.size() ? -1 : 1;
}

// Python's heapq (push: append and sift down; pop: move the last to the top and sift up), so
// that items that compare equal come out in tinygrad's order.
template <class T, class Less> class PyHeap {
public:
  explicit PyHeap(Less less) : less_(less) {}
  bool empty() const { return h_.empty(); }
  void push(T item) {
    h_.push_back(std::move(item));
    sift_down(0, h_.size() - 1);
  }
  T pop() {
    T last = std::move(h_.back());
    h_.pop_back();
    if (h_.empty()) return last;
    T top = std::move(h_[0]);
    h_[0] = std::move(last);
    sift_up(0);
    return top;
  }

private:
  void sift_down(size_t start, size_t pos) {
    T item = std::move(h_[pos]);
    while (pos > start) {
      size_t parent = (pos - 1) >> 1;
      if (!less_(item, h_[parent])) break;
      h_[pos] = std::move(h_[parent]);
      pos = parent;
    }
    h_[pos] = std::move(item);
  }
  void sift_up(size_t pos) {
    const size_t end = h_.size(), start = pos;
    T item = std::move(h_[pos]);
    size_t child = 2 * pos + 1;
    while (child < end) {
      size_t right = child + 1;
      if (right < end && !less_(h_[child], h_[right])) child = right;
      h_[pos] = std::move(h_[child]);
      pos = child;
      child = 2 * pos + 1;
    }
    h_[pos] = std::move(item);
    sift_down(start, pos);
  }
  std::vector<T> h_;
  Less less_;
};

struct Scope {
  const UOp* owner;
  UOpMap<char> members; // what the scope holds until the linearizer emits it
  size_t count, original_size;
};

} // namespace

std::vector<const UOp*> linearize_uops(const UOp* sink, UOpGraph& g) {
  // children and in-degree of everything reachable from the sink
  UOpMap<std::vector<const UOp*>> children;
  UOpMap<int> in_degree;
  UOpMap<char> seen;
  std::vector<const UOp*> post_order;
  std::function<void(const UOp*)> dfs = [&](const UOp* u) {
    if (seen.get(u)) return;
    seen[u] = 1;
    for (const UOp* s : u->src) {
      dfs(s);
      children[s].push_back(u);
    }
    in_degree[u] = int(u->src.size());
    post_order.push_back(u);
  };
  dfs(sink);

  // a RANGE scopes everything downstream of it up to its PHIs; an IF up to its STOREs
  std::vector<Scope> scopes;
  for (const UOp* p : post_order) {
    if (p->op != UOps::RANGE && p->op != UOps::IF) continue;
    UOps end = p->op == UOps::RANGE ? UOps::PHI : UOps::STORE;
    Scope s{p, {}, 0, 0};
    std::vector<const UOp*> stack(children[p].begin(), children[p].end());
    while (!stack.empty()) {
      const UOp* u = stack.back();
      stack.pop_back();
      if (u->op == UOps::SINK || s.members.get(u)) continue;
      s.members[u] = 1, ++s.count;
      if (u->op != end)
        for (const UOp* c : children[u]) stack.push_back(c);
    }
    s.original_size = s.count;
    scopes.push_back(std::move(s));
  }

  auto priority = [&](const UOp* u) {
    int64_t p = 0;
    for (const Scope& s : scopes)
      if (s.owner->op == UOps::RANGE && s.members.get(u)) {
        auto& la = std::get<LoopArg>(s.owner->arg);
        p -= int64_t(la.depth) * 1000 + la.index;
      }
    return p;
  };
  using Item = std::pair<int64_t, const UOp*>;
  auto less = [](const Item& a, const Item& b) {
    if (a.first != b.first) return a.first < b.first;
    return compare_uop(a.second, b.second) < 0;
  };
  PyHeap<Item, decltype(less)> queue(less);
  for (const UOp* u : post_order)
    if (in_degree[u] == 0) queue.push({priority(u), u});

  std::vector<const UOp*> out;
  while (!queue.empty()) {
    const UOp* x = queue.pop().second;
    if (x->op == UOps::DEFINE_ACC && x->src.size() > 1) {
      // an accumulator is defined right before the first loop it accumulates over
      size_t at = out.size();
      for (const UOp* l : x->src)
        if (l->op == UOps::RANGE)
          at = std::min(at, size_t(std::find(out.begin(), out.end(), l) - out.begin()));
      out.insert(out.begin() + long(at), x);
    } else {
      out.push_back(x);
    }
    std::vector<const Scope*> closing;
    for (Scope& s : scopes)
      if (s.members.get(x)) {
        s.members[x] = 0;
        if (--s.count == 0) closing.push_back(&s);
      }
    std::sort(closing.begin(), closing.end(),
              [](const Scope* a, const Scope* b) { return a->original_size < b->original_size; });
    for (const Scope* s : closing)
      out.push_back(
          g.make(s->owner->op == UOps::RANGE ? UOps::ENDRANGE : UOps::ENDIF, std::nullopt, {s->owner}));
    for (const UOp* c : children[x])
      if (--in_degree[c] == 0) queue.push({priority(c), c});
  }
  if (out.empty() || out.back()->op != UOps::SINK) fail("RuntimeError", "linearize: did not end with SINK");
  out.pop_back();
  return out;
}

// ---------------------------------------------------------------- printing

namespace {
std::string arg_to_string(const UOp* u) {
  return std::visit(
      [](const auto& a) -> std::string {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, std::monostate>)
          return "None";
        else if constexpr (std::is_same_v<T, Op>)
          return std::string(op_name(a));
        else if constexpr (std::is_same_v<T, Scalar>)
          return a.repr();
        else if constexpr (std::is_same_v<T, int>)
          return std::to_string(a);
        else if constexpr (std::is_same_v<T, GlobalArg>)
          return "(" + std::to_string(a.idx) + ", " + (a.mutable_ ? "True" : "False") + ")";
        else if constexpr (std::is_same_v<T, LoopArg>)
          return "(" + std::to_string(a.depth) + ", " + std::to_string(a.index) + ", " +
                 (a.reduce ? "True" : "False") + ")";
        else if constexpr (std::is_same_v<T, AccArg>)
          return "(" + std::to_string(a.buf) + ", " + std::to_string(a.count) +
                 (a.lanes > 1 ? ", " + std::to_string(a.lanes) : "") + ")";
        else if constexpr (std::is_same_v<T, LaneRange>)
          return "lanes " + std::to_string(a.lanes) + " in [lo, hi)" +
                 (a.stride != 1 ? ", stride " + std::to_string(a.stride) : "");
        else if constexpr (std::is_same_v<T, WmmaArg>)
          return "(" + a.name + ")";
        else
          return a.name;
      },
      u->arg);
}
} // namespace

std::unordered_set<const UOp*> window_loops(const std::vector<const UOp*>& uops, int max_trip) {
  std::unordered_set<const UOp*> out;
  if (max_trip < 2 || std::none_of(uops.begin(), uops.end(), [](const UOp* u) {
        return u->op == UOps::LOAD && std::holds_alternative<LaneRange>(u->arg);
      }))
    return out;
  auto small_trip = [&](const UOp* u) -> int64_t {
    if (!u->src[0]->is_const() || !u->src[1]->is_const()) return 0;
    const int64_t trip = u->src[1]->value().as_int() - u->src[0]->value().as_int();
    return trip > 1 && trip <= max_trip ? trip : 0;
  };
  int open_reduce = 0;        // reduce loops open around the current UOp
  const UOp* outer = nullptr; // the outermost open reduce loop, while the nest is all window loops
  int64_t body = 1;           // the iterations of that nest
  for (const UOp* u : uops) {
    if (u->op == UOps::ENDRANGE && std::get<LoopArg>(u->src[0]->arg).reduce && --open_reduce == 0) {
      if (outer && body <= kWholeWindow) out.insert(outer);
      outer = nullptr;
    }
    if (u->op != UOps::RANGE || !std::get<LoopArg>(u->arg).reduce) continue;
    const int64_t trip = small_trip(u);
    if (open_reduce++ == 0) {
      outer = trip ? u : nullptr, body = trip;
      continue;
    }
    if (trip) out.insert(u);
    body *= trip ? trip : 1;
    if (!trip) outer = nullptr;
  }
  return out;
}

std::string uops_to_string(const std::vector<const UOp*>& uops) {
  std::unordered_map<const UOp*, size_t> index;
  for (size_t i = 0; i < uops.size(); i++) index[uops[i]] = i;
  std::ostringstream os;
  for (size_t i = 0; i < uops.size(); i++) {
    const UOp* u = uops[i];
    std::string dt;
    if (u->dtype) dt = (u->op == UOps::DEFINE_GLOBAL ? "ptr." : "") + std::string(py_name(*u->dtype));
    if (u->vcount > 1) dt += ".vec(" + std::to_string(u->vcount) + ")";
    std::string srcs = "[";
    for (size_t j = 0; j < u->src.size(); j++) {
      if (j) srcs += ", ";
      auto it = index.find(u->src[j]);
      srcs += it == index.end() ? "?" : std::to_string(it->second);
    }
    srcs += "]";
    char line[256];
    std::snprintf(line, sizeof line, "%4zu %-20s: %-10s %-16s ", i, std::string(uops_name(u->op)).c_str(),
                  dt.c_str(), srcs.c_str());
    os << line << arg_to_string(u) << "\n";
  }
  return os.str();
}

} // namespace tg
