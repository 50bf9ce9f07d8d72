// Python's operators over script values: int/float arithmetic with Python's rules, sequence
// operators, comparisons, subscripts, attribute access, and Tensor's dunder methods.
#include <cmath>

#include "script/dict.h"
#include "script/interp.h"

namespace tg::script {
namespace {

const char* op_symbol(PyOp op) {
  switch (op) {
  case PyOp::Add:
    return "+";
  case PyOp::Sub:
    return "-";
  case PyOp::Mul:
    return "*";
  case PyOp::Div:
    return "/";
  case PyOp::FloorDiv:
    return "//";
  case PyOp::Mod:
    return "%";
  case PyOp::Pow:
    return "** or pow()";
  case PyOp::MatMul:
    return "@";
  case PyOp::LShift:
    return "<<";
  case PyOp::RShift:
    return ">>";
  case PyOp::BitAnd:
    return "&";
  case PyOp::BitOr:
    return "|";
  case PyOp::BitXor:
    return "^";
  case PyOp::Lt:
    return "<";
  case PyOp::Gt:
    return ">";
  case PyOp::Le:
    return "<=";
  case PyOp::Ge:
    return ">=";
  default:
    return "?";
  }
}

[[noreturn]] void unsupported(PyOp op, const Value& a, const Value& b) {
  raise("TypeError", std::string("unsupported operand type(s) for ") + op_symbol(op) + ": '" + type_name(a) +
                         "' and '" + type_name(b) + "'");
}

[[noreturn]] void overflow() {
  raise("OverflowError", "integer result does not fit in 64 bits (.tg ints are int64)");
}
int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) overflow();
  return r;
}
int64_t checked_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) overflow();
  return r;
}
int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) overflow();
  return r;
}

int64_t floor_div(int64_t a, int64_t b) {
  if (b == 0) raise("ZeroDivisionError", "integer division or modulo by zero");
  if (a == INT64_MIN && b == -1)
    raise("OverflowError", "integer result does not fit in 64 bits (.tg ints are int64)");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t py_mod(int64_t a, int64_t b) {
  if (b == 0) raise("ZeroDivisionError", "integer modulo by zero");
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

double float_mod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0) {
    if ((b < 0) != (m < 0)) m += b;
  } else {
    m = std::copysign(0.0, b);
  }
  return m;
}
double float_floordiv(double a, double b) {
  double m = std::fmod(a, b);
  double div = (a - m) / b;
  if (m != 0 && ((b < 0) != (m < 0))) div -= 1.0;
  if (div == 0) return std::copysign(0.0, a / b);
  double fl = std::floor(div);
  if (div - fl > 0.5) fl += 1.0;
  return fl;
}

Value int_pow(int64_t a, int64_t b) {
  if (b < 0) {
    if (a == 0) raise("ZeroDivisionError", "0.0 cannot be raised to a negative power");
    return Value::floating(std::pow(double(a), double(b)));
  }
  int64_t r = 1, base = a;
  while (b) {
    if (b & 1) r = checked_mul(r, base);
    b >>= 1;
    if (b) base = checked_mul(base, base);
  }
  return Value::integer(r);
}

