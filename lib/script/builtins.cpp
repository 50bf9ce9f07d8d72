// Python builtins (len, range, print, ...), the math module, methods of lists and strings, and
// the pipeline builtins input() and output().
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <ostream>

#include "script/dict.h"
#include "script/interp.h"

namespace tg::script {
// format(value, spec) for str, int, bool and float: Python's format-spec mini-language
// ([[fill]align][sign][#][0][width][,|_][.precision][type]).
std::string format_value(const Value& v, const std::string& spec) {
  if (spec.empty()) return str(v);
  size_t i = 0, n = spec.size();
  char fill = ' ', align = 0, sign = '-', type = 0, group = 0;
  bool alt = false;
  int width = 0, precision = -1;
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  if (n >= 2 && is_align(spec[1]))
    fill = spec[0], align = spec[1], i = 2;
  else if (is_align(spec[0]))
    align = spec[0], i = 1;
  if (i < n && (spec[i] == '+' || spec[i] == '-' || spec[i] == ' ')) sign = spec[i++];
  if (i < n && spec[i] == '#') alt = true, ++i;
  if (i < n && spec[i] == '0') {
    if (!align) fill = '0', align = '=';
    ++i;
  }
  while (i < n && std::isdigit((unsigned char)spec[i])) width = width * 10 + (spec[i++] - '0');
  if (i < n && (spec[i] == ',' || spec[i] == '_')) group = spec[i++];
  if (i < n && spec[i] == '.') {
    precision = 0;
    ++i;
    while (i < n && std::isdigit((unsigned char)spec[i])) precision = precision * 10 + (spec[i++] - '0');
  }
  if (i < n) type = spec[i++];
  if (i != n)
    raise("ValueError", "Invalid format specifier '" + spec + "' for object of type '" + type_name(v) + "'");
  std::string body, prefix;
  bool numeric = v.kind == VKind::Int || v.kind == VKind::Float || (v.kind == VKind::Bool && type);
  if (v.kind == VKind::Str || (v.kind == VKind::Bool && !type)) {
    if (type && type != 's')
      raise("ValueError", std::string("Unknown format code '") + type + "' for object of type 'str'");
    body = str(v);
    if (precision >= 0 && size_t(precision) < body.size()) body.resize(size_t(precision));
  } else if (numeric) {
    bool is_int = v.kind != VKind::Float && (!type || std::strchr("dxXobc", type));
    double d = v.as_double();
    char buf[512];
    if (is_int) {
      int64_t x = v.as_int();
      uint64_t mag = x < 0 ? uint64_t(0) - uint64_t(x) : uint64_t(x);
      if (precision >= 0) raise("ValueError", "Precision not allowed in integer format specifier");
      if (type == 'x' || type == 'X')
        std::snprintf(buf, sizeof buf, type == 'x' ? "%llx" : "%llX", (unsigned long long)mag);
      else if (type == 'o')
        std::snprintf(buf, sizeof buf, "%llo", (unsigned long long)mag);
      else if (type == 'b') {
        std::string b;
        for (uint64_t m = mag; m; m >>= 1) b.insert(b.begin(), char('0' + (m & 1)));
        std::snprintf(buf, sizeof buf, "%s", b.empty() ? "0" : b.c_str());
      } else
        std::snprintf(buf, sizeof buf, "%llu", (unsigned long long)mag);
      body = buf;
      if (alt && (type == 'x' || type == 'X' || type == 'o' || type == 'b'))
        body = std::string("0") + type + body;
      if (x < 0) prefix = "-";
    } else {
      if (type && !std::strchr("eEfFgG%", type))
        raise("ValueError", std::string("Unknown format code '") + type + "' for object of type 'float'");
      double m = std::fabs(type == '%' ? d * 100 : d);
      int p = precision < 0 ? 6 : precision;
      if (!type && precision < 0)
        body = str(Value::floating(m));
      else if (!type)
        std::snprintf(buf, sizeof buf, "%.*g", p == 0 ? 1 : p, m), body = buf;
      else if (type == '%')
        std::snprintf(buf, sizeof buf, "%.*f%%", p, m), body = buf;
      else {
        char f[8] = {'%', '.', '*', type, 0};
        std::snprintf(buf, sizeof buf, f, p, m);
        body = buf;
      }
      if (std::signbit(d) && !std::isnan(d)) prefix = "-";
    }
    if (prefix.empty() && sign == '+') prefix = "+";
    if (prefix.empty() && sign == ' ') prefix = " ";
    if (group) {
      size_t end = body.find_first_of(".eE%"), digits = end == std::string::npos ? body.size() : end;
      for (size_t k = digits; k > 3; k -= 3) body.insert(k - 3, 1, group);
    }
  } else {
    raise("TypeError", "unsupported format string passed to " + type_name(v) + ".__format__");
  }
  size_t len = prefix.size() + body.size();
  if (size_t(width) <= len) return prefix + body;
  size_t pad = size_t(width) - len;
  if (!align) align = numeric ? '>' : '<';
  switch (align) {
  case '<':
    return prefix + body + std::string(pad, fill);
  case '^':
    return std::string(pad / 2, fill) + prefix + body + std::string(pad - pad / 2, fill);
  case '=':
    return prefix + std::string(pad, fill) + body;
  default:
    return std::string(pad, fill) + prefix + body;
  }
}

// "fmt" % args: each %[flags][width][.precision]type as the format spec it stands for.
std::string percent_format(const std::string& fmt, const Value& args) {
  std::vector<Value> items = args.kind == VKind::Tuple ? args.items() : std::vector<Value>{args};
  size_t next = 0;
  std::string out;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    if (++i >= fmt.size()) raise("ValueError", "incomplete format");
    if (fmt[i] == '%') {
      out += '%';
      continue;
    }
    std::string flags, width, precision;
    while (i < fmt.size() && std::strchr("-+ 0#", fmt[i])) flags += fmt[i++];
    while (i < fmt.size() && std::isdigit((unsigned char)fmt[i])) width += fmt[i++];
    if (i < fmt.size() && fmt[i] == '.') {
      precision = ".";
      ++i;
      while (i < fmt.size() && std::isdigit((unsigned char)fmt[i])) precision += fmt[i++];
      if (precision == ".") precision = ".0";
    }
    if (i >= fmt.size()) raise("ValueError", "incomplete format");
    char type = fmt[i];
    if (next >= items.size()) raise("TypeError", "not enough arguments for format string");
    Value v = items[next++];
    std::string spec;
    if (flags.find('-') != std::string::npos) spec += '<';
    if (flags.find('+') != std::string::npos)
      spec += '+';
    else if (flags.find(' ') != std::string::npos)
      spec += ' ';
    if (flags.find('#') != std::string::npos) spec += '#';
    if (flags.find('0') != std::string::npos && flags.find('-') == std::string::npos) spec += '0';
    spec += width;
    switch (type) {
    case 's':
      out += format_value(Value::str(str(v)), spec + precision);
      break;
    case 'r':
    case 'a':
      out += format_value(Value::str(repr(v)), spec + precision);
      break;
    case 'd':
    case 'i':
    case 'u':
      if (!v.is_number())
        raise("TypeError",
              "%" + std::string(1, type) + " format: a real number is required, not " + type_name(v));
      out += format_value(Value::integer(v.kind == VKind::Float ? int64_t(v.as_double()) : v.as_int()),
                          spec + "d");
      break;
    case 'x':
    case 'X':
    case 'o':
      if (!v.is_intlike())
        raise("TypeError",
              "%" + std::string(1, type) + " format: an integer is required, not " + type_name(v));
      out += format_value(Value::integer(v.as_int()), spec + type);
      break;
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
      if (!v.is_number()) raise("TypeError", "must be real number, not " + type_name(v));
      out += format_value(
          Value::floating(v.as_double()),
          spec + (precision.empty() ? std::string(type == 'g' || type == 'G' ? "" : ".6") : precision) +
              type);
      break;
    default:
      raise("ValueError", std::string("unsupported format character '") + type + "'");
    }
  }
  if (next < items.size()) raise("TypeError", "not all arguments converted during string formatting");
  return out;
}

