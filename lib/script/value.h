// script layer, values: what a .tg expression evaluates to. Scalars (None, bool, int, float,
// DType) live inline; everything else is a shared object, so copies alias like Python
// references. Identifiers are interned to small ints (Sym) once, at parse time.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/tensor.h"
#include "util/error.h"

namespace tg::script {

using Sym = int32_t;
Sym intern(std::string_view name);
const std::string& sym_name(Sym s);

enum class VKind : uint8_t {
  None,
  Bool,
  Int,
  Float,
  DType,
  Ellipsis,
  Str,
  Bytes,
  List,
  Tuple,
  Slice,
  Range,
  Tensor,
  Function, // a def or lambda
  Builtin,  // a native function (also Tensor's unbound methods)
  Method,   // a native function bound to its first argument
  Module,   // Tensor, dtypes, math: a namespace of attributes
  Dict,     // string keys only (script/dict.h)
  Symbol,   // tinygrad's Variable and expressions of it: a symbolic dimension (SymObj)
  Unbound,  // an empty variable slot; never a result
};

struct Object {
  virtual ~Object() = default;
};

struct Value {
  VKind kind = VKind::None;
  union {
    bool b;
    int64_t i;
    double f;
    DType dt;
  };
  std::shared_ptr<Object> obj;

  Value() : i(0) {}
  static Value none() { return Value(); }
  static Value boolean(bool v) {
    Value x;
    x.kind = VKind::Bool;
    x.i = 0;
    x.b = v;
    return x;
  }
  static Value integer(int64_t v) {
    Value x;
    x.kind = VKind::Int;
    x.i = v;
    return x;
  }
  static Value floating(double v) {
    Value x;
    x.kind = VKind::Float;
    x.f = v;
    return x;
  }
  static Value dtype(DType v) {
    Value x;
    x.kind = VKind::DType;
    x.i = 0;
    x.dt = v;
    return x;
  }
  static Value ellipsis() {
    Value x;
    x.kind = VKind::Ellipsis;
    return x;
  }
  static Value str(std::string s);
  static Value bytes(std::string s);
  static Value list(std::vector<Value> items);
  static Value tuple(std::vector<Value> items);
  static Value tensor(Tensor t);
  static Value symbol(const sint& d); // an int dimension is an Int
  static Value of(VKind k, std::shared_ptr<Object> o) {
    Value x;
    x.kind = k;
    x.obj = std::move(o);
    return x;
  }

  bool is_none() const { return kind == VKind::None; }
  bool is_number() const { return kind == VKind::Bool || kind == VKind::Int || kind == VKind::Float; }
  bool is_intlike() const { return kind == VKind::Bool || kind == VKind::Int; }
  bool is_seq() const { return kind == VKind::List || kind == VKind::Tuple; }
  int64_t as_int() const { return kind == VKind::Bool ? int64_t(b) : i; } // only for is_intlike
  double as_double() const { return kind == VKind::Float ? f : double(as_int()); }

  const std::string& s() const;      // Str, Bytes
  std::vector<Value>& items() const; // List, Tuple
  Tensor& t() const;                 // Tensor
  template <class T> T& as() const { return static_cast<T&>(*obj); }
};

struct StrObj : Object {
  std::string s;
};
struct SeqObj : Object {
  std::vector<Value> items;
};
struct SliceObj : Object {
  Value start, stop, step;
};
// Python's slice.indices(n): start, stop and step for a sequence of n items (operators.cpp)
void slice_indices(const SliceObj& s, int64_t n, int64_t& start, int64_t& stop, int64_t& step);
struct RangeObj : Object {
  int64_t start = 0, stop = 0, step = 1;
  int64_t size() const;
  int64_t at(int64_t k) const { return start + k * step; }
};
struct SymObj : Object {
  Expr e;             // never a Num
  bool bound = false; // a Variable object binds once (tinygrad's Variable.bind mutates it)
  explicit SymObj(Expr x) : e(x) {}
};
struct TensorObj : Object {
  Tensor t;
  explicit TensorObj(Tensor x) : t(std::move(x)) {}
};

inline const std::string& Value::s() const { return static_cast<StrObj&>(*obj).s; }
inline std::vector<Value>& Value::items() const { return static_cast<SeqObj&>(*obj).items; }
inline Tensor& Value::t() const { return static_cast<TensorObj&>(*obj).t; }

// An error raised while evaluating: a Python exception type and message. The evaluator adds
// the line; trace_script turns it into a ScriptError.
struct PyError : Error {
  int line = 0; // 0 = not known yet
  // The functions the error left, innermost first: each one's name and the line in it where
  // the error was (the traceback; `line` is then the line of the outermost call).
  std::vector<std::pair<std::string, int>> calls;
  PyError(std::string kind, const std::string& message, int l = 0)
      : Error(std::move(kind), message), line(l) {}
};
[[noreturn]] void raise(const std::string& kind, const std::string& message);

// Lists and dicts are registered when made; after a script has run, break_container_cycles()
// empties those still alive, so containers that hold themselves are freed (Python's cycle
// collector does this; shared_ptr cannot).
void remember_container(const std::shared_ptr<Object>& o);
void break_container_cycles();

std::string type_name(const Value& v); // Python's type(v).__name__: 'int', 'Tensor', 'list'
// A str's characters as Python counts them (code points; the script's strings are UTF-8):
// len, indexing, slicing and iteration go by these.
std::vector<std::string> str_chars(const std::string& utf8);
std::string repr(const Value& v);
std::string str(const Value& v); // str(): strings without quotes
// format(v, spec) and "fmt" % args (builtins.cpp)
std::string format_value(const Value& v, const std::string& spec);
std::string percent_format(const std::string& fmt, const Value& args);
std::string float_repr(double d);
bool truthy(const Value& v); // bool(v); a Tensor raises TypeError like tinygrad
bool values_equal(const Value& a, const Value& b);

} // namespace tg::script