Value number_op(PyOp op, const Value& a, const Value& b) {
  if (a.is_intlike() && b.is_intlike()) {
    int64_t x = a.as_int(), y = b.as_int();
    bool both_bool = a.kind == VKind::Bool && b.kind == VKind::Bool;
    switch (op) {
    case PyOp::Add:
      return Value::integer(checked_add(x, y));
    case PyOp::Sub:
      return Value::integer(checked_sub(x, y));
    case PyOp::Mul:
      return Value::integer(checked_mul(x, y));
    case PyOp::Div:
      if (y == 0) raise("ZeroDivisionError", "division by zero");
      return Value::floating(double(x) / double(y));
    case PyOp::FloorDiv:
      return Value::integer(floor_div(x, y));
    case PyOp::Mod:
      return Value::integer(py_mod(x, y));
    case PyOp::Pow:
      return int_pow(x, y);
    case PyOp::LShift:
      if (y < 0) raise("ValueError", "negative shift count");
      if (x != 0 && (y >= 63 || (x << y) >> y != x)) overflow();
      return Value::integer(x == 0 ? 0 : x << y);
    case PyOp::RShift:
      if (y < 0) raise("ValueError", "negative shift count");
      return Value::integer(y >= 64 ? (x < 0 ? -1 : 0) : x >> y);
    case PyOp::BitAnd:
      return both_bool ? Value::boolean(x & y) : Value::integer(x & y);
    case PyOp::BitOr:
      return both_bool ? Value::boolean(x | y) : Value::integer(x | y);
    case PyOp::BitXor:
      return both_bool ? Value::boolean(x ^ y) : Value::integer(x ^ y);
    default:
      unsupported(op, a, b);
    }
  }
  double x = a.as_double(), y = b.as_double();
  switch (op) {
  case PyOp::Add:
    return Value::floating(x + y);
  case PyOp::Sub:
    return Value::floating(x - y);
  case PyOp::Mul:
    return Value::floating(x * y);
  case PyOp::Div:
    if (y == 0) raise("ZeroDivisionError", "float division by zero");
    return Value::floating(x / y);
  case PyOp::FloorDiv:
    if (y == 0) raise("ZeroDivisionError", "float floor division by zero");
    return Value::floating(float_floordiv(x, y));
  case PyOp::Mod:
    if (y == 0) raise("ZeroDivisionError", "float modulo");
    return Value::floating(float_mod(x, y));
  case PyOp::Pow:
    if (x == 0 && y < 0) raise("ZeroDivisionError", "0.0 cannot be raised to a negative power");
    if (x < 0 && std::isfinite(y) && y != std::floor(y))
      raise("ValueError",
            "negative number raised to a fractional power: complex results are not supported in .tg");
    return Value::floating(std::pow(x, y));
  default:
    unsupported(op, a, b);
  }
}

Value repeat_seq(const Value& seq, int64_t n) {
  // Python raises MemoryError when the result cannot be allocated; .tg says so up front for
  // anything past 2**30 items rather than grow toward the machine's memory.
  constexpr int64_t kMaxItems = int64_t(1) << 30;
  int64_t each = seq.kind == VKind::Str || seq.kind == VKind::Bytes ? int64_t(seq.s().size())
                                                                    : int64_t(seq.items().size());
  if (n > 0 && each > 0 && n > kMaxItems / each)
    raise("MemoryError", "repeating a sequence of " + std::to_string(each) + " items " + std::to_string(n) +
                             " times is past .tg's limit of 2**30 items");
  if (seq.kind == VKind::Str || seq.kind == VKind::Bytes) {
    std::string r;
    for (int64_t k = 0; k < n; ++k) r += seq.s();
    return seq.kind == VKind::Str ? Value::str(r) : Value::bytes(r);
  }
  std::vector<Value> r;
  for (int64_t k = 0; k < n; ++k) r.insert(r.end(), seq.items().begin(), seq.items().end());
  return seq.kind == VKind::List ? Value::list(std::move(r)) : Value::tuple(std::move(r));
}

bool is_sequence_kind(VKind k) {
  return k == VKind::List || k == VKind::Tuple || k == VKind::Str || k == VKind::Bytes;
}