bool is_callable(const Value& v) {
  if (v.kind == VKind::Function || v.kind == VKind::Builtin || v.kind == VKind::Method) return true;
  if (v.kind != VKind::Module) return false;
  const ModuleObj& m = v.as<ModuleObj>();
  return m.is_class || m.call_self || m.ctor ||
         (m.instance && m.cls && m.cls->attrs.count(intern("__call__")));
}

namespace {

// What `import PATH` gives: tg's names under tinygrad's module paths.
Value import_module(const std::string& path) {
  const auto& g = registry().globals;
  auto global = [&](const char* n) { return g.at(intern(n)); };
  auto module = [](const char* name, std::initializer_list<std::pair<const char*, Value>> attrs) {
    auto m = std::make_shared<ModuleObj>();
    m->name = name;
    for (auto& [k, v] : attrs) m->attrs[intern(k)] = v;
    return Value::of(VKind::Module, std::move(m));
  };
  if (path == "math") return global("math");
  if (path == "functools") return global("functools");
  if (path == "tinygrad.helpers") return global("<tinygrad.helpers>");
  if (path == "tinygrad") {
    const ModuleObj& extra = global("<tinygrad>").as<ModuleObj>();
    return module("tinygrad", {{"Tensor", global("Tensor")},
                               {"dtypes", global("dtypes")},
                               {"nn", global("nn")},
                               {"TinyJit", extra.attrs.at(intern("TinyJit"))},
                               {"Device", extra.attrs.at(intern("Device"))},
                               {"Variable", global("Variable")},
                               {"GlobalCounters", extra.attrs.at(intern("GlobalCounters"))}});
  }
  if (path == "tinygrad.tensor") return module("tinygrad.tensor", {{"Tensor", global("Tensor")}});
  if (path == "tinygrad.shape.symbolic")
    return module("tinygrad.shape.symbolic", {{"Variable", global("Variable")}});
  if (path == "tinygrad.dtype") return module("tinygrad.dtype", {{"dtypes", global("dtypes")}});
  Value nn = global("nn");
  if (path == "tinygrad.nn") return nn;
  if (path == "tinygrad.nn.optim" || path == "tinygrad.nn.state") {
    const auto& attrs = nn.as<ModuleObj>().attrs;
    return attrs.at(intern(path.substr(path.rfind('.') + 1)));
  }
  raise("ModuleNotFoundError", "No module named '" + path +
                                   "' in tg (it provides tinygrad, tinygrad.tensor, "
                                   "tinygrad.dtype, tinygrad.helpers, tinygrad.nn, tinygrad.nn.optim, "
                                   "tinygrad.nn.state, tinygrad.shape.symbolic, math, functools, typing)");
}

// staticmethod(f) / classmethod(f): a marker object holding f as __func__
Value method_wrapper(const char* kind, const Value& fn) {
  auto w = std::make_shared<ModuleObj>();
  w->name = kind;
  w->attrs[intern("__func__")] = fn;
  return Value::of(VKind::Module, std::move(w));
}

// isinstance(obj, cls): the builtin types, Tensor, script classes, nn layers, tuples of them
bool is_instance(const Value& obj, const Value& cls) {
  if (cls.kind == VKind::Tuple) {
    for (const Value& c : cls.items())
      if (is_instance(obj, c)) return true;
    return false;
  }
  if (cls.kind == VKind::Builtin) {
    const std::string& q = static_cast<const Builtin&>(*cls.obj).qualname;
    static const std::pair<const char*, std::vector<VKind>> kTypes[] = {{"int", {VKind::Int, VKind::Bool}},
                                                                        {"float", {VKind::Float}},
                                                                        {"bool", {VKind::Bool}},
                                                                        {"str", {VKind::Str}},
                                                                        {"list", {VKind::List}},
                                                                        {"tuple", {VKind::Tuple}},
                                                                        {"dict", {VKind::Dict}},
                                                                        {"slice", {VKind::Slice}},
                                                                        {"range", {VKind::Range}}};
    for (const auto& [name, kinds] : kTypes)
      if (q == name) return std::find(kinds.begin(), kinds.end(), obj.kind) != kinds.end();
    // tinygrad's Variable class holds the variables themselves, not expressions over them (vi+1)
    if (q == "Variable") return obj.kind == VKind::Symbol && obj.as<SymObj>().e.node()->kind == ExprKind::Var;
    // an nn layer's constructor (nn.Linear, "Linear.__init__"): its instances carry the layer's name
    static const std::string init = ".__init__";
    if (obj.kind == VKind::Module && obj.as<ModuleObj>().instance && q.size() > init.size() &&
        q.compare(q.size() - init.size(), init.size(), init) == 0)
      return obj.as<ModuleObj>().name == q.substr(0, q.size() - init.size());
    return false;
  }
  if (cls.kind == VKind::Module) {
    const ModuleObj& c = cls.as<ModuleObj>();
    if (c.is_class) return obj.kind == VKind::Module && obj.as<ModuleObj>().cls.get() == &c;
    if (c.name == "Tensor") return obj.kind == VKind::Tensor;
    if (c.name == "dtypes") return obj.kind == VKind::DType;
  }
  raise("TypeError", "isinstance() arg 2 must be a type, a tuple of types, or a union");
}

using Args = std::vector<Value>;

Value len_of(Interp& in, const Value& v) {
  switch (v.kind) {
  case VKind::List:
  case VKind::Tuple:
    return Value::integer(int64_t(v.items().size()));
  case VKind::Str:
    return Value::integer(int64_t(str_chars(v.s()).size()));
  case VKind::Bytes:
    return Value::integer(int64_t(v.s().size()));
  case VKind::Range:
    return Value::integer(v.as<RangeObj>().size());
  case VKind::Tensor:
    return Value::integer(v.t().len());
  case VKind::Dict:
    return Value::integer(int64_t(v.as<DictObj>().items.size()));
  default:
    (void)in;
    raise("TypeError", "object of type '" + type_name(v) + "' has no len()");
  }
}

Value make_range(Args& a) {
  auto r = std::make_shared<RangeObj>();
  auto idx = [](const Value& v) {
    if (!v.is_intlike())
      raise("TypeError", "'" + type_name(v) + "' object cannot be interpreted as an integer");
    return v.as_int();
  };
  const auto& xs = a[0].items();
  if (xs.empty()) raise("TypeError", "range expected at least 1 argument, got 0");
  if (xs.size() > 3)
    raise("TypeError", "range expected at most 3 arguments, got " + std::to_string(xs.size()));
  if (xs.size() == 1) {
    r->stop = idx(xs[0]);
  } else {
    r->start = idx(xs[0]);
    r->stop = idx(xs[1]);
    if (xs.size() == 3) r->step = idx(xs[2]);
  }
  if (r->step == 0) raise("ValueError", "range() arg 3 must not be zero");
  return Value::of(VKind::Range, std::move(r));
}

Value int_of(const Value& v) {
  switch (v.kind) {
  case VKind::Bool:
  case VKind::Int:
    return Value::integer(v.as_int());
  case VKind::Float:
    if (std::isnan(v.f)) raise("ValueError", "cannot convert float NaN to integer");
    if (std::isinf(v.f)) raise("OverflowError", "cannot convert float infinity to integer");
    if (std::fabs(v.f) >= 9.2233720368547758e18) raise("OverflowError", "int too large for int64");
    return Value::integer(int64_t(v.f));
  case VKind::Str: {
    std::string s = v.s();
    s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
    size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
    std::string t = b == std::string::npos ? "" : s.substr(b, e - b + 1);
    char* end = nullptr;
    errno = 0;
    long long x = t.empty() ? 0 : std::strtoll(t.c_str(), &end, 10);
    if (t.empty() || *end) raise("ValueError", "invalid literal for int() with base 10: " + repr(v));
    return Value::integer(x);
  }
  default:
    raise("TypeError", "int() argument must be a string, a bytes-like object or a real number, not '" +
                           type_name(v) + "'");
  }
}

Value float_of(const Value& v) {
  if (v.is_number()) return Value::floating(v.as_double());
  if (v.kind == VKind::Str) {
    std::string t = v.s();
    size_t b = t.find_first_not_of(" \t\n"), e = t.find_last_not_of(" \t\n");
    t = b == std::string::npos ? "" : t.substr(b, e - b + 1);
    std::string l;
    for (char c : t) l += char(std::tolower((unsigned char)c));
    if (l == "inf" || l == "+inf" || l == "infinity") return Value::floating(INFINITY);
    if (l == "-inf" || l == "-infinity") return Value::floating(-INFINITY);
    if (l == "nan" || l == "+nan" || l == "-nan") return Value::floating(NAN);
    char* end = nullptr;
    double x = t.empty() ? 0 : std::strtod(t.c_str(), &end);
    if (t.empty() || *end) raise("ValueError", "could not convert string to float: " + repr(v));
    return Value::floating(x);
  }
  raise("TypeError", "float() argument must be a string or a real number, not '" + type_name(v) + "'");
}

// min/max over *args or one iterable.
Value extremum(Interp& in, Args& a, bool is_max) {
  const char* name = is_max ? "max" : "min";
  const auto& xs = a[0].items();
  if (xs.empty()) raise("TypeError", std::string(name) + " expected at least 1 argument, got 0");
  std::vector<Value> items = xs.size() == 1 ? in.iterate(xs[0]) : xs;
  if (items.empty()) {
    if (!a[1].is_none()) return a[1];
    raise("ValueError", std::string(name) + "() arg is an empty sequence");
  }
  Value best = items[0];
  Value best_key = a[2].is_none() ? best : [&] {
    CallArgs c;
    c.pos = {best};
    return in.call(a[2], c);
  }();
  for (size_t k = 1; k < items.size(); ++k) {
    Value key = items[k];
    if (!a[2].is_none()) {
      CallArgs c;
      c.pos = {items[k]};
      key = in.call(a[2], c);
    }
    Value dummy;
    if (in.compare(is_max ? PyOp::Gt : PyOp::Lt, key, best_key, &dummy)) {
      if (dummy.kind == VKind::Tensor) truthy(dummy);
      best = items[k];
      best_key = key;
    } else if (dummy.kind == VKind::Tensor) {
      truthy(dummy);
    }
  }
  return best;
}

Value math1(Args& a, double (*f)(double), const char* name) {
  double x = to_double(a[0], std::string("math.") + name + "() argument");
  double r = f(x);
  if (std::isnan(r) && !std::isnan(x)) raise("ValueError", "math domain error");
  return Value::floating(r);
}

void register_math(Registry& r, ModuleObj& m) {
  auto fn = [&](const char* name, const char* spec, NativeFn f) {
    r.attribute(m, name, std::string("math.") + name, spec, f);
  };
  m.attrs[intern("pi")] = Value::floating(M_PI);
  m.attrs[intern("e")] = Value::floating(M_E);
  m.attrs[intern("tau")] = Value::floating(2 * M_PI);
  m.attrs[intern("inf")] = Value::floating(INFINITY);
  m.attrs[intern("nan")] = Value::floating(NAN);
  fn(
      "sqrt", "x", +[](Interp&, Args& a) {
        double x = to_double(a[0], "must be real number");
        if (x < 0) raise("ValueError", "math domain error");
        return Value::floating(std::sqrt(x));
      });
  fn(
      "exp", "x", +[](Interp&, Args& a) {
        double r = std::exp(to_double(a[0], "must be real number"));
        if (std::isinf(r) && std::isfinite(a[0].as_double())) raise("OverflowError", "math range error");
        return Value::floating(r);
      });
  fn(
      "log", "x, base=None", +[](Interp&, Args& a) {
        double x = to_double(a[0], "must be real number");
        if (x <= 0) raise("ValueError", "math domain error");
        double r = std::log(x);
        if (!a[1].is_none()) {
          double b = to_double(a[1], "must be real number");
          if (b <= 0) raise("ValueError", "math domain error");
          if (b == 1) raise("ZeroDivisionError", "float division by zero");
          r /= std::log(b);
        }
        return Value::floating(r);
      });
  fn(
      "log2", "x", +[](Interp&, Args& a) {
        double x = to_double(a[0], "must be real number");
        if (x <= 0) raise("ValueError", "math domain error");
        return Value::floating(std::log2(x));
      });
  fn(
      "log10", "x", +[](Interp&, Args& a) {
        double x = to_double(a[0], "must be real number");
        if (x <= 0) raise("ValueError", "math domain error");
        return Value::floating(std::log10(x));
      });
  fn(
      "sin", "x", +[](Interp&, Args& a) { return math1(a, std::sin, "sin"); });
  fn(
      "cos", "x", +[](Interp&, Args& a) { return math1(a, std::cos, "cos"); });
  fn(
      "tan", "x", +[](Interp&, Args& a) { return math1(a, std::tan, "tan"); });
  fn(
      "tanh", "x", +[](Interp&, Args& a) { return math1(a, std::tanh, "tanh"); });
  fn(
      "atan", "x", +[](Interp&, Args& a) { return math1(a, std::atan, "atan"); });
  fn(
      "fabs", "x", +[](Interp&, Args& a) { return math1(a, std::fabs, "fabs"); });
  fn(
      "isnan", "x",
      +[](Interp&, Args& a) { return Value::boolean(std::isnan(to_double(a[0], "must be real number"))); });
  fn(
      "isinf", "x",
      +[](Interp&, Args& a) { return Value::boolean(std::isinf(to_double(a[0], "must be real number"))); });
  auto rounding = +[](const Value& v, double (*f)(double)) {
    if (v.is_intlike()) return Value::integer(v.as_int());
    return int_of(Value::floating(f(to_double(v, "must be real number"))));
  };
  (void)rounding;
  fn(
      "ceil", "x", +[](Interp&, Args& a) {
        if (a[0].is_intlike()) return Value::integer(a[0].as_int());
        return int_of(Value::floating(std::ceil(to_double(a[0], "must be real number"))));
      });
  fn(
      "floor", "x", +[](Interp&, Args& a) {
        if (a[0].is_intlike()) return Value::integer(a[0].as_int());
        return int_of(Value::floating(std::floor(to_double(a[0], "must be real number"))));
      });
  fn(
      "trunc", "x", +[](Interp&, Args& a) { return int_of(a[0]); });
  fn(
      "pow", "x, y", +[](Interp&, Args& a) {
        return Value::floating(
            std::pow(to_double(a[0], "must be real number"), to_double(a[1], "must be real number")));
      });
  fn(
      "prod", "iterable, start=1", +[](Interp& in, Args& a) {
        Value acc = a[1];
        for (auto& v : in.iterate(a[0])) acc = in.binary(PyOp::Mul, acc, v);
        return acc;
      });
  fn(
      "gcd", "*integers", +[](Interp&, Args& a) {
        int64_t g = 0;
        for (auto& v : a[0].items()) g = std::gcd(g, to_index(v));
        return Value::integer(g);
      });
  fn(
      "isclose", "a, b, rel_tol=1e-09, abs_tol=0.0", +[](Interp&, Args& a) {
        double x = to_double(a[0], "must be real number"), y = to_double(a[1], "must be real number");
        double tol = std::max(a[2].as_double() * std::max(std::fabs(x), std::fabs(y)), a[3].as_double());
        return Value::boolean(x == y || std::fabs(x - y) <= tol);
      });
}

// sorted() and list.sort(): stable, and reverse keeps equal elements in their order, as Python
std::vector<Value> sorted_values(Interp& in, std::vector<Value> v, const Value& key, bool reverse) {
  std::vector<Value> keys = v;
  if (!key.is_none())
    for (auto& k : keys) {
      CallArgs c;
      c.pos = {k};
      k = in.call(key, c);
    }
  std::vector<size_t> order(v.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    Value dummy;
    return reverse ? in.compare(PyOp::Lt, keys[y], keys[x], &dummy)
                   : in.compare(PyOp::Lt, keys[x], keys[y], &dummy);
  });
  std::vector<Value> out;
  for (size_t k : order) out.push_back(v[k]);
  return out;
}

