// Python argument forms to the C++ Tensor API's types, as tinygrad normalises them (argfix,
// axis=None|int|tuple, Tensor(data) from nested lists).
#include <cmath>

#include "script/interp.h"

namespace tg::script {

int64_t to_index(const Value& v, const char* what) {
  if (v.is_intlike()) return v.as_int();
  if (v.kind == VKind::Float) raise("TypeError", "'float' object cannot be interpreted as an integer");
  raise("TypeError", "'" + type_name(v) + "' object cannot be interpreted as " + what);
}

double to_double(const Value& v, const std::string& what) {
  if (v.is_number()) return v.as_double();
  raise("TypeError", what + " must be a real number, not " + type_name(v));
}

Scalar to_scalar(const Value& v) {
  switch (v.kind) {
  case VKind::Bool:
    return Scalar::of_bool(v.b);
  case VKind::Int:
    return Scalar::of_int(v.i);
  case VKind::Float:
    return Scalar::of_float(v.f);
  default:
    raise("TypeError", "expected a number (bool, int or float), got '" + type_name(v) + "'");
  }
}

std::optional<DType> to_dtype(const Value& v) {
  if (v.is_none()) return std::nullopt;
  if (v.kind == VKind::DType) return v.dt;
  raise("AssertionError", "invalid dtype " + repr(v));
}

Tensor& to_tensor(const Value& v, const std::string& what) {
  if (v.kind == VKind::Tensor) return v.t();
  raise("TypeError", what + " must be a Tensor, not '" + type_name(v) + "'");
}

static sint shape_entry(const Value& v) {
  if (v.is_none()) return kKeepDim;
  if (v.kind == VKind::Symbol) return sint(v.as<SymObj>().e);
  return to_index(v);
}

Shape to_shape(const Value& v) {
  Shape s;
  if (v.is_intlike()) return {v.as_int()};
  if (!v.is_seq()) raise("TypeError", "a shape must be a tuple or list of ints, not '" + type_name(v) + "'");
  for (auto& x : v.items()) s.push_back(shape_entry(x));
  return s;
}

Shape argfix_all(const Value& args) {
  const auto& items = args.items();
  if (!items.empty() && items[0].is_seq()) {
    if (items.size() != 1) raise("ValueError", "bad arg " + repr(args));
    return to_shape(items[0]);
  }
  Shape s;
  for (auto& x : items) s.push_back(shape_entry(x));
  return s;
}

Shape argfix(const Value& first, const Value& rest) {
  std::vector<Value> all{first};
  all.insert(all.end(), rest.items().begin(), rest.items().end());
  return argfix_all(Value::tuple(std::move(all)));
}

std::vector<int> to_ints(const Value& v) {
  std::vector<int> r;
  if (v.is_intlike()) return {int(v.as_int())};
  if (!v.is_seq()) raise("TypeError", "expected an int or a tuple of ints, not '" + type_name(v) + "'");
  for (auto& x : v.items()) r.push_back(int(to_index(x)));
  return r;
}

AxisArg to_axis(const Value& v) {
  if (v.is_none()) return std::nullopt;
  return to_ints(v);
}

Operand to_operand(const Value& v) {
  if (v.kind == VKind::Tensor) return Operand(v.t());
  if (v.is_number()) return Operand(to_scalar(v));
  if (v.kind == VKind::Symbol)
    return Operand(Tensor::from_node(sint(v.as<SymObj>().e))); // _broadcasted's from_node
  // tinygrad's _broadcasted: assert isinstance(y, (float, int, bool, Node)), f"{type(y)=}, {y=}"
  raise("AssertionError", "type(y)=<class '" + type_name(v) + "'>, y=" + repr(v));
}

namespace {

// numpy's np.array(data) shape discovery: the error for ragged nesting names the depth.
void list_shape(const Value& data, Shape& shape) {
  std::vector<const Value*> level{&data};
  while (true) {
    bool any_seq = false, all_seq = true;
    for (auto* v : level) {
      if (v->is_seq())
        any_seq = true;
      else
        all_seq = false;
    }
    if (!any_seq) return;
    size_t n = level[0]->is_seq() ? level[0]->items().size() : 0;
    bool same = all_seq;
    for (auto* v : level) same = same && v->items().size() == n;
    if (!same) {
      std::string dims = "(";
      for (size_t k = 0; k < shape.size(); ++k) dims += (k ? ", " : "") + std::to_string(shape[k]);
      dims += shape.size() == 1 ? ",)" : ")";
      raise(
          "ValueError",
          "setting an array element with a sequence. The requested array has an inhomogeneous shape after " +
              std::to_string(shape.size()) + " dimensions. The detected shape was " + dims +
              " + inhomogeneous part.");
    }
    shape.push_back(int64_t(n));
    std::vector<const Value*> next;
    for (auto* v : level)
      for (auto& x : v->items()) next.push_back(&x);
    level = std::move(next);
    if (level.empty()) return;
  }
}

void flatten(const Value& v, std::vector<Scalar>& out) {
  if (v.is_seq()) {
    for (auto& x : v.items()) flatten(x, out);
    return;
  }
  if (!v.is_number())
    raise("TypeError",
          "can't create a Tensor from a list holding '" + type_name(v) + "' (only bool, int and float)");
  out.push_back(to_scalar(v));
}

} // namespace

Value tensor_from_data(const Value& data, std::optional<DType> dtype, std::optional<bool> requires_grad) {
  switch (data.kind) {
  case VKind::None: {
    Tensor t = dtype ? Tensor::empty({0}, dtype) : Tensor();
    if (requires_grad) t.set_requires_grad(requires_grad);
    return Value::tensor(t);
  }
  case VKind::Bool:
  case VKind::Int:
  case VKind::Float:
    return Value::tensor(Tensor::scalar(to_scalar(data), dtype, requires_grad));
  case VKind::Bytes: {
    std::vector<uint8_t> bytes(data.s().begin(), data.s().end());
    Tensor t = Tensor::from_bytes(bytes, dtype);
    if (requires_grad) t.set_requires_grad(requires_grad);
    return Value::tensor(t);
  }
  case VKind::List:
  case VKind::Tuple: {
    Shape shape;
    list_shape(data, shape);
    std::vector<Scalar> flat;
    flat.reserve(size_t(prod(shape)));
    flatten(data, flat);
    return Value::tensor(Tensor::from_list(flat, shape, dtype, requires_grad));
  }
  case VKind::Symbol: // Tensor(Variable): a CONST of the variable (not of an expression over it)
    if (data.as<SymObj>().e.kind() == ExprKind::Var) {
      Tensor t = Tensor::from_node(sint(data.as<SymObj>().e), dtype);
      if (requires_grad) t.set_requires_grad(requires_grad);
      return Value::tensor(t);
    }
    [[fallthrough]];
  default:
    raise("RuntimeError",
          "can't create Tensor from " + repr(data) + " with type <class '" + type_name(data) + "'>");
  }
}

Value tensor_list(const std::vector<Tensor>& ts, bool tuple) {
  std::vector<Value> items;
  for (auto& t : ts) items.push_back(Value::tensor(t));
  return tuple ? Value::tuple(std::move(items)) : Value::list(std::move(items));
}

} // namespace tg::script