// Tensor's dunders: t OP x, or x OP t when reverse (Tensor.__radd__ & co).
Value tensor_op(PyOp op, const Tensor& t, const Value& x, bool reverse, const Value& a, const Value& b) {
  auto operand = [&] { return to_operand(x); };
  switch (op) {
  case PyOp::Add:
    return Value::tensor(t.add(operand(), reverse));
  case PyOp::Sub:
    return Value::tensor(t.sub(operand(), reverse));
  case PyOp::Mul:
    return Value::tensor(t.mul(operand(), reverse));
  case PyOp::Div:
    return Value::tensor(t.div(operand(), reverse));
  case PyOp::Pow:
    return Value::tensor(t.pow(operand(), reverse));
  case PyOp::BitXor:
    return Value::tensor(t.xor_(operand(), reverse));
  case PyOp::MatMul:
    if (x.kind != VKind::Tensor) {
      if (reverse) raise("AttributeError", "'" + type_name(x) + "' object has no attribute 'dot'");
      raise("AttributeError", "'" + type_name(x) + "' object has no attribute 'shape'");
    }
    return Value::tensor(t.matmul(x.t(), reverse));
  case PyOp::LShift:
  case PyOp::RShift:
    if (reverse) unsupported(op, a, b);
    if (!x.is_intlike())
      raise("TypeError", "Tensor." + std::string(op == PyOp::LShift ? "lshift" : "rshift") +
                             " needs an int shift, got '" + type_name(x) + "'");
    return Value::tensor(op == PyOp::LShift ? t.lshift(x.as_int()) : t.rshift(x.as_int()));
  default:
    unsupported(op, a, b);
  }
}

} // namespace

Value Interp::binary(PyOp op, const Value& a, const Value& b) {
  if (a.kind == VKind::Tensor) return tensor_op(op, a.t(), b, false, a, b);
  if (b.kind == VKind::Tensor) return tensor_op(op, b.t(), a, true, a, b);
  if (a.is_number() && b.is_number()) return number_op(op, a, b);
  if (a.kind == VKind::Symbol || b.kind == VKind::Symbol)
    if (auto r = symbol_op(op, a, b)) return *r;
  if (op == PyOp::Mod && a.kind == VKind::Str) return Value::str(percent_format(a.s(), b));
  if (op == PyOp::Add && is_sequence_kind(a.kind)) {
    if (a.kind != b.kind) {
      const char* what = a.kind == VKind::List    ? "list"
                         : a.kind == VKind::Tuple ? "tuple"
                         : a.kind == VKind::Str   ? "str"
                                                  : "bytes";
      if (a.kind == VKind::Bytes) raise("TypeError", "can't concat " + type_name(b) + " to bytes");
      raise("TypeError",
            std::string("can only concatenate ") + what + " (not \"" + type_name(b) + "\") to " + what);
    }
    if (a.kind == VKind::Str) return Value::str(a.s() + b.s());
    if (a.kind == VKind::Bytes) return Value::bytes(a.s() + b.s());
    std::vector<Value> r = a.items();
    r.insert(r.end(), b.items().begin(), b.items().end());
    return a.kind == VKind::List ? Value::list(std::move(r)) : Value::tuple(std::move(r));
  }
  if (op == PyOp::Mul && (is_sequence_kind(a.kind) || is_sequence_kind(b.kind))) {
    const Value& seq = is_sequence_kind(a.kind) ? a : b;
    const Value& n = is_sequence_kind(a.kind) ? b : a;
    if (!n.is_intlike())
      raise("TypeError", "can't multiply sequence by non-int of type '" + type_name(n) + "'");
    return repeat_seq(seq, n.as_int());
  }
  unsupported(op, a, b);
}

Value Interp::unary(PyOp op, const Value& a) {
  if (a.kind == VKind::Tensor && op == PyOp::Neg) return Value::tensor(a.t().neg());
  if (a.is_intlike()) {
    int64_t x = a.as_int();
    if (op == PyOp::Neg) {
      if (x == INT64_MIN) overflow();
      return Value::integer(-x);
    }
    if (op == PyOp::Pos) return Value::integer(x);
    if (op == PyOp::Invert) return Value::integer(~x);
  }
  if (a.kind == VKind::Float) {
    if (op == PyOp::Neg) return Value::floating(-a.f);
    if (op == PyOp::Pos) return a;
  }
  const char* s = op == PyOp::Neg ? "-" : op == PyOp::Pos ? "+" : "~";
  raise("TypeError", std::string("bad operand type for unary ") + s + ": '" + type_name(a) + "'");
}

static int order(const Value& a, const Value& b, PyOp op); // -1, 0, 1