void register_sequences(Registry& r) {
  r.method(
      VKind::List, "sort", "self, *, key=None, reverse=False",
      +[](Interp& in, Args& a) {
        a[0].items() = sorted_values(in, a[0].items(), a[2], truthy(a[3])); // (a[1]: the bare *)
        return Value();
      },
      "list");
  r.method(
      VKind::List, "append", "self, object",
      +[](Interp&, Args& a) {
        a[0].items().push_back(a[1]);
        return Value();
      },
      "list");
  r.method(
      VKind::List, "extend", "self, iterable",
      +[](Interp& in, Args& a) {
        std::vector<Value> more = in.iterate(a[1]);
        a[0].items().insert(a[0].items().end(), more.begin(), more.end());
        return Value();
      },
      "list");
  r.method(
      VKind::List, "insert", "self, index, object",
      +[](Interp&, Args& a) {
        auto& items = a[0].items();
        int64_t i = to_index(a[1]), n = int64_t(items.size());
        if (i < 0) i = std::max<int64_t>(0, i + n);
        i = std::min(i, n);
        items.insert(items.begin() + i, a[2]);
        return Value();
      },
      "list");
  r.method(
      VKind::List, "pop", "self, index=-1",
      +[](Interp&, Args& a) {
        auto& items = a[0].items();
        if (items.empty()) raise("IndexError", "pop from empty list");
        int64_t i = to_index(a[1]), n = int64_t(items.size());
        if (i < 0) i += n;
        if (i < 0 || i >= n) raise("IndexError", "pop index out of range");
        Value v = items[i];
        items.erase(items.begin() + i);
        return v;
      },
      "list");
  r.method(
      VKind::List, "reverse", "self",
      +[](Interp&, Args& a) {
        std::reverse(a[0].items().begin(), a[0].items().end());
        return Value();
      },
      "list");
  r.method(
      VKind::List, "copy", "self", +[](Interp&, Args& a) { return Value::list(a[0].items()); }, "list");
  for (VKind k : {VKind::List, VKind::Tuple}) {
    std::string owner = k == VKind::List ? "list" : "tuple";
    r.method(
        k, "index", "self, value",
        +[](Interp&, Args& a) {
          auto& items = a[0].items();
          for (size_t i = 0; i < items.size(); ++i)
            if (values_equal(items[i], a[1])) return Value::integer(int64_t(i));
          raise("ValueError", repr(a[1]) + " is not in " + (a[0].kind == VKind::List ? "list" : "tuple"));
        },
        owner);
    r.method(
        k, "count", "self, value",
        +[](Interp&, Args& a) {
          int64_t c = 0;
          for (auto& v : a[0].items()) c += values_equal(v, a[1]);
          return Value::integer(c);
        },
        owner);
  }
  r.method(
      VKind::Str, "format", "self, *args, **kwargs",
      +[](Interp&, Args& a) {
        // "{}", "{0}", "{name}", each with !r/!s and :spec; "{{" and "}}" are braces
        const std::string& t = a[0].s();
        const auto& pos = a[1].items();
        const auto& kw = a[2].as<DictObj>().items;
        std::string out;
        size_t auto_index = 0;
        int numbering = 0;
        for (size_t i = 0; i < t.size(); ++i) {
          char c = t[i];
          if (c == '}') {
            if (i + 1 < t.size() && t[i + 1] == '}')
              ++i;
            else
              raise("ValueError", "Single '}' encountered in format string");
            out += '}';
            continue;
          }
          if (c != '{') {
            out += c;
            continue;
          }
          if (i + 1 < t.size() && t[i + 1] == '{') {
            out += '{';
            ++i;
            continue;
          }
          size_t end = t.find('}', i);
          if (end == std::string::npos) raise("ValueError", "expected '}' before end of string");
          std::string field = t.substr(i + 1, end - i - 1), spec, conv;
          i = end;
          if (size_t colon = field.find(':'); colon != std::string::npos) {
            spec = field.substr(colon + 1);
            field = field.substr(0, colon);
          }
          if (size_t bang = field.find('!'); bang != std::string::npos) {
            conv = field.substr(bang + 1);
            field = field.substr(0, bang);
          }
          const Value* v = nullptr;
          if (field.empty() || std::isdigit((unsigned char)field[0])) {
            int mode = field.empty() ? 1 : 2; // automatic or manual numbering, never both
            if (numbering && numbering != mode)
              raise("ValueError",
                    mode == 2 ? "cannot switch from automatic field numbering to manual field specification"
                              : "cannot switch from manual field specification to automatic field numbering");
            numbering = mode;
            size_t k = field.empty() ? auto_index++ : size_t(std::stoul(field));
            if (k >= pos.size())
              raise("IndexError",
                    "Replacement index " + std::to_string(k) + " out of range for positional args tuple");
            v = &pos[k];
          } else {
            for (auto& [name, x] : kw)
              if (name == field) v = &x;
            if (!v) raise("KeyError", "'" + field + "'");
          }
          Value shown = conv == "r" ? Value::str(repr(*v)) : conv == "s" ? Value::str(str(*v)) : *v;
          out += format_value(shown, spec);
        }
        return Value::str(out);
      },
      "str");
  r.method(
      VKind::Str, "join", "self, iterable",
      +[](Interp& in, Args& a) {
        std::string out;
        bool first = true;
        for (auto& v : in.iterate(a[1])) {
          if (v.kind != VKind::Str)
            raise("TypeError", "sequence item: expected str instance, " + type_name(v) + " found");
          if (!first) out += a[0].s();
          out += v.s();
          first = false;
        }
        return Value::str(out);
      },
      "str");
  r.method(
      VKind::Str, "split", "self, sep=None",
      +[](Interp&, Args& a) {
        std::vector<Value> parts;
        const std::string& s = a[0].s();
        if (a[1].is_none()) {
          size_t i = 0;
          while (i < s.size()) {
            while (i < s.size() && std::isspace((unsigned char)s[i])) ++i;
            size_t b = i;
            while (i < s.size() && !std::isspace((unsigned char)s[i])) ++i;
            if (i > b) parts.push_back(Value::str(s.substr(b, i - b)));
          }
        } else {
          if (a[1].kind != VKind::Str) raise("TypeError", "must be str or None, not " + type_name(a[1]));
          const std::string& sep = a[1].s();
          if (sep.empty()) raise("ValueError", "empty separator");
          size_t b = 0, e;
          while ((e = s.find(sep, b)) != std::string::npos) {
            parts.push_back(Value::str(s.substr(b, e - b)));
            b = e + sep.size();
          }
          parts.push_back(Value::str(s.substr(b)));
        }
        return Value::list(std::move(parts));
      },
      "str");
  r.method(
      VKind::Str, "upper", "self",
      +[](Interp&, Args& a) {
        std::string s = a[0].s();
        for (auto& c : s) c = char(std::toupper((unsigned char)c));
        return Value::str(s);
      },
      "str");
  r.method(
      VKind::Str, "lower", "self",
      +[](Interp&, Args& a) {
        std::string s = a[0].s();
        for (auto& c : s) c = char(std::tolower((unsigned char)c));
        return Value::str(s);
      },
      "str");
  r.method(
      VKind::Str, "strip", "self",
      +[](Interp&, Args& a) {
        const std::string& s = a[0].s();
        size_t b = s.find_first_not_of(" \t\n\r"), e = s.find_last_not_of(" \t\n\r");
        return Value::str(b == std::string::npos ? "" : s.substr(b, e - b + 1));
      },
      "str");
  r.method(
      VKind::Str, "replace", "self, old, new",
      +[](Interp&, Args& a) {
        if (a[1].kind != VKind::Str || a[2].kind != VKind::Str)
          raise("TypeError", "replace() arguments must be str");
        std::string s = a[0].s(), out;
        const std::string &o = a[1].s(), &n = a[2].s();
        if (o.empty()) return Value::str(s);
        size_t b = 0, e;
        while ((e = s.find(o, b)) != std::string::npos) {
          out += s.substr(b, e - b) + n;
          b = e + o.size();
        }
        return Value::str(out + s.substr(b));
      },
      "str");
  r.method(
      VKind::Str, "startswith", "self, prefix",
      +[](Interp&, Args& a) {
        if (a[1].kind != VKind::Str) raise("TypeError", "startswith first arg must be str");
        return Value::boolean(a[0].s().rfind(a[1].s(), 0) == 0);
      },
      "str");
  r.method(
      VKind::Str, "endswith", "self, suffix",
      +[](Interp&, Args& a) {
        if (a[1].kind != VKind::Str) raise("TypeError", "endswith first arg must be str");
        const std::string &s = a[0].s(), &x = a[1].s();
        return Value::boolean(s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0);
      },
      "str");
  r.properties[int(VKind::Slice)][intern("start")] =
      +[](Interp&, const Value& s) { return s.as<SliceObj>().start; };
  r.properties[int(VKind::Slice)][intern("stop")] =
      +[](Interp&, const Value& s) { return s.as<SliceObj>().stop; };
  r.properties[int(VKind::Slice)][intern("step")] =
      +[](Interp&, const Value& s) { return s.as<SliceObj>().step; };
}

