#include "script/value.h"

#include "lazy/lazybuffer.h"
#include "lazy/sym_repr.h"
#include "script/dict.h"
#include "script/interp.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <unordered_map>

namespace tg::script {

namespace {
struct SymbolTable {
  std::mutex mu;
  std::unordered_map<std::string, Sym> ids;
  std::vector<std::unique_ptr<std::string>> names; // stable addresses
};
SymbolTable& symbols() {
  static SymbolTable t;
  return t;
}
} // namespace

Sym intern(std::string_view name) {
  SymbolTable& t = symbols();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.ids.find(std::string(name));
  if (it != t.ids.end()) return it->second;
  Sym s = Sym(t.names.size());
  t.names.push_back(std::make_unique<std::string>(name));
  t.ids.emplace(std::string(name), s);
  return s;
}

// Containers can hold themselves (a.append(a)). repr prints a container already being printed
// as Python does ([...], {...}); repr and == refuse nesting past Python's recursion limit with
// a RecursionError instead of overflowing the C++ stack.
namespace {
constexpr int kContainerDepthLimit = 1000;
thread_local std::vector<const Object*> repr_in_progress;
thread_local int compare_depth = 0;

struct ReprEntry {
  bool seen = false;
  explicit ReprEntry(const Object* o) {
    if (std::find(repr_in_progress.begin(), repr_in_progress.end(), o) != repr_in_progress.end()) {
      seen = true;
      return;
    }
    if (int(repr_in_progress.size()) >= kContainerDepthLimit)
      raise("RecursionError", "maximum recursion depth exceeded while getting the repr of an object");
    repr_in_progress.push_back(o);
  }
  ~ReprEntry() {
    if (!seen) repr_in_progress.pop_back();
  }
};

struct CompareDepth {
  CompareDepth() {
    if (++compare_depth > kContainerDepthLimit) {
      --compare_depth;
      raise("RecursionError", "maximum recursion depth exceeded in comparison");
    }
  }
  ~CompareDepth() { --compare_depth; }
};

// Python compares container items by identity first (`x is y or x == y`).
bool same_object(const Value& a, const Value& b) { return a.obj && a.kind == b.kind && a.obj == b.obj; }
} // namespace

const std::string& sym_name(Sym s) {
  SymbolTable& t = symbols();
  std::lock_guard<std::mutex> lock(t.mu);
  return *t.names.at(size_t(s));
}

[[noreturn]] void raise(const std::string& kind, const std::string& message) { throw PyError(kind, message); }

Value Value::str(std::string s) {
  auto o = std::make_shared<StrObj>();
  o->s = std::move(s);
  return of(VKind::Str, std::move(o));
}
Value Value::bytes(std::string s) {
  auto o = std::make_shared<StrObj>();
  o->s = std::move(s);
  return of(VKind::Bytes, std::move(o));
}
namespace {
// Every list and dict a script made, for break_container_cycles(): a list that holds itself
// (a.append(a)) is a cycle of shared_ptrs that nothing else frees. Expired entries are dropped
// whenever the table doubles, so it stays about as large as the live containers.
thread_local std::vector<std::weak_ptr<Object>> g_containers;
thread_local size_t g_containers_compacted = 64;
} // namespace

void remember_container(const std::shared_ptr<Object>& o) {
  g_containers.push_back(o);
  if (g_containers.size() < 2 * g_containers_compacted) return;
  std::erase_if(g_containers, [](const std::weak_ptr<Object>& w) { return w.expired(); });
  g_containers_compacted = std::max<size_t>(64, g_containers.size());
}

void break_container_cycles() {
  std::vector<std::weak_ptr<Object>> all;
  all.swap(g_containers);
  g_containers_compacted = 64;
  for (const std::weak_ptr<Object>& w : all) {
    std::shared_ptr<Object> o = w.lock();
    if (auto* seq = dynamic_cast<SeqObj*>(o.get())) seq->items.clear();
    if (auto* dict = dynamic_cast<DictObj*>(o.get())) dict->items.clear();
  }
}

Value Value::list(std::vector<Value> items) {
  auto o = std::make_shared<SeqObj>();
  o->items = std::move(items);
  remember_container(o);
  return of(VKind::List, std::move(o));
}
Value Value::tuple(std::vector<Value> items) {
  auto o = std::make_shared<SeqObj>();
  o->items = std::move(items);
  return of(VKind::Tuple, std::move(o));
}
Value Value::tensor(Tensor t) { return of(VKind::Tensor, std::make_shared<TensorObj>(std::move(t))); }
Value Value::symbol(const sint& d) {
  if (d.is_int()) return integer(int64_t(d));
  return of(VKind::Symbol, std::make_shared<SymObj>(d.expr()));
}

int64_t RangeObj::size() const {
  if (step > 0) return start < stop ? (stop - start + step - 1) / step : 0;
  return start > stop ? (start - stop - step - 1) / (-step) : 0;
}

std::string type_name(const Value& v) {
  switch (v.kind) {
  case VKind::None:
    return "NoneType";
  case VKind::Bool:
    return "bool";
  case VKind::Int:
    return "int";
  case VKind::Float:
    return "float";
  case VKind::DType:
    return "DType";
  case VKind::Ellipsis:
    return "ellipsis";
  case VKind::Str:
    return "str";
  case VKind::Bytes:
    return "bytes";
  case VKind::List:
    return "list";
  case VKind::Tuple:
    return "tuple";
  case VKind::Slice:
    return "slice";
  case VKind::Range:
    return "range";
  case VKind::Symbol: { // tinygrad's Node classes
    static const char* const names[] = {"NumNode", "Variable", "MulNode", "DivNode",
                                        "ModNode", "LtNode",   "SumNode", "AndNode"};
    return names[int(v.as<SymObj>().e.kind())];
  }
  case VKind::Tensor:
    return "Tensor";
  case VKind::Function:
    return "function";
  case VKind::Builtin:
    return "builtin_function_or_method";
  case VKind::Method:
    return "method";
  case VKind::Module: {
    const auto& m = v.as<ModuleObj>();
    if (m.instance) return m.name; // an nn layer, an optimizer, a script class's instance
    return m.is_class ? "type" : "module";
  }
  case VKind::Dict:
    return "dict";
  case VKind::Unbound:
    return "<unbound>";
  }
  return "object";
}

std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string s = buf;
  // Python switches to exponent form at 1e16 and below 1e-4, and writes e+16 / e-05.
  size_t e = s.find('e');
  if (e != std::string::npos) {
    std::string mant = s.substr(0, e), ex = s.substr(e + 1);
    int exp = std::stoi(ex);
    if (exp >= -4 && exp < 16) {
      std::snprintf(buf, sizeof buf, "%.17f", d);
      // fall back to fixed with the shortest digits that round-trip
      for (int prec = 0; prec <= 17; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*f", prec, d);
        if (std::strtod(buf, nullptr) == d) break;
      }
      s = buf;
    } else {
      char eb[16];
      std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
      return mant + eb;
    }
  }
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

static std::string quote(const std::string& s, bool bytes) {
  char q = s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
  std::string out = bytes ? "b" : "";
  out += q;
  for (unsigned char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (c == q)
      out += std::string("\\") + char(q);
    else if (c < 32 || (bytes && c >= 127)) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else
      out += char(c);
  }
  return out + q;
}

std::string repr(const Value& v) {
  switch (v.kind) {
  case VKind::None:
    return "None";
  case VKind::Bool:
    return v.b ? "True" : "False";
  case VKind::Int:
    return std::to_string(v.i);
  case VKind::Float:
    return float_repr(v.f);
  case VKind::DType:
    return dtype_repr(v.dt);
  case VKind::Ellipsis:
    return "Ellipsis";
  case VKind::Str:
    return quote(v.s(), false);
  case VKind::Bytes:
    return quote(v.s(), true);
  case VKind::List:
  case VKind::Tuple: {
    bool list = v.kind == VKind::List;
    ReprEntry entry(v.obj.get());
    if (entry.seen) return list ? "[...]" : "(...)";
    std::string r = list ? "[" : "(";
    const auto& items = v.items();
    for (size_t k = 0; k < items.size(); ++k) r += (k ? ", " : "") + repr(items[k]);
    if (!list && items.size() == 1) r += ",";
    return r + (list ? "]" : ")");
  }
  case VKind::Slice: {
    auto& s = v.as<SliceObj>();
    return "slice(" + repr(s.start) + ", " + repr(s.stop) + ", " + repr(s.step) + ")";
  }
  case VKind::Range: {
    auto& r = v.as<RangeObj>();
    return "range(" + std::to_string(r.start) + ", " + std::to_string(r.stop) +
           (r.step != 1 ? ", " + std::to_string(r.step) : "") + ")";
  }
  case VKind::Tensor: {
    const Tensor& t = v.t();
    return "<Tensor shape=" + shape_repr(t.shape()) + " dtype=" + dtype_repr(t.dtype()) + ">";
  }
  case VKind::Function:
    return "<function>";
  case VKind::Builtin:
    return "<built-in function>";
  case VKind::Method:
    return "<bound method>";
  case VKind::Module: {
    const auto& m = v.as<ModuleObj>();
    if (m.is_class) return "<class '__main__." + m.name + "'>";
    if (m.cls) return "<__main__." + m.name + " object>";
    return "<module>";
  }
  case VKind::Dict: {
    ReprEntry entry(v.obj.get());
    if (entry.seen) return "{...}";
    std::string r = "{";
    const auto& items = v.as<DictObj>().items;
    for (size_t k = 0; k < items.size(); ++k)
      r += (k ? ", " : "") + quote(items[k].first, false) + ": " + repr(items[k].second);
    return r + "}";
  }
  case VKind::Symbol: // Node.__repr__: Variable('i', 1, 10).bind(3), NumNode(3) inside expressions
    return sym_repr(v.as<SymObj>().e);
  case VKind::Unbound:
    return "<unbound>";
  }
  return "?";
}

std::string str(const Value& v) {
  if (v.kind == VKind::Symbol) return node_str(v.as<SymObj>().e);
  return v.kind == VKind::Str ? v.s() : repr(v);
}

bool truthy(const Value& v) {
  switch (v.kind) {
  case VKind::None:
    return false;
  case VKind::Bool:
    return v.b;
  case VKind::Int:
    return v.i != 0;
  case VKind::Float:
    return v.f != 0.0;
  case VKind::Str:
  case VKind::Bytes:
    return !v.s().empty();
  case VKind::List:
  case VKind::Tuple:
    return !v.items().empty();
  case VKind::Range:
    return v.as<RangeObj>().size() != 0;
  case VKind::Dict:
    return !v.as<DictObj>().items.empty();
  case VKind::Tensor:
    raise("TypeError", "__bool__ on Tensor is not defined");
  default:
    return true;
  }
}

bool values_equal(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_intlike() && b.is_intlike()) return a.as_int() == b.as_int();
    return a.as_double() == b.as_double();
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
  case VKind::None:
  case VKind::Ellipsis:
    return true;
  case VKind::DType:
    return a.dt == b.dt;
  case VKind::Str:
  case VKind::Bytes:
    return a.s() == b.s();
  case VKind::List:
  case VKind::Tuple: {
    const auto &x = a.items(), &y = b.items();
    if (x.size() != y.size()) return false;
    CompareDepth depth;
    for (size_t k = 0; k < x.size(); ++k)
      if (!same_object(x[k], y[k]) && !values_equal(x[k], y[k])) return false;
    return true;
  }
  case VKind::Range: {
    auto &x = a.as<RangeObj>(), &y = b.as<RangeObj>();
    return x.size() == y.size() &&
           (x.size() == 0 || (x.start == y.start && (x.size() == 1 || x.step == y.step)));
  }
  default:
    return a.obj == b.obj;
  }
}

std::vector<std::string> str_chars(const std::string& utf8) {
  std::vector<std::string> out;
  for (size_t i = 0; i < utf8.size();) {
    unsigned char c = static_cast<unsigned char>(utf8[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 1;
    size_t k = 1; // a malformed sequence: each byte its own character
    while (k < n && i + k < utf8.size() && (static_cast<unsigned char>(utf8[i + k]) >> 6) == 0x2) ++k;
    if (k < n) n = 1;
    out.push_back(utf8.substr(i, n));
    i += n;
  }
  return out;
}

} // namespace tg::script