static bool contains(Interp& in, const Value& container, const Value& x) {
  switch (container.kind) {
  case VKind::List:
  case VKind::Tuple:
    for (auto& v : container.items())
      if (values_equal(v, x)) return true;
    return false;
  case VKind::Str:
  case VKind::Bytes:
    if (x.kind != container.kind)
      raise("TypeError", "'in <string>' requires string as left operand, not " + type_name(x));
    return container.s().find(x.s()) != std::string::npos;
  case VKind::Dict:
    return x.kind == VKind::Str && container.as<DictObj>().find(x.s()) != nullptr;
  case VKind::Range: {
    if (!x.is_number()) return false;
    for (auto& v : in.iterate(container))
      if (values_equal(v, x)) return true;
    return false;
  }
  default:
    raise("TypeError", "argument of type '" + type_name(container) + "' is not iterable");
  }
}

bool Interp::compare(PyOp op, const Value& a, const Value& b, Value* tensor_result) {
  if ((a.kind == VKind::Tensor || b.kind == VKind::Tensor) && op != PyOp::Is && op != PyOp::IsNot &&
      op != PyOp::In && op != PyOp::NotIn) {
    bool rev = a.kind != VKind::Tensor; // x OP t: Python tries t's reflected comparison
    const Tensor& t = rev ? b.t() : a.t();
    Operand x = to_operand(rev ? a : b);
    switch (op) {
    case PyOp::Lt:
      *tensor_result = Value::tensor(rev ? t.gt(x) : t.lt(x));
      break;
    case PyOp::Gt:
      *tensor_result = Value::tensor(rev ? t.lt(x) : t.gt(x));
      break;
    case PyOp::Le:
      *tensor_result = Value::tensor(rev ? t.ge(x) : t.le(x));
      break;
    case PyOp::Ge:
      *tensor_result = Value::tensor(rev ? t.le(x) : t.ge(x));
      break;
    case PyOp::Eq:
      *tensor_result = Value::tensor(t.eq(x));
      break;
    case PyOp::Ne:
      *tensor_result = Value::tensor(t.ne(x));
      break;
    default:
      break;
    }
    return true;
  }
  switch (op) {
  case PyOp::Eq:
    return values_equal(a, b);
  case PyOp::Ne:
    return !values_equal(a, b);
  case PyOp::Is:
  case PyOp::IsNot: {
    bool same = a.kind == b.kind && (a.obj ? a.obj == b.obj : values_equal(a, b));
    return op == PyOp::Is ? same : !same;
  }
  case PyOp::In:
    return contains(*this, b, a);
  case PyOp::NotIn:
    return !contains(*this, b, a);
  default: {
    if (auto r = symbol_compare(op, a, b)) return *r;
    int c = order(a, b, op);
    switch (op) {
    case PyOp::Lt:
      return c < 0;
    case PyOp::Gt:
      return c > 0;
    case PyOp::Le:
      return c <= 0;
    default:
      return c >= 0;
    }
  }
  }
}

static int order(const Value& a, const Value& b, PyOp op) {
  if (a.is_number() && b.is_number()) {
    if (a.is_intlike() && b.is_intlike()) return a.as_int() < b.as_int() ? -1 : a.as_int() > b.as_int();
    double x = a.as_double(), y = b.as_double();
    if (std::isnan(x) || std::isnan(y)) return op == PyOp::Lt || op == PyOp::Le ? 1 : -1; // all false
    return x < y ? -1 : x > y;
  }
  if (a.kind == b.kind && (a.kind == VKind::Str || a.kind == VKind::Bytes))
    return a.s().compare(b.s()) < 0 ? -1 : a.s() != b.s();
  if (a.kind == b.kind && (a.kind == VKind::List || a.kind == VKind::Tuple)) {
    const auto &x = a.items(), &y = b.items();
    for (size_t k = 0; k < x.size() && k < y.size(); ++k)
      if (!values_equal(x[k], y[k])) return order(x[k], y[k], op);
    return x.size() < y.size() ? -1 : x.size() > y.size();
  }
  raise("TypeError", std::string("'") + op_symbol(op) + "' not supported between instances of '" +
                         type_name(a) + "' and '" + type_name(b) + "'");
}

// ---- subscripts ----