void register_pipeline(Registry& r) {
  r.function(
      "input", "name, shape, dtype=None, requires_grad=False", +[](Interp& in, Args& a) {
        if (a[0].kind != VKind::Str)
          raise("TypeError", "input() name must be a str, not '" + type_name(a[0]) + "'");
        const std::string& name = a[0].s();
        for (auto& i : in.inputs)
          if (i.name == name) raise("ValueError", "input '" + name + "' is already defined");
        Shape shape = to_shape(a[1]);
        for (const sint& d : shape)
          if (d.min() < 0)
            raise("ValueError", "input '" + name + "': shape entries must be non-negative ints");
        DType dt = to_dtype(a[2]).value_or(DType::Float32);
        bool rg = truthy(a[3]);
        Tensor t = Tensor::placeholder(name, shape, dt, rg);
        // A handle of its own: an assign() to the script's tensor must not move the input.
        in.inputs.push_back({name, Tensor(t.lazydata()), rg});
        return Value::tensor(t);
      });
  r.function(
      "output", "name, value", +[](Interp& in, Args& a) {
        if (a[0].kind != VKind::Str)
          raise("TypeError", "output() name must be a str, not '" + type_name(a[0]) + "'");
        const std::string& name = a[0].s();
        for (auto& o : in.outputs)
          if (o.first == name) raise("ValueError", "output '" + name + "' is already defined");
        if (a[1].kind != VKind::Tensor && !a[1].is_number() && !a[1].is_seq())
          raise("TypeError",
                "output '" + name + "' must be a Tensor, a number or a list, not '" + type_name(a[1]) + "'");
        Value t = a[1].kind == VKind::Tensor ? a[1] : tensor_from_data(a[1], std::nullopt, std::nullopt);
        // The value now, as the oracle's t.numpy() at this call: a later assign() does not change it.
        // (numpy() of an empty tensor realizes nothing, so its draws stay unseeded)
        const Shape& shape = t.t().shape();
        if (std::none_of(shape.begin(), shape.end(), [](const sint& d) { return d == 0; }))
          Tensor::realize_draws({t.t()});
        in.outputs.emplace_back(name, t.t().snapshot());
        return Value();
      });
  r.function(
      "state", "name_or_dict, tensor=None", +[](Interp&, Args& a) {
        // state(name, t) / state({name: t, ...}): t.realize() under that name (a no-op on
        // an input or a tensor that already is a state).
        auto one = [](const std::string& name, const Value& v) {
          if (v.kind != VKind::Tensor)
            raise("TypeError", "state '" + name + "' must be a Tensor, not '" + type_name(v) + "'");
          Tensor::realize_draws({v.t()});
          v.t().realize(name);
        };
        if (a[0].kind == VKind::Dict) {
          if (!a[1].is_none()) raise("TypeError", "state() takes a dict or a name and a tensor");
          for (auto& [k, v] : a[0].as<script::DictObj>().items) one(k, v);
          return Value();
        }
        if (a[0].kind != VKind::Str)
          raise("TypeError", "state() name must be a str, not '" + type_name(a[0]) + "'");
        one(a[0].s(), a[1]);
        return a[1];
      });
}