// slice.indices(n)
void slice_indices(const SliceObj& s, int64_t n, int64_t& start, int64_t& stop, int64_t& step) {
  auto idx = [](const Value& v) {
    if (!v.is_intlike())
      raise("TypeError", "slice indices must be integers or None or have an __index__ method");
    return v.as_int();
  };
  step = s.step.is_none() ? 1 : idx(s.step);
  if (step == 0) raise("ValueError", "slice step cannot be zero");
  int64_t lower = step > 0 ? 0 : -1, upper = step > 0 ? n : n - 1;
  auto clamp = [&](const Value& v, int64_t dflt) {
    if (v.is_none()) return dflt;
    int64_t x = idx(v);
    if (x < 0) {
      x += n;
      if (x < lower) x = lower;
    } else if (x > upper) {
      x = upper;
    }
    return x;
  };
  start = clamp(s.start, step > 0 ? lower : upper);
  stop = clamp(s.stop, step > 0 ? upper : lower);
}

namespace {

Index tensor_index(const Value& v) {
  switch (v.kind) {
  case VKind::Int:
  case VKind::Bool:
    return Index::integer(v.as_int());
  case VKind::None:
    return Index::none();
  case VKind::Ellipsis:
    return Index::ellipsis();
  case VKind::Slice: {
    auto& s = v.as<SliceObj>();
    auto opt = [](const Value& x) -> std::optional<int64_t> {
      if (x.is_none()) return std::nullopt;
      if (!x.is_intlike())
        raise("TypeError", "slice indices must be integers or None or have an __index__ method");
      return x.as_int();
    };
    return Index::slice(opt(s.start), opt(s.stop), opt(s.step));
  }
  case VKind::Tensor:
    return Index::of_tensor(v.t());
  case VKind::List:
  case VKind::Tuple: // inside an index, tinygrad makes tuples and lists Tensors alike
    return Index::of_tensor(tensor_from_data(v, std::nullopt, std::nullopt).t());
  default:
    raise("IndexError", repr(v) + " indexing is not supported");
  }
}
} // namespace

std::vector<Index> tensor_indices(const Value& index) {
  std::vector<Index> idx;
  // _getitem: a list of ints is one Tensor index; any other list is a sequence of indices
  bool all_int = index.kind == VKind::List;
  if (all_int)
    for (auto& v : index.items()) all_int = all_int && v.is_intlike(); // bools are ints in Python
  if (index.kind == VKind::Tuple || (index.kind == VKind::List && !all_int)) {
    for (auto& v : index.items()) idx.push_back(tensor_index(v));
  } else {
    idx.push_back(tensor_index(index));
  }
  return idx;
}

void tensor_setitem(const Value& obj, const Value& index, const Value& v) {
  if (v.kind != VKind::Tensor && v.kind != VKind::Float && v.kind != VKind::Int && v.kind != VKind::Bool)
    raise("TypeError", "can't set a " + type_name(v) + " to a Tensor");
  obj.t().setitem(tensor_indices(index), to_operand(v));
}

Value Interp::subscript(const Value& obj, const Value& index) {
  if (obj.kind == VKind::Tensor) return Value::tensor(obj.t().getitem(tensor_indices(index)));
  if (obj.kind == VKind::Dict) return dict_get(obj, index);
  bool seq = obj.is_seq() || obj.kind == VKind::Str || obj.kind == VKind::Bytes || obj.kind == VKind::Range;
  if (!seq) raise("TypeError", "'" + type_name(obj) + "' object is not subscriptable");
  std::vector<std::string> chars; // a str indexes by character, not byte
  if (obj.kind == VKind::Str) chars = str_chars(obj.s());
  int64_t n = obj.kind == VKind::Range ? obj.as<RangeObj>().size()
              : obj.is_seq()           ? int64_t(obj.items().size())
              : obj.kind == VKind::Str ? int64_t(chars.size())
                                       : int64_t(obj.s().size());
  if (index.kind == VKind::Slice) {
    int64_t start, stop, step;
    slice_indices(index.as<SliceObj>(), n, start, stop, step);
    if (obj.kind == VKind::Range) {
      auto& r = obj.as<RangeObj>();
      auto o = std::make_shared<RangeObj>();
      o->start = r.at(start);
      o->stop = r.at(stop);
      o->step = r.step * step;
      return Value::of(VKind::Range, std::move(o));
    }
    std::vector<Value> items;
    std::string s;
    for (int64_t k = start; step > 0 ? k < stop : k > stop; k += step) {
      if (obj.is_seq())
        items.push_back(obj.items()[k]);
      else if (obj.kind == VKind::Str)
        s += chars[size_t(k)];
      else
        s += obj.s()[k];
    }
    if (obj.kind == VKind::List) return Value::list(std::move(items));
    if (obj.kind == VKind::Tuple) return Value::tuple(std::move(items));
    return obj.kind == VKind::Str ? Value::str(s) : Value::bytes(s);
  }
  const char* what = obj.kind == VKind::List    ? "list"
                     : obj.kind == VKind::Tuple ? "tuple"
                     : obj.kind == VKind::Range ? "range object"
                     : obj.kind == VKind::Str   ? "string"
                                                : "bytes";
  if (!index.is_intlike())
    raise("TypeError",
          std::string(obj.kind == VKind::Str ? "string" : type_name(obj)) + " indices must be integers" +
              (obj.kind == VKind::Range ? " or slices" : " or slices") + ", not " + type_name(index));
  int64_t i = index.as_int();
  if (i < 0) i += n;
  if (i < 0 || i >= n) raise("IndexError", std::string(what) + " index out of range");
  if (obj.kind == VKind::Range) return Value::integer(obj.as<RangeObj>().at(i));
  if (obj.is_seq()) return obj.items()[i];
  if (obj.kind == VKind::Bytes) return Value::integer((unsigned char)obj.s()[i]);
  return Value::str(chars[size_t(i)]);
}

std::vector<Value> Interp::iterate(const Value& v) {
  switch (v.kind) {
  case VKind::Dict:
    return dict_keys(v);
  case VKind::List:
  case VKind::Tuple:
    return v.items();
  case VKind::Range: {
    auto& r = v.as<RangeObj>();
    int64_t n = r.size();
    if (n > 100000000)
      raise("MemoryError", "range of " + std::to_string(n) + " elements is too large to materialize");
    std::vector<Value> out;
    out.reserve(size_t(n));
    for (int64_t k = 0; k < n; ++k) out.push_back(Value::integer(r.at(k)));
    return out;
  }
  case VKind::Str: {
    std::vector<Value> out;
    for (std::string& c : str_chars(v.s())) out.push_back(Value::str(std::move(c)));
    return out;
  }
  case VKind::Bytes: {
    std::vector<Value> out;
    for (unsigned char c : v.s()) out.push_back(Value::integer(c));
    return out;
  }
  case VKind::Tensor: {
    // no __iter__: Python falls back to __getitem__(0), (1), ... and __len__
    std::vector<Value> out;
    int64_t n = v.t().len();
    for (int64_t k = 0; k < n; ++k) out.push_back(Value::tensor(v.t().getitem({Index::integer(k)})));
    return out;
  }
  default:
    raise("TypeError", "'" + type_name(v) + "' object is not iterable");
  }
}

namespace {
// staticmethod(f) / classmethod(f) (builtins.cpp) as a class attribute: what reading it gives.
// `owner` is the class.
std::optional<Value> unwrap_method(const Value& attr, const Value& owner) {
  if (attr.kind != VKind::Module) return std::nullopt;
  const ModuleObj& w = attr.as<ModuleObj>();
  if (w.is_class || w.instance || (w.name != "staticmethod" && w.name != "classmethod")) return std::nullopt;
  const Value& fn = w.attrs.at(intern("__func__"));
  if (w.name == "staticmethod") return fn;
  auto bound = std::make_shared<MethodObj>();
  bound->self = owner;
  bound->func = fn;
  return Value::of(VKind::Method, std::move(bound));
}
} // namespace