// ord(c): the code point of a one-character str (a UTF-8 sequence of 1 to 4 bytes).
Value ord_of(const Value& v) {
  if (v.kind != VKind::Str)
    raise("TypeError", "ord() expected string of length 1, but " + type_name(v) + " found");
  std::vector<std::string> chars = str_chars(v.s());
  if (chars.size() != 1)
    raise("TypeError",
          "ord() expected a character, but string of length " + std::to_string(chars.size()) + " found");
  const std::string& c = chars[0];
  auto byte = [&](size_t i) { return uint32_t(static_cast<unsigned char>(c[i])); };
  uint32_t cp = c.size() == 1   ? byte(0)
                : c.size() == 2 ? byte(0) & 0x1f
                : c.size() == 3 ? byte(0) & 0x0f
                                : byte(0) & 0x07;
  for (size_t i = 1; i < c.size(); ++i) cp = (cp << 6) | (byte(i) & 0x3f);
  return Value::integer(int64_t(cp));
}

// chr(i): the one-character str of code point i, UTF-8 encoded.
Value chr_of(const Value& v) {
  if (!v.is_intlike())
    raise("TypeError", "'" + type_name(v) + "' object cannot be interpreted as an integer");
  int64_t cp = v.as_int();
  if (cp < 0 || cp > 0x10ffff) raise("ValueError", "chr() arg not in range(0x110000)");
  std::string s;
  auto tail = [&](int shift) { s += char(0x80 | ((cp >> shift) & 0x3f)); };
  if (cp < 0x80) {
    s += char(cp);
  } else if (cp < 0x800) {
    s += char(0xc0 | (cp >> 6)), tail(0);
  } else if (cp < 0x10000) {
    s += char(0xe0 | (cp >> 12)), tail(6), tail(0);
  } else {
    s += char(0xf0 | (cp >> 18)), tail(12), tail(6), tail(0);
  }
  return Value::str(s);
}

} // namespace