Value Interp::get_attr(const Value& obj, Sym name) {
  int k = int(obj.kind);
  if (auto it = reg_.properties[k].find(name); it != reg_.properties[k].end()) return it->second(*this, obj);
  if (auto it = reg_.methods[k].find(name); it != reg_.methods[k].end()) {
    auto m = std::make_shared<MethodObj>();
    m->self = obj;
    m->fn = it->second;
    return Value::of(VKind::Method, std::move(m));
  }
  if (obj.kind == VKind::Module) {
    auto& m = obj.as<ModuleObj>();
    if (Value flag; tensor_flag(m, name, &flag)) return flag; // the flag as it is now
    if (auto it = m.attrs.find(name); it != m.attrs.end()) {
      if (m.is_class)
        if (auto method = unwrap_method(it->second, obj)) return *method;
      return it->second;
    }
    if (m.methods)
      if (auto it = m.methods->find(name); it != m.methods->end()) {
        auto bound = std::make_shared<MethodObj>();
        bound->self = obj;
        bound->fn = it->second;
        return Value::of(VKind::Method, std::move(bound));
      }
    if (m.cls)
      if (auto it = m.cls->attrs.find(name); it != m.cls->attrs.end()) {
        if (auto method = unwrap_method(it->second, Value::of(VKind::Module, m.cls))) return *method;
        if (it->second.kind != VKind::Function) return it->second; // a class attribute
        auto bound = std::make_shared<MethodObj>();
        bound->self = obj;
        bound->func = it->second;
        return Value::of(VKind::Method, std::move(bound));
      }
    if (m.instance)
      raise("AttributeError", "'" + m.name + "' object has no attribute '" + sym_name(name) + "'");
    if (m.is_class)
      raise("AttributeError", "type object '" + m.name + "' has no attribute '" + sym_name(name) + "'");
    if (m.name == "Tensor") refuse_unsupported_tensor_attr(sym_name(name));
    if (m.name == "Tensor" || m.name == "dtypes")
      raise("AttributeError", "type object '" + m.name + "' has no attribute '" + sym_name(name) + "'");
    raise("AttributeError", "module '" + m.name + "' has no attribute '" + sym_name(name) + "'");
  }
  if (obj.kind == VKind::Tensor) {
    // Python finds class attributes through an instance: x.arange, x.training
    const Value& cls = reg_.globals.at(intern("Tensor"));
    if (Value flag; tensor_flag(cls.as<ModuleObj>(), name, &flag)) return flag;
    if (auto it = cls.as<ModuleObj>().attrs.find(name); it != cls.as<ModuleObj>().attrs.end())
      return it->second;
    refuse_unsupported_tensor_attr(sym_name(name));
  }
  raise("AttributeError", "'" + type_name(obj) + "' object has no attribute '" + sym_name(name) + "'");
}

// A name tinygrad 0.9.1's Tensor has and tg does not: say so by name, with why, instead of a bare
// AttributeError that reads like a typo.
void refuse_unsupported_tensor_attr(const std::string& name) {
  static const std::pair<const char*, const char*> unsupported[] = {
      {"schedule", "tg schedules a whole program with tg-schedule"},
      {"schedule_with_vars", "tg schedules a whole program with tg-schedule"},
      {"image_conv2d", "IMAGE kernels (tinygrad's IMAGE=1 GPU path) are not supported"},
      {"image_dot", "IMAGE kernels (tinygrad's IMAGE=1 GPU path) are not supported"},
      {"llvm_bf16_cast", "bfloat16 casts through LLVM are not supported"},
      {"inference_mode", "use Tensor.no_grad / Tensor.training as flags"},
  };
  static const char* const devices[] = {"amd", "cuda", "disk", "gpu", "llvm", "metal", "npy", "nv", "python"};
  for (const auto& [n, why] : unsupported)
    if (name == n) raise("NotImplementedError", "Tensor." + name + ": not supported by tg (" + why + ")");
  for (const char* d : devices)
    if (name == d)
      raise("NotImplementedError", "Tensor." + name +
                                       ": a tg program runs on one device, which tg-codegen "
                                       "--device picks");
}

} // namespace tg::script