void register_builtins(Registry& r) {
  r.function(
      "len", "obj", +[](Interp& in, Args& a) { return len_of(in, a[0]); });
  r.function(
      "ord", "c", +[](Interp&, Args& a) { return ord_of(a[0]); });
  r.function(
      "chr", "i", +[](Interp&, Args& a) { return chr_of(a[0]); });
  r.function(
      "range", "*args", +[](Interp&, Args& a) { return make_range(a); });
  r.function(
      "print", "*args, sep=' ', end='\\n'", +[](Interp& in, Args& a) {
        std::string line;
        const auto& xs = a[0].items();
        std::string sep = a[1].kind == VKind::Str ? a[1].s() : " ";
        for (size_t k = 0; k < xs.size(); ++k) line += (k ? sep : "") + str(xs[k]);
        in.print_stream << line << (a[2].kind == VKind::Str ? (a[2].s() == "\\n" ? "\n" : a[2].s()) : "\n");
        in.print_stream.flush();
        return Value();
      });
  r.function(
      "int", "x=0", +[](Interp&, Args& a) { return int_of(a[0]); });
  r.function(
      "float", "x=0.0", +[](Interp&, Args& a) { return float_of(a[0]); });
  r.function(
      "bool", "x=False", +[](Interp&, Args& a) { return Value::boolean(truthy(a[0])); });
  r.function(
      "str", "object=''", +[](Interp&, Args& a) { return Value::str(str(a[0])); });
  r.function(
      "repr", "object", +[](Interp&, Args& a) { return Value::str(repr(a[0])); });
  r.function(
      "abs", "x", +[](Interp& in, Args& a) {
        if (a[0].kind == VKind::Tensor) return Value::tensor(a[0].t().abs()); // Tensor.__abs__ is missing in
        if (a[0].kind == VKind::Float) return Value::floating(std::fabs(a[0].f)); // 0.9.1; see docs
        if (a[0].is_intlike()) return in.unary(a[0].as_int() < 0 ? PyOp::Neg : PyOp::Pos, a[0]);
        raise("TypeError", "bad operand type for abs(): '" + type_name(a[0]) + "'");
      });
  r.function(
      "min", "*args, default=None, key=None", +[](Interp& in, Args& a) { return extremum(in, a, false); });
  r.function(
      "max", "*args, default=None, key=None", +[](Interp& in, Args& a) { return extremum(in, a, true); });
  r.function(
      "sum", "iterable, start=0", +[](Interp& in, Args& a) {
        Value acc = a[1];
        for (auto& v : in.iterate(a[0])) acc = in.binary(PyOp::Add, acc, v);
        return acc;
      });
  r.function(
      "list", "iterable=()", +[](Interp& in, Args& a) { return Value::list(in.iterate(a[0])); });
  r.function(
      "tuple", "iterable=()", +[](Interp& in, Args& a) {
        if (a[0].kind == VKind::Tuple) return a[0];
        return Value::tuple(in.iterate(a[0]));
      });
  r.function(
      "enumerate", "iterable, start=0", +[](Interp& in, Args& a) {
        std::vector<Value> out;
        int64_t k = to_index(a[1]);
        for (auto& v : in.iterate(a[0])) out.push_back(Value::tuple({Value::integer(k++), v}));
        return Value::list(std::move(out));
      });
  r.function(
      "zip", "*iterables", +[](Interp& in, Args& a) {
        std::vector<std::vector<Value>> seqs;
        size_t n = SIZE_MAX;
        for (auto& v : a[0].items()) {
          seqs.push_back(in.iterate(v));
          n = std::min(n, seqs.back().size());
        }
        std::vector<Value> out;
        if (seqs.empty()) n = 0;
        for (size_t k = 0; k < n; ++k) {
          std::vector<Value> t;
          for (auto& s : seqs) t.push_back(s[k]);
          out.push_back(Value::tuple(std::move(t)));
        }
        return Value::list(std::move(out));
      });
  r.function(
      "reversed", "sequence", +[](Interp& in, Args& a) {
        std::vector<Value> v = in.iterate(a[0]);
        std::reverse(v.begin(), v.end());
        return Value::list(std::move(v));
      });
  r.function(
      "sorted", "iterable, key=None, reverse=False", +[](Interp& in, Args& a) {
        return Value::list(sorted_values(in, in.iterate(a[0]), a[1], truthy(a[2])));
      });
  r.function(
      "all", "iterable", +[](Interp& in, Args& a) {
        for (auto& v : in.iterate(a[0]))
          if (!truthy(v)) return Value::boolean(false);
        return Value::boolean(true);
      });
  r.function(
      "any", "iterable", +[](Interp& in, Args& a) {
        for (auto& v : in.iterate(a[0]))
          if (truthy(v)) return Value::boolean(true);
        return Value::boolean(false);
      });
  r.function(
      "round", "number, ndigits=None", +[](Interp&, Args& a) {
        if (a[0].is_intlike()) return Value::integer(a[0].as_int());
        double x = to_double(a[0], "round() argument");
        if (a[1].is_none()) return int_of(Value::floating(std::nearbyint(x))); // half to even
        int64_t nd = to_index(a[1]);
        if (nd >= 0 && nd <= 300 && std::isfinite(x)) {
          // Python rounds the double's exact value, half to even: round(2.675, 2) is 2.67 (it is
          // 2.67499999...), which x*100 would round up. printf rounds the exact value too.
          char buf[400];
          std::snprintf(buf, sizeof buf, "%.*f", int(nd), x);
          return Value::floating(std::strtod(buf, nullptr));
        }
        double p = std::pow(10.0, double(nd));
        return Value::floating(std::nearbyint(x * p) / p);
      });
  r.function(
      "pow", "base, exp, mod=None", +[](Interp& in, Args& a) {
        if (a[2].is_none()) return in.binary(PyOp::Pow, a[0], a[1]);
        if (!a[0].is_intlike() || !a[1].is_intlike() || !a[2].is_intlike())
          raise("TypeError", "pow() 3rd argument not allowed unless all arguments are integers");
        int64_t b = a[0].as_int(), e = a[1].as_int(), m = a[2].as_int();
        if (m == 0) raise("ValueError", "pow() 3rd argument cannot be 0");
        if (e < 0)
          raise("ValueError", "pow() negative exponent with a modulus is not supported in .tg scripts");
        auto mod = [m](__int128 v) { return int64_t(((v % m) + m) % m); };
        int64_t r = mod(1), x = mod(b);
        for (; e > 0; e >>= 1, x = mod(__int128(x) * x))
          if (e & 1) r = mod(__int128(r) * x);
        return Value::integer(r);
      });
  r.function(
      "map", "function, *iterables", +[](Interp& in, Args& a) {
        std::vector<std::vector<Value>> its;
        for (const Value& v : a[1].items()) its.push_back(in.iterate(v));
        if (its.empty()) raise("TypeError", "map() must have at least two arguments.");
        size_t n = its[0].size();
        for (auto& it : its) n = std::min(n, it.size());
        std::vector<Value> out;
        for (size_t k = 0; k < n; ++k) {
          CallArgs args;
          for (auto& it : its) args.pos.push_back(it[k]);
          out.push_back(in.call(a[0], args));
        }
        return Value::list(std::move(out)); // (a list: .tg has no lazy iterators)
      });
  r.function(
      "filter", "function, iterable", +[](Interp& in, Args& a) {
        std::vector<Value> out;
        for (Value& v : in.iterate(a[1])) {
          bool keep;
          if (a[0].is_none()) {
            keep = truthy(v);
          } else {
            CallArgs args;
            args.pos.push_back(v);
            keep = truthy(in.call(a[0], args));
          }
          if (keep) out.push_back(std::move(v));
        }
        return Value::list(std::move(out));
      });
  r.function(
      "dict", "*args, **kwargs", +[](Interp& in, Args& a) {
        const auto& pos = a[0].items();
        if (pos.size() > 1)
          raise("TypeError", "dict expected at most 1 argument, got " + std::to_string(pos.size()));
        Value out = make_dict();
        DictObj& d = out.as<DictObj>();
        if (!pos.empty()) {
          if (pos[0].kind == VKind::Dict) {
            for (auto& [k, v] : pos[0].as<DictObj>().items) d.set(k, v);
          } else {
            for (Value& kv : in.iterate(pos[0])) {
              std::vector<Value> pair = in.iterate(kv);
              if (pair.size() != 2)
                raise("ValueError", "dictionary update sequence element has length " +
                                        std::to_string(pair.size()) + "; 2 is required");
              d.set(dict_key(pair[0]), pair[1]);
            }
          }
        }
        for (auto& [k, v] : a[1].as<DictObj>().items) d.set(k, v);
        return out;
      });
  r.function(
      "callable", "obj", +[](Interp&, Args& a) { return Value::boolean(is_callable(a[0])); });
  r.function(
      "divmod", "a, b", +[](Interp& in, Args& a) {
        return Value::tuple({in.binary(PyOp::FloorDiv, a[0], a[1]), in.binary(PyOp::Mod, a[0], a[1])});
      });
  r.function(
      "slice", "*args", +[](Interp&, Args& a) {
        auto s = std::make_shared<SliceObj>();
        const auto& xs = a[0].items();
        if (xs.empty() || xs.size() > 3) raise("TypeError", "slice expected 1 to 3 arguments");
        if (xs.size() == 1)
          s->stop = xs[0];
        else {
          s->start = xs[0];
          s->stop = xs[1];
          if (xs.size() == 3) s->step = xs[2];
        }
        return Value::of(VKind::Slice, std::move(s));
      });
  // staticmethod(f) / classmethod(f): a wrapper that attribute access on the class or an
  // instance unwraps (operators.cpp's unwrap_method)
  r.function(
      "staticmethod", "function", +[](Interp&, Args& a) { return method_wrapper("staticmethod", a[0]); });
  r.function(
      "classmethod", "function", +[](Interp&, Args& a) { return method_wrapper("classmethod", a[0]); });
  r.function(
      "isinstance", "obj, class_or_tuple",
      +[](Interp&, Args& a) { return Value::boolean(is_instance(a[0], a[1])); });
  r.function(
      "getattr", "object, name, *default", +[](Interp& in, Args& a) {
        if (a[2].items().size() > 1)
          raise("TypeError",
                "getattr expected at most 3 arguments, got " + std::to_string(2 + a[2].items().size()));
        if (a[1].kind != VKind::Str)
          raise("TypeError", "attribute name must be string, not '" + type_name(a[1]) + "'");
        try {
          return in.get_attr(a[0], intern(a[1].s()));
        } catch (const PyError& e) {
          if (e.kind() != "AttributeError" || a[2].items().empty()) throw;
          return a[2].items()[0];
        }
      });
  r.function(
      "hasattr", "obj, name", +[](Interp& in, Args& a) {
        if (a[1].kind != VKind::Str)
          raise("TypeError", "attribute name must be string, not '" + type_name(a[1]) + "'");
        try {
          in.get_attr(a[0], intern(a[1].s()));
          return Value::boolean(true);
        } catch (const PyError& e) {
          if (e.kind() != "AttributeError") throw;
          return Value::boolean(false);
        }
      });
  r.function(
      "setattr", "obj, name, value", +[](Interp&, Args& a) {
        if (a[1].kind != VKind::Str)
          raise("TypeError", "attribute name must be string, not '" + type_name(a[1]) + "'");
        if (a[0].kind != VKind::Module || !(a[0].as<ModuleObj>().instance || a[0].as<ModuleObj>().is_class))
          raise("AttributeError",
                "'" + type_name(a[0]) + "' object attribute '" + a[1].s() + "' is read-only");
        a[0].as<ModuleObj>().set_attr(intern(a[1].s()), a[2]);
        return Value();
      });
  // What `from tinygrad import ...` and tinygrad.helpers give besides Tensor, dtypes and nn,
  // under names no script can spell. TinyJit runs the function as it is: tracing a call is
  // what capturing it does. Device.DEFAULT is CLANG, tg-codegen's default device.
  {
    auto native = [&](const char* name, const char* spec, NativeFn fn) {
      r.add(name, spec, fn);
      return Value::of(VKind::Builtin, r.owned.back());
    };
    auto mod = [](const char* name) {
      auto m = std::make_shared<ModuleObj>();
      m->name = name;
      return m;
    };
    auto tinygrad = mod("tinygrad");
    tinygrad->attrs[intern("TinyJit")] = native(
        "TinyJit", "fxn", +[](Interp&, Args& a) { return a[0]; });
    auto device = mod("Device");
    device->attrs[intern("DEFAULT")] = Value::str("CLANG");
    tinygrad->attrs[intern("Device")] = Value::of(VKind::Module, device);
    auto counters = mod("GlobalCounters");
    counters->attrs[intern("reset")] = native(
        "GlobalCounters.reset", "", +[](Interp&, Args&) { return Value(); });
    for (const char* n : {"global_ops", "global_mem", "kernel_count", "mem_used"})
      counters->attrs[intern(n)] = Value::integer(0);
    counters->attrs[intern("time_sum_s")] = Value::floating(0.0);
    tinygrad->attrs[intern("GlobalCounters")] = Value::of(VKind::Module, counters);
    r.globals[intern("<tinygrad>")] = Value::of(VKind::Module, tinygrad);

    auto helpers = mod("tinygrad.helpers");
    helpers->attrs[intern("getenv")] = native(
        "getenv", "key, default=0", +[](Interp&, Args& a) {
          // tinygrad's type(default)(os.getenv(key, default)), from tg-trace's environment
          if (a[0].kind != VKind::Str) raise("TypeError", "str expected, not " + type_name(a[0]));
          const char* v = std::getenv(a[0].s().c_str());
          if (!v) return a[1];
          std::string s = v;
          try {
            if (a[1].kind == VKind::Int) return Value::integer(std::stoll(s));
            if (a[1].kind == VKind::Float) return Value::floating(std::stod(s));
          } catch (const std::exception&) {
            raise("ValueError", "invalid literal for " + type_name(a[1]) + "(): " + repr(Value::str(s)));
          }
          if (a[1].kind == VKind::Bool) return Value::boolean(!s.empty());
          return Value::str(s);
        });
    helpers->attrs[intern("prod")] = native(
        "prod", "x", +[](Interp& in, Args& a) {
          Value r = Value::integer(1);
          for (const Value& v : in.iterate(a[0])) r = in.binary(PyOp::Mul, r, v);
          return r;
        });
    helpers->attrs[intern("flatten")] = native(
        "flatten", "l", +[](Interp& in, Args& a) {
          std::vector<Value> out;
          for (const Value& l : in.iterate(a[0]))
            for (Value& v : in.iterate(l)) out.push_back(std::move(v));
          return Value::list(std::move(out));
        });
    helpers->attrs[intern("dedup")] = native(
        "dedup", "x", +[](Interp& in, Args& a) {
          std::vector<Value> out;
          for (Value& v : in.iterate(a[0])) {
            bool seen = false;
            for (const Value& o : out) seen = seen || in.compare(PyOp::Eq, o, v, nullptr);
            if (!seen) out.push_back(std::move(v));
          }
          return Value::list(std::move(out));
        });
    helpers->attrs[intern("all_int")] = native(
        "all_int", "t", +[](Interp& in, Args& a) {
          for (const Value& v : in.iterate(a[0]))
            if (!v.is_intlike()) return Value::boolean(false);
          return Value::boolean(true);
        });
    helpers->attrs[intern("make_pair")] = native(
        "make_pair", "x, cnt=2", +[](Interp&, Args& a) {
          if (!a[0].is_intlike()) return a[0];
          return Value::tuple(std::vector<Value>(size_t(std::max<int64_t>(0, a[1].as_int())), a[0]));
        });
    helpers->attrs[intern("round_up")] = native(
        "round_up", "num, amt", +[](Interp& in, Args& a) {
          Value up = in.binary(PyOp::Sub, in.binary(PyOp::Add, a[0], a[1]), Value::integer(1));
          return in.binary(PyOp::Mul, in.binary(PyOp::FloorDiv, up, a[1]), a[1]);
        });
    register_devices(r, *tinygrad, *device, *helpers);
    r.globals[intern("<tinygrad.helpers>")] = Value::of(VKind::Module, helpers);
  }
  // an import statement (parser.cpp): the module at `path`, or its attributes `names`
  r.function(
      "__import__", "path, names", +[](Interp& in, Args& a) {
        const std::string& path = a[0].s();
        std::vector<Value> out;
        if (path == "typing") { // annotations are not evaluated: the names need no value
          for (size_t k = 0; k < a[1].items().size(); ++k) out.push_back(Value());
          return Value::tuple(std::move(out));
        }
        Value module = import_module(path);
        for (const Value& n : a[1].items()) {
          if (n.s().empty()) {
            out.push_back(module);
            continue;
          }
          try {
            out.push_back(in.get_attr(module, intern(n.s())));
          } catch (const PyError& e) {
            if (e.kind() != "AttributeError") throw;
            raise("ImportError",
                  "cannot import name '" + n.s() + "' from '" + path + "' (tg does not provide it)");
          }
        }
        return Value::tuple(std::move(out));
      });
  r.function(
      "format", "value, format_spec=''", +[](Interp&, Args& a) {
        if (a[1].kind != VKind::Str)
          raise("TypeError", "format() argument 2 must be str, not " + type_name(a[1]));
        return Value::str(format_value(a[0], a[1].s()));
      });
  // an f-string field {value!conv:spec} (parser.cpp)
  r.function(
      "__format__", "value, conv, spec", +[](Interp&, Args& a) {
        const std::string& conv = a[1].s();
        Value v = conv == "r" || conv == "a" ? Value::str(repr(a[0]))
                  : conv == "s"              ? Value::str(str(a[0]))
                                             : a[0];
        return Value::str(format_value(v, a[2].s()));
      });
  auto math = std::make_shared<ModuleObj>();
  math->name = "math";
  register_math(r, *math);
  r.globals[intern("math")] = Value::of(VKind::Module, math);
  register_functools(r);
  register_symbolic(r);
  register_sequences(r);
  register_pipeline(r);
}

} // namespace tg::script
