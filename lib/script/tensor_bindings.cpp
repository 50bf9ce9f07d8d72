// The Tensor API and dtypes as the script sees them: one table entry per tinygrad 0.9.1 name,
// with its Python signature. Adding a method is one line here.
#include <algorithm>
#include <set>

#include "script/interp.h"
#include "tensor/function.h"

namespace tg::script {
namespace {

using Args = std::vector<Value>;

const Tensor& self(const Args& a) { return to_tensor(a[0], "self"); }
Value T(Tensor t) { return Value::tensor(std::move(t)); }
std::optional<bool> opt_bool(const Value& v) {
  if (v.is_none()) return std::nullopt;
  return truthy(v);
}
Value with_grad(Tensor t, const Value& requires_grad) {
  if (!requires_grad.is_none()) t.set_requires_grad(truthy(requires_grad));
  return T(std::move(t));
}
int to_int(const Value& v) { return int(to_index(v)); }
std::optional<int> opt_int(const Value& v) {
  if (v.is_none()) return std::nullopt;
  return to_int(v);
}

// (begin, end) pairs or None per dim, ints or Variables (a KV-cache window, cat along a variable)
SymbolicPadding symbolic_padding(const Value& v) {
  if (!v.is_seq())
    raise("TypeError", "expected a tuple of (begin, end) pairs or None, not '" + type_name(v) + "'");
  auto dim = [](const Value& x) {
    return x.kind == VKind::Symbol ? sint(x.as<SymObj>().e) : sint(to_index(x));
  };
  SymbolicPadding p;
  for (auto& x : v.items()) {
    if (x.is_none()) {
      p.push_back(std::nullopt);
      continue;
    }
    if (!x.is_seq() || x.items().size() != 2)
      raise("ValueError", "expected a (begin, end) pair, got " + repr(x));
    p.push_back(std::make_pair(dim(x.items()[0]), dim(x.items()[1])));
  }
  return p;
}

std::vector<Tensor> tensors(const Value& tuple) {
  std::vector<Tensor> r;
  for (auto& v : tuple.items()) r.push_back(to_tensor(v, "argument"));
  return r;
}

// Python's `a - b` and `-a` on int/float/bool numbers (ints stay ints, as the Python scalars
// tinygrad's formulas compute with).
Scalar py_sub(const Value& a, const Value& b, const char* what_a, const char* what_b) {
  if (a.is_intlike() && b.is_intlike()) return Scalar::of_int(a.as_int() - b.as_int());
  double x = to_double(a, what_a);
  return Scalar::of_float(x - to_double(b, what_b));
}
Operand py_neg(const Value& v) {
  if (v.kind == VKind::Tensor) return Operand(v.t().neg());
  if (v.is_intlike()) return Operand(Scalar::of_int(-v.as_int()));
  return Operand(Scalar::of_float(-to_double(v, "neg_slope")));
}

// tensor.py's _softmax(axis) with axis=None|int|tuple: (self - max, exp, sum of exp).
struct SoftmaxParts {
  Tensor m, e, ss;
};
SoftmaxParts softmax_parts(const Tensor& x, const Value& axis) {
  AxisArg ax = to_axis(axis);
  Tensor m = x.sub(x.max(ax, true));
  Tensor e = m.exp();
  return {m, e, e.sum(ax, true)};
}

// view(*shape) is reshape(shape): a tuple or list among the arguments is not unpacked (only
// reshape's own argument is), so tinygrad 0.9.1 fails on it; these are its TypeErrors.
void check_view_args(const Value& args) {
  const auto& items = args.items();
  const Value* seq = nullptr;
  bool list = false;
  for (auto& v : items)
    if (v.is_seq()) {
      if (!seq) seq = &v;
      list = list || v.kind == VKind::List;
    }
  if (!seq) return;
  auto c = std::count_if(items.begin(), items.end(),
                         [](const Value& v) { return v.is_intlike() && v.as_int() == -1; });
  if (c > 1) raise("RuntimeError", "only one dimension can be inferred using -1, getting " + repr(args));
  if (c) raise("TypeError", "unsupported operand type(s) for //: 'int' and '" + type_name(*seq) + "'");
  if (list) raise("TypeError", "unhashable type: 'list'");
  raise("TypeError", "'>=' not supported between instances of 'tuple' and 'int'");
}

// Methods with no arguments but self.
template <Tensor (Tensor::*F)() const> Value nullary(Interp&, Args& a) { return T((self(a).*F)()); }

struct Nullary {
  const char* name;
  NativeFn fn;
};
const Nullary kNullary[] = {
    {"logical_not", nullary<&Tensor::logical_not>},
    {"neg", nullary<&Tensor::neg>},
    {"log", nullary<&Tensor::log>},
    {"log2", nullary<&Tensor::log2>},
    {"exp", nullary<&Tensor::exp>},
    {"exp2", nullary<&Tensor::exp2>},
    {"relu", nullary<&Tensor::relu>},
    {"sigmoid", nullary<&Tensor::sigmoid>},
    {"sqrt", nullary<&Tensor::sqrt>},
    {"rsqrt", nullary<&Tensor::rsqrt>},
    {"sin", nullary<&Tensor::sin>},
    {"cos", nullary<&Tensor::cos>},
    {"tan", nullary<&Tensor::tan>},
    {"trunc", nullary<&Tensor::trunc>},
    {"ceil", nullary<&Tensor::ceil>},
    {"floor", nullary<&Tensor::floor>},
    {"round", nullary<&Tensor::round>},
    {"square", nullary<&Tensor::square>},
    {"sign", nullary<&Tensor::sign>},
    {"abs", nullary<&Tensor::abs>},
    {"reciprocal", nullary<&Tensor::reciprocal>},
    {"tanh", nullary<&Tensor::tanh>},
    {"swish", nullary<&Tensor::swish>},
    {"silu", nullary<&Tensor::silu>},
    {"relu6", nullary<&Tensor::relu6>},
    {"hardswish", nullary<&Tensor::hardswish>},
    {"sinh", nullary<&Tensor::sinh>},
    {"cosh", nullary<&Tensor::cosh>},
    {"atanh", nullary<&Tensor::atanh>},
    {"asinh", nullary<&Tensor::asinh>},
    {"acosh", nullary<&Tensor::acosh>},
    {"gelu", nullary<&Tensor::gelu>},
    {"quick_gelu", nullary<&Tensor::quick_gelu>},
    {"mish", nullary<&Tensor::mish>},
    {"softsign", nullary<&Tensor::softsign>},
    {"contiguous", nullary<&Tensor::contiguous>},
    {"contiguous_backward", nullary<&Tensor::contiguous_backward>},
    {"float", nullary<&Tensor::float_>},
    {"half", nullary<&Tensor::half>},
    {"detach", nullary<&Tensor::detach>},
};

template <PyOp OP> Value binary_dunder(Interp& in, Args& a) { return in.binary(OP, a[0], a[1]); }
template <PyOp OP> Value rbinary_dunder(Interp& in, Args& a) { return in.binary(OP, a[1], a[0]); }

// _reduce on a 0-d tensor names the axis as it was written: axis=(1,), axis=1.
void check_scalar_axis(const Tensor& t, const Value& axis) {
  if (t.ndim() != 0 || !axis.is_seq()) return;
  for (const Value& v : axis.items())
    if (!v.is_intlike() || (v.as_int() != -1 && v.as_int() != 0))
      raise("IndexError", "axis=" + repr(axis) + " out of range of [-1, 0]");
}

// Reductions over axis=None|int|tuple with keepdim.
template <Tensor (Tensor::*F)(const AxisArg&, bool) const> Value reduce(Interp&, Args& a) {
  check_scalar_axis(self(a), a[1]);
  return T((self(a).*F)(to_axis(a[1]), truthy(a[2])));
}
template <Tensor (Tensor::*F)(const AxisArg&, bool, int64_t) const> Value reduce_corr(Interp&, Args& a) {
  return T((self(a).*F)(to_axis(a[1]), truthy(a[2]), to_index(a[3])));
}
template <Tensor (Tensor::*F)(std::optional<int>, bool) const> Value arg_reduce(Interp&, Args& a) {
  return T((self(a).*F)(opt_int(a[1]), truthy(a[2])));
}
template <Tensor (Tensor::*F)(int) const> Value int_arg(Interp&, Args& a) {
  return T((self(a).*F)(to_int(a[1])));
}
template <Tensor (Tensor::*F)(int64_t) const> Value int64_arg(Interp&, Args& a) {
  return T((self(a).*F)(to_index(a[1])));
}
template <Tensor (Tensor::*F)(double) const> Value double_arg(Interp&, Args& a) {
  return T((self(a).*F)(to_double(a[1], "argument")));
}
template <Tensor (Tensor::*F)(const Operand&, bool) const> Value binary_rev(Interp&, Args& a) {
  return T((self(a).*F)(to_operand(a[1]), truthy(a[2])));
}
template <Tensor (Tensor::*F)(const Operand&) const> Value binary(Interp&, Args& a) {
  return T((self(a).*F)(to_operand(a[1])));
}
template <Tensor (Tensor::*F)(DType) const> Value dtype_arg(Interp&, Args& a) {
  auto dt = to_dtype(a[1]);
  if (!dt) raise("AssertionError", "invalid dtype None");
  return T((self(a).*F)(*dt));
}

// Static constructors taking *shape and forwarding **kwargs to Tensor(...).
template <Tensor (*F)(const Shape&, std::optional<DType>)> Value shaped(Interp&, Args& a) {
  return with_grad(F(argfix_all(a[0]), to_dtype(a[1])), a[2]);
}
// The same for those that take requires_grad themselves (full's family: it sits on the leaf).
template <Tensor (*F)(const Shape&, std::optional<DType>, std::optional<bool>)>
Value filled(Interp&, Args& a) {
  return T(F(argfix_all(a[0]), to_dtype(a[1]), opt_bool(a[2])));
}

std::optional<Tensor> opt_tensor(const Value& v, const char* what) {
  if (v.is_none()) return std::nullopt;
  return to_tensor(v, what);
}
// An int or a tuple/list of ints (kernel_size, stride, dilation, padding).
IntOrTuple int_or_tuple(const Value& v) {
  if (v.is_seq()) return IntOrTuple(shape_ints(to_shape(v)));
  return IntOrTuple(to_index(v));
}
// kernel_size=(2, 2): ParamSpec defaults cannot be tuples, so None stands for the default.
IntOrTuple kernel_size(const Value& v) { return v.is_none() ? IntOrTuple({2, 2}) : int_or_tuple(v); }
std::optional<IntOrTuple> opt_int_or_tuple(const Value& v) {
  if (v.is_none()) return std::nullopt;
  return int_or_tuple(v);
}

// nn functional: tensor.py 0.9.1's linear .. sparse_categorical_crossentropy, pooling, convs.
void register_nn_methods(Registry& r) {
  auto m = [&](const char* name, const char* spec, NativeFn fn) {
    r.method(VKind::Tensor, name, spec, fn, "Tensor");
  };
  // The operator dunders (x.__lshift__(2), Tensor.__add__(x, y)) are the operators themselves.
  auto dunder = [&](const char* name, NativeFn fn, NativeFn rfn) {
    m((std::string("__") + name + "__").c_str(), "self, x", fn);
    m((std::string("__r") + name + "__").c_str(), "self, x", rfn);
  };
  dunder("add", binary_dunder<PyOp::Add>, rbinary_dunder<PyOp::Add>);
  dunder("sub", binary_dunder<PyOp::Sub>, rbinary_dunder<PyOp::Sub>);
  dunder("mul", binary_dunder<PyOp::Mul>, rbinary_dunder<PyOp::Mul>);
  dunder("truediv", binary_dunder<PyOp::Div>, rbinary_dunder<PyOp::Div>);
  dunder("floordiv", binary_dunder<PyOp::FloorDiv>, rbinary_dunder<PyOp::FloorDiv>);
  dunder("mod", binary_dunder<PyOp::Mod>, rbinary_dunder<PyOp::Mod>);
  dunder("pow", binary_dunder<PyOp::Pow>, rbinary_dunder<PyOp::Pow>);
  dunder("matmul", binary_dunder<PyOp::MatMul>, rbinary_dunder<PyOp::MatMul>);
  dunder("lshift", binary_dunder<PyOp::LShift>, rbinary_dunder<PyOp::LShift>);
  dunder("rshift", binary_dunder<PyOp::RShift>, rbinary_dunder<PyOp::RShift>);
  dunder("and", binary_dunder<PyOp::BitAnd>, rbinary_dunder<PyOp::BitAnd>);
  dunder("or", binary_dunder<PyOp::BitOr>, rbinary_dunder<PyOp::BitOr>);
  dunder("xor", binary_dunder<PyOp::BitXor>, rbinary_dunder<PyOp::BitXor>);
  // A tensor's values exist only when tg-run runs the program: tracing computes nothing.
  for (const char* name : {"numpy", "item", "tolist", "data"})
    m(
        name, "self", +[](Interp&, Args&) -> Value {
          raise("RuntimeError",
                "a tensor's values are not known while tracing (tg-trace computes nothing): "
                "output(name, tensor) it and read what tg-run prints or writes with --out-dir");
        });
  m(
      "linear", "self, weight, bias=None", +[](Interp&, Args& a) {
        return T(self(a).linear(to_tensor(a[1], "weight"), opt_tensor(a[2], "bias")));
      });
  m(
      "sequential", "self, ll", +[](Interp& in, Args& a) {
        Value x = a[0];
        for (const Value& f : in.iterate(a[1])) {
          CallArgs args;
          args.pos.push_back(x);
          x = in.call(f, args);
        }
        return x;
      });
  m(
      "layernorm", "self, axis=-1, eps=1e-05",
      +[](Interp&, Args& a) { return T(self(a).layernorm(to_axis(a[1]), to_double(a[2], "eps"))); });
  m(
      "batchnorm", "self, weight, bias, mean, invstd, axis=1", +[](Interp&, Args& a) {
        Shape axis = argfix_all(Value::tuple({a[5]}));
        return T(self(a).batchnorm(opt_tensor(a[1], "weight"), opt_tensor(a[2], "bias"),
                                   to_tensor(a[3], "mean"), to_tensor(a[4], "invstd"),
                                   std::vector<int>(axis.begin(), axis.end())));
      });
  m(
      "dropout", "self, p=0.5", +[](Interp&, Args& a) { return T(self(a).dropout(to_double(a[1], "p"))); });
  m(
      "one_hot", "self, num_classes", +[](Interp&, Args& a) { return T(self(a).one_hot(to_index(a[1]))); });
  m(
      "scaled_dot_product_attention", "self, key, value, attn_mask=None, dropout_p=0.0, is_causal=False",
      +[](Interp&, Args& a) {
        return T(self(a).scaled_dot_product_attention(to_tensor(a[1], "key"), to_tensor(a[2], "value"),
                                                      opt_tensor(a[3], "attn_mask"),
                                                      to_double(a[4], "dropout_p"), truthy(a[5])));
      });
  m(
      "binary_crossentropy", "self, y",
      +[](Interp&, Args& a) { return T(self(a).binary_crossentropy(to_tensor(a[1], "y"))); });
  m(
      "binary_crossentropy_logits", "self, y",
      +[](Interp&, Args& a) { return T(self(a).binary_crossentropy_logits(to_tensor(a[1], "y"))); });
  m(
      "sparse_categorical_crossentropy", "self, Y, ignore_index=-1, label_smoothing=0.0",
      +[](Interp&, Args& a) {
        return T(self(a).sparse_categorical_crossentropy(to_tensor(a[1], "Y"), to_index(a[2]),
                                                         to_double(a[3], "label_smoothing")));
      });
  m(
      "avg_pool2d", "self, kernel_size=None, stride=None, dilation=1", +[](Interp&, Args& a) {
        return T(self(a).avg_pool2d(kernel_size(a[1]), opt_int_or_tuple(a[2]), int_or_tuple(a[3])));
      });
  m(
      "max_pool2d", "self, kernel_size=None, stride=None, dilation=1", +[](Interp&, Args& a) {
        return T(self(a).max_pool2d(kernel_size(a[1]), opt_int_or_tuple(a[2]), int_or_tuple(a[3])));
      });
  m(
      "conv2d", "self, weight, bias=None, groups=1, stride=1, dilation=1, padding=0, acc_dtype=None",
      +[](Interp&, Args& a) {
        return T(self(a).conv2d(to_tensor(a[1], "weight"), opt_tensor(a[2], "bias"), to_index(a[3]),
                                int_or_tuple(a[4]), int_or_tuple(a[5]), int_or_tuple(a[6]), to_dtype(a[7])));
      });
  m(
      "conv_transpose2d",
      "self, weight, bias=None, groups=1, stride=1, dilation=1, padding=0, output_padding=0",
      +[](Interp&, Args& a) {
        return T(self(a).conv_transpose2d(to_tensor(a[1], "weight"), opt_tensor(a[2], "bias"), to_index(a[3]),
                                          int_or_tuple(a[4]), int_or_tuple(a[5]), int_or_tuple(a[6]),
                                          int_or_tuple(a[7])));
      });
  m(
      "multinomial", "self, num_samples=1, replacement=False",
      +[](Interp&, Args& a) { return T(self(a).multinomial(to_index(a[1]), truthy(a[2]))); });
}

void register_methods(Registry& r) {
  const VKind K = VKind::Tensor;
  auto m = [&](const char* name, const char* spec, NativeFn fn) { r.method(K, name, spec, fn, "Tensor"); };
  for (auto& n : kNullary) m(n.name, "self", n.fn);

  // movement
  m(
      "reshape", "self, shape, *args",
      +[](Interp&, Args& a) { return T(self(a).reshape(argfix(a[1], a[2]))); });
  m(
      "view", "self, *shape", +[](Interp&, Args& a) {
        check_view_args(a[1]);
        return T(self(a).view(argfix_all(a[1])));
      });
  m(
      "expand", "self, shape, *args",
      +[](Interp&, Args& a) { return T(self(a).expand(argfix(a[1], a[2]))); });
  m(
      "permute", "self, order, *args", +[](Interp&, Args& a) {
        Shape s = argfix(a[1], a[2]);
        return T(self(a).permute(std::vector<int>(s.begin(), s.end())));
      });
  m(
      "flip", "self, axis, *args", +[](Interp&, Args& a) {
        Shape s = argfix(a[1], a[2]);
        return T(self(a).flip(std::vector<int>(s.begin(), s.end())));
      });
  m(
      "shrink", "self, arg",
      +[](Interp&, Args& a) { return T(self(a).shrink_symbolic(symbolic_padding(a[1]))); });
  m(
      "pad", "self, arg, value=0.0",
      +[](Interp&, Args& a) { return T(self(a).pad_symbolic(symbolic_padding(a[1]), to_scalar(a[2]))); });
  m(
      "transpose", "self, dim0=1, dim1=0",
      +[](Interp&, Args& a) { return T(self(a).transpose(to_int(a[1]), to_int(a[2]))); });
  m(
      "flatten", "self, start_dim=0, end_dim=-1",
      +[](Interp&, Args& a) { return T(self(a).flatten(to_int(a[1]), to_int(a[2]))); });
  m(
      "unflatten", "self, dim, sizes",
      +[](Interp&, Args& a) { return T(self(a).unflatten(to_int(a[1]), to_shape(a[2]))); });
  m(
      "squeeze", "self, dim=None", +[](Interp&, Args& a) { return T(self(a).squeeze(opt_int(a[1]))); });
  m("unsqueeze", "self, dim", int_arg<&Tensor::unsqueeze>);
  m(
      "cat", "self, *args, dim=0",
      +[](Interp&, Args& a) { return T(self(a).cat(tensors(a[1]), to_int(a[2]))); });
  m(
      "stack", "self, *args, dim=0",
      +[](Interp&, Args& a) { return T(self(a).stack(tensors(a[1]), to_int(a[2]))); });
  m(
      "repeat", "self, repeats, *args",
      +[](Interp&, Args& a) { return T(self(a).repeat(argfix(a[1], a[2]))); });
  m(
      "split", "self, sizes, dim=0", +[](Interp&, Args& a) {
        if (a[1].is_intlike()) return tensor_list(self(a).split(a[1].as_int(), to_int(a[2])), true);
        return tensor_list(self(a).split(shape_ints(to_shape(a[1])), to_int(a[2])), true);
      });
  m(
      "chunk", "self, chunks, dim=0",
      +[](Interp&, Args& a) { return tensor_list(self(a).chunk(to_index(a[1]), to_int(a[2])), false); });
  m(
      "pad2d", "self, padding, value=0.0",
      +[](Interp&, Args& a) { return T(self(a).pad2d(shape_ints(to_shape(a[1])), to_scalar(a[2]))); });
  m(
      "gather", "self, dim, index",
      +[](Interp&, Args& a) { return T(self(a).gather(to_int(a[1]), to_tensor(a[2], "index"))); });
  m(
      "__getitem__", "self, indices", +[](Interp& in, Args& a) { return in.subscript(a[0], a[1]); });

  // reductions
  m(
      "sum", "self, axis=None, keepdim=False, acc_dtype=None", +[](Interp&, Args& a) {
        check_scalar_axis(self(a), a[1]);
        return T(self(a).sum(to_axis(a[1]), truthy(a[2]), to_dtype(a[3])));
      });
  m("max", "self, axis=None, keepdim=False", reduce<&Tensor::max>);
  m("min", "self, axis=None, keepdim=False", reduce<&Tensor::min>);
  m("mean", "self, axis=None, keepdim=False", reduce<&Tensor::mean>);
  m(
      "logsumexp", "self, axis=None, keepdim=False", +[](Interp&, Args& a) {
        // tinygrad ends with m.squeeze(axis): a tuple axis is a TypeError there, after the max
        if (a[1].is_seq()) {
          (void)self(a).max(to_axis(a[1]), true);
          raise("TypeError", "'<=' not supported between instances of 'int' and '" + type_name(a[1]) + "'");
        }
        return T(self(a).logsumexp(to_axis(a[1]), truthy(a[2])));
      });
  m("var", "self, axis=None, keepdim=False, correction=1", reduce_corr<&Tensor::var>);
  m("std", "self, axis=None, keepdim=False, correction=1", reduce_corr<&Tensor::std>);
  m(
      "softmax", "self, axis=-1", +[](Interp&, Args& a) {
        SoftmaxParts p = softmax_parts(self(a), a[1]);
        return T(p.e.div(p.ss));
      });
  m(
      "log_softmax", "self, axis=-1", +[](Interp&, Args& a) {
        SoftmaxParts p = softmax_parts(self(a), a[1]);
        return T(p.m.sub(p.ss.log()));
      });
  m("argmax", "self, axis=None, keepdim=False", arg_reduce<&Tensor::argmax>);
  m("argmin", "self, axis=None, keepdim=False", arg_reduce<&Tensor::argmin>);
  m("cumsum", "self, axis=0", int_arg<&Tensor::cumsum>);
  m("triu", "self, diagonal=0", int64_arg<&Tensor::triu>);
  m("tril", "self, diagonal=0", int64_arg<&Tensor::tril>);
  m(
      "matmul", "self, x, reverse=False, acc_dtype=None", +[](Interp&, Args& a) {
        return T(self(a).matmul(to_tensor(a[1], "x"), truthy(a[2]), to_dtype(a[3])));
      });
  m(
      "dot", "self, w, acc_dtype=None",
      +[](Interp&, Args& a) { return T(self(a).dot(to_tensor(a[1], "w"), to_dtype(a[2]))); });

  // activations with parameters
  m("elu", "self, alpha=1.0", double_arg<&Tensor::elu>);
  m("celu", "self, alpha=1.0", double_arg<&Tensor::celu>);
  m(
      "leakyrelu", "self, neg_slope=0.01", +[](Interp&, Args& a) {
        // relu() - (-neg_slope*self).relu(): an int slope keeps an int tensor int
        const Tensor& x = self(a);
        return T(x.relu().sub(x.mul(py_neg(a[1]), true).relu()));
      });
  m("softplus", "self, beta=1", double_arg<&Tensor::softplus>);
  m(
      "hardtanh", "self, min_val=-1, max_val=1", +[](Interp&, Args& a) {
        // clip(min_val, max_val) with the bounds as given: the int defaults keep an int tensor int
        return T(self(a).clip(to_operand(a[1]), to_operand(a[2])));
      });

  // binary / ternary
  m("add", "self, x, reverse=False", binary_rev<&Tensor::add>);
  m("sub", "self, x, reverse=False", binary_rev<&Tensor::sub>);
  m("mul", "self, x, reverse=False", binary_rev<&Tensor::mul>);
  m("pow", "self, x, reverse=False", binary_rev<&Tensor::pow>);
  m("xor", "self, x, reverse=False", binary_rev<&Tensor::xor_>);
  m(
      "div", "self, x, reverse=False, upcast=True",
      +[](Interp&, Args& a) { return T(self(a).div(to_operand(a[1]), truthy(a[2]), truthy(a[3]))); });
  m("lshift", "self, x", int64_arg<&Tensor::lshift>);
  m("rshift", "self, x", int64_arg<&Tensor::rshift>);
  m("maximum", "self, x", binary<&Tensor::maximum>);
  m("minimum", "self, x", binary<&Tensor::minimum>);
  m("__lt__", "self, x", binary<&Tensor::lt>);
  m("__gt__", "self, x", binary<&Tensor::gt>);
  m("__le__", "self, x", binary<&Tensor::le>);
  m("__ge__", "self, x", binary<&Tensor::ge>);
  m("__eq__", "self, x", binary<&Tensor::eq>);
  m("__ne__", "self, x", binary<&Tensor::ne>);
  m(
      "where", "self, x, y",
      +[](Interp&, Args& a) { return T(self(a).where(to_operand(a[1]), to_operand(a[2]))); });
  m(
      "masked_fill", "self, mask, value",
      +[](Interp&, Args& a) { return T(self(a).masked_fill(to_tensor(a[1], "mask"), to_operand(a[2]))); });
  m(
      "lerp", "self, end, weight",
      +[](Interp&, Args& a) { return T(self(a).lerp(to_tensor(a[1], "end"), to_operand(a[2]))); });
  m(
      "clip", "self, min_, max_",
      +[](Interp&, Args& a) { return T(self(a).clip(to_operand(a[1]), to_operand(a[2]))); });

  // dtype
  m("cast", "self, dtype", dtype_arg<&Tensor::cast>);
  m("bitcast", "self, dtype", dtype_arg<&Tensor::bitcast>);

  // creation from an existing tensor
  m(
      "full_like", "self, fill_value, dtype=None, requires_grad=None, device=None", +[](Interp&, Args& a) {
        return T(self(a).full_like(to_scalar(a[1]), to_dtype(a[2]), opt_bool(a[3])));
      });
  m(
      "zeros_like", "self, dtype=None, requires_grad=None, device=None",
      +[](Interp&, Args& a) { return T(self(a).zeros_like(to_dtype(a[1]), opt_bool(a[2]))); });
  m(
      "ones_like", "self, dtype=None, requires_grad=None, device=None",
      +[](Interp&, Args& a) { return T(self(a).ones_like(to_dtype(a[1]), opt_bool(a[2]))); });

  // sizes
  m(
      "numel", "self", +[](Interp&, Args& a) { return Value::integer(self(a).numel()); });
  m(
      "element_size", "self", +[](Interp&, Args& a) { return Value::integer(self(a).element_size()); });
  m(
      "nbytes", "self", +[](Interp&, Args& a) { return Value::integer(self(a).nbytes()); });
  m(
      "is_floating_point", "self",
      +[](Interp&, Args& a) { return Value::boolean(self(a).is_floating_point()); });
  m(
      "size", "self, dim=None", +[](Interp& in, Args& a) {
        Value shape = in.get_attr(a[0], intern("shape"));
        return a[1].is_none() ? shape : in.subscript(shape, a[1]);
      });

  // state: realize() makes a tensor a buffer of the program that outlives a run
  m(
      "realize", "self, *lst, do_update_stats=True", +[](Interp&, Args& a) {
        std::vector<Tensor> all{self(a)};
        for (const Value& v : a[1].items()) {
          if (v.kind != VKind::Tensor)
            raise("AttributeError", "'" + type_name(v) + "' object has no attribute 'lazydata'");
          all.push_back(v.t());
        }
        Tensor::realize_draws(all);                // one schedule in tinygrad
        for (Tensor& t : all) Tensor(t).realize(); // copies of the handles: the same tensors
        return a[0];
      });
  m(
      "assign", "self, x", +[](Interp&, Args& a) {
        Tensor(self(a)).assign(to_operand(a[1]));
        return a[0];
      });
  m(
      "replace", "self, x", +[](Interp&, Args& a) {
        if (a[1].kind != VKind::Tensor)
          raise("AttributeError", "'" + type_name(a[1]) + "' object has no attribute 'requires_grad'");
        Tensor(self(a)).replace(a[1].t());
        return a[0];
      });

  // devices: device_bindings.cpp
  m(
      "clang", "self", +[](Interp&, Args& a) { return a[0]; });

  // autograd
  m(
      "backward", "self", +[](Interp&, Args& a) {
        Tensor t = self(a);
        t.backward();
        return a[0];
      });

  auto p = [&](const char* name, Getter g) { r.properties[int(K)][intern(name)] = g; };
  p(
      "shape", +[](Interp&, const Value& v) {
        std::vector<Value> dims;
        for (const sint& d : v.t().shape()) dims.push_back(Value::symbol(d));
        return Value::tuple(std::move(dims));
      });
  p(
      "dtype", +[](Interp&, const Value& v) { return Value::dtype(v.t().dtype()); });
  p(
      "ndim", +[](Interp&, const Value& v) { return Value::integer(v.t().ndim()); });
  p(
      "T", +[](Interp&, const Value& v) { return T(v.t().T()); });
  p(
      "requires_grad", +[](Interp&, const Value& v) {
        auto rg = v.t().requires_grad();
        return rg ? Value::boolean(*rg) : Value();
      });
  p(
      "grad", +[](Interp&, const Value& v) {
        auto g = v.t().grad();
        return g ? T(*g) : Value();
      });
}

// Tensor.train(mode) and Tensor.inference_mode(mode), tinygrad's context managers: __enter__
// saves Tensor.training / Tensor.no_grad as the instance's `prev` and sets it to its `mode`,
// __exit__ restores `prev`. Both return None.
struct FlagContext : ModuleObj {
  Sym flag = -1; // training or no_grad
};

std::unordered_map<Sym, const Builtin*>& context_methods() {
  static std::unordered_map<Sym, const Builtin*> table;
  return table;
}

FlagContext& context_of(const Value& v) {
  auto* c = v.kind == VKind::Module ? dynamic_cast<FlagContext*>(&v.as<ModuleObj>()) : nullptr;
  if (!c) raise("TypeError", "'" + type_name(v) + "' object is not a context manager");
  return *c;
}

Value attr_of(const ModuleObj& m, const char* name) {
  auto it = m.attrs.find(intern(name));
  if (it == m.attrs.end()) raise("AttributeError", "'" + m.name + "' object has no attribute '" + name + "'");
  return it->second;
}

Value make_context(const char* type, const char* flag, const Value& mode) {
  auto c = std::make_shared<FlagContext>();
  c->name = type;
  c->instance = true;
  c->methods = &context_methods();
  c->flag = intern(flag);
  c->set_attr(intern("mode"), mode);
  return Value::of(VKind::Module, c);
}

void register_contexts(Registry& r, ModuleObj& cls) {
  auto ctor = [&](const char* name, NativeFn fn) {
    r.attribute(cls, name, std::string("Tensor.") + name + ".__init__", "mode=True", fn);
  };
  ctor(
      "train", +[](Interp&, Args& a) { return make_context("train", "training", a[0]); });
  ctor(
      "inference_mode", +[](Interp&, Args& a) { return make_context("inference_mode", "no_grad", a[0]); });
  auto method = [&](const char* name, const char* spec, NativeFn fn) {
    context_methods()[intern(name)] =
        r.add(std::string("Tensor.train.") + name, spec, fn, /*is_method=*/true);
  };
  method(
      "__enter__", "self", +[](Interp& in, Args& a) {
        FlagContext& c = context_of(a[0]);
        Value cls = registry().globals.at(intern("Tensor"));
        c.set_attr(intern("prev"), in.get_attr(cls, c.flag));
        set_tensor_flag(cls.as<ModuleObj>(), c.flag, attr_of(c, "mode"));
        return Value();
      });
  method(
      "__exit__", "self, exc_type, exc_value, traceback", +[](Interp&, Args& a) {
        FlagContext& c = context_of(a[0]);
        Value cls = registry().globals.at(intern("Tensor"));
        set_tensor_flag(cls.as<ModuleObj>(), c.flag, attr_of(c, "prev"));
        return Value();
      });
}

void register_statics(Registry& r, ModuleObj& cls) {
  auto s = [&](const char* name, const char* spec, NativeFn fn, const char* qualname = nullptr) {
    r.attribute(cls, name, qualname ? qualname : std::string("Tensor.") + name, spec, fn);
    static const std::set<std::string> draws{"rand",           "randn",           "randint",
                                             "normal",         "uniform",         "scaled_uniform",
                                             "glorot_uniform", "kaiming_uniform", "kaiming_normal"};
    if (draws.count(name)) r.owned.back()->draws = true;
  };
  const char* kInit = "Tensor.__init__"; // where tinygrad reports a bad **kwargs entry
  s("empty", "*shape, dtype=None, requires_grad=None, device=None", shaped<&Tensor::empty>, kInit);
  s("zeros", "*shape, dtype=None, requires_grad=None, device=None", filled<&Tensor::zeros>, kInit);
  s("ones", "*shape, dtype=None, requires_grad=None, device=None", filled<&Tensor::ones>, kInit);
  s(
      "rand", "*shape, device=None, dtype=None, requires_grad=None",
      +[](Interp&, Args& a) { return with_grad(Tensor::rand(argfix_all(a[0]), to_dtype(a[2])), a[3]); },
      kInit);
  s("randn", "*shape, dtype=None, requires_grad=None, device=None", shaped<&Tensor::randn>, kInit);
  s(
      "randint", "*shape, low=0, high=10, dtype=None, requires_grad=None, device=None",
      +[](Interp&, Args& a) {
        Shape shape = argfix_all(a[0]);
        if (!a[1].is_intlike() || !a[2].is_intlike())
          raise("TypeError", "low=" + repr(a[1]) + " and high=" + repr(a[2]) + " must be integers");
        auto dt = to_dtype(a[3]);
        Tensor t = dt ? Tensor::randint(shape, to_index(a[1]), to_index(a[2]), *dt)
                      : Tensor::randint(shape, to_index(a[1]), to_index(a[2]));
        return with_grad(t, a[4]);
      },
      kInit);
  s("scaled_uniform", "*shape, dtype=None, requires_grad=None, device=None", shaped<&Tensor::scaled_uniform>,
    kInit);
  s("glorot_uniform", "*shape, dtype=None, requires_grad=None, device=None", shaped<&Tensor::glorot_uniform>,
    kInit);
  s(
      "kaiming_uniform", "*shape, a=0.01, dtype=None, requires_grad=None, device=None",
      +[](Interp&, Args& a) {
        return with_grad(Tensor::kaiming_uniform(argfix_all(a[0]), to_double(a[1], "a"), to_dtype(a[2])),
                         a[3]);
      },
      kInit);
  s(
      "kaiming_normal", "*shape, a=0.01, dtype=None, requires_grad=None, device=None",
      +[](Interp&, Args& a) {
        return with_grad(Tensor::kaiming_normal(argfix_all(a[0]), to_double(a[1], "a"), to_dtype(a[2])),
                         a[3]);
      },
      kInit);
  s(
      "normal", "*shape, mean=0.0, std=1.0, dtype=None, requires_grad=None, device=None",
      +[](Interp&, Args& a) {
        return with_grad(
            Tensor::normal(argfix_all(a[0]), to_double(a[1], "mean"), to_double(a[2], "std"), to_dtype(a[3])),
            a[4]);
      },
      kInit);
  s(
      "uniform", "*shape, low=0.0, high=1.0, dtype=None, requires_grad=None, device=None",
      +[](Interp&, Args& a) {
        // ((high-low) * Tensor.rand(*shape)).cast(dtype) + low, with high-low and low the Python
        // numbers: int bounds keep an int dtype int
        (void)to_double(a[1], "low");
        Scalar range = py_sub(a[2], a[1], "high", "low");
        Tensor t = Tensor::rand(argfix_all(a[0]))
                       .mul(Operand(range), true)
                       .cast(to_dtype(a[3]).value_or(kDefaultFloat))
                       .add(Operand(to_scalar(a[1])));
        return with_grad(t, a[4]);
      },
      kInit);
  s(
      "from_node", "y, dtype=None, device=None", +[](Interp&, Args& a) {
        if (a[0].kind == VKind::Symbol)
          return T(Tensor::from_node(sint(a[0].as<SymObj>().e), to_dtype(a[1])));
        if (a[0].is_intlike()) return T(Tensor::from_node(sint(a[0].as_int()), to_dtype(a[1])));
        raise("RuntimeError", "unhandled Node " + repr(a[0]));
      });
  s(
      "full", "shape, fill_value, dtype=None, requires_grad=None, device=None", +[](Interp&, Args& a) {
        Value shape = a[0].is_seq() ? a[0] : Value::tuple({a[0]});
        return T(
            Tensor::full(argfix_all(Value::tuple({shape})), to_scalar(a[1]), to_dtype(a[2]), opt_bool(a[3])));
      });
  s(
      "arange", "start, stop=None, step=1, dtype=None, requires_grad=None, device=None",
      +[](Interp&, Args& a) {
        std::optional<Scalar> stop;
        if (!a[1].is_none()) stop = to_scalar(a[1]);
        return with_grad(Tensor::arange(to_scalar(a[0]), stop, to_scalar(a[2]), to_dtype(a[3])), a[4]);
      });
  s(
      "eye", "dim, dtype=None, requires_grad=None, device=None",
      +[](Interp&, Args& a) { return with_grad(Tensor::eye(to_index(a[0]), to_dtype(a[1])), a[2]); });
  s(
      "manual_seed", "seed=0", +[](Interp&, Args& a) {
        Tensor::manual_seed(to_index(a[0]));
        return Value();
      });
  s(
      "einsum", "formula, *raw_xs, acc_dtype=None", +[](Interp&, Args& a) {
        if (a[0].kind != VKind::Str)
          raise("AttributeError", "'" + type_name(a[0]) + "' object has no attribute 'replace'");
        const auto& raw = a[1].items();
        Value xs = raw.size() == 1 && raw[0].is_seq() ? raw[0] : a[1];
        return T(Tensor::einsum(a[0].s(), tensors(xs), to_dtype(a[2])));
      });
  cls.attrs[intern("training")] = Value::boolean(Tensor::training);
  cls.attrs[intern("no_grad")] = Value::boolean(no_grad());
  register_contexts(r, cls);
  // Instance methods are reachable unbound too: Tensor.relu(x), Tensor.cat(a, b, dim=1).
  for (auto& [sym, b] : r.methods[int(VKind::Tensor)])
    cls.attrs[sym] =
        Value::of(VKind::Builtin, std::shared_ptr<Object>(r.owned.front(), const_cast<Builtin*>(b)));
}

void register_dtypes(Registry& r) {
  auto mod = std::make_shared<ModuleObj>();
  mod->name = "dtypes";
  for (int k = 0; k < kNumDTypes; ++k) mod->attrs[intern(py_name(DType(k)))] = Value::dtype(DType(k));
  for (const char* alias :
       {"half", "float", "double", "uchar", "ushort", "uint", "ulong", "char", "short", "int", "long"})
    mod->attrs[intern(alias)] = Value::dtype(*dtype_from_name(alias));
  mod->attrs[intern("default_float")] = Value::dtype(kDefaultFloat);
  mod->attrs[intern("default_int")] = Value::dtype(kDefaultInt);
  auto f = [&](const char* name, const char* spec, NativeFn fn) {
    r.attribute(*mod, name, std::string("dtypes.") + name, spec, fn);
  };
  auto dt = [](const Value& v) {
    if (v.kind != VKind::DType)
      raise("AttributeError", "'" + type_name(v) + "' object has no attribute 'scalar'");
    return v.dt;
  };
  (void)dt;
  f(
      "is_float", "x", +[](Interp&, Args& a) {
        if (a[0].kind != VKind::DType)
          raise("AttributeError", "'" + type_name(a[0]) + "' object has no attribute 'scalar'");
        return Value::boolean(is_float(a[0].dt));
      });
  f(
      "is_int", "x", +[](Interp&, Args& a) {
        if (a[0].kind != VKind::DType)
          raise("AttributeError", "'" + type_name(a[0]) + "' object has no attribute 'scalar'");
        return Value::boolean(is_int(a[0].dt));
      });
  f(
      "is_unsigned", "x", +[](Interp&, Args& a) {
        if (a[0].kind != VKind::DType)
          raise("AttributeError", "'" + type_name(a[0]) + "' object has no attribute 'scalar'");
        return Value::boolean(is_unsigned(a[0].dt));
      });
  f(
      "from_py", "x", +[](Interp&, Args& a) {
        if (a[0].is_seq()) {
          if (a[0].items().empty()) return Value::dtype(kDefaultFloat);
          DType best = DType::Bool;
          for (auto& v : a[0].items()) best = std::max(best, dtype_of(to_scalar(v)));
          return Value::dtype(best);
        }
        if (!a[0].is_number())
          raise("RuntimeError",
                "Could not infer dtype of " + repr(a[0]) + " with type <class '" + type_name(a[0]) + "'>");
        return Value::dtype(dtype_of(to_scalar(a[0])));
      });
  f(
      "least_upper_dtype", "*ds", +[](Interp&, Args& a) {
        const auto& ds = a[0].items();
        if (ds.empty()) raise("ValueError", "least_upper_dtype() needs at least one dtype");
        DType r = *to_dtype(ds[0]);
        for (auto& d : ds) r = least_upper_dtype(r, *to_dtype(d));
        return Value::dtype(r);
      });
  r.globals[intern("dtypes")] = Value::of(VKind::Module, mod);

  auto p = [&](const char* name, Getter g) { r.properties[int(VKind::DType)][intern(name)] = g; };
  p(
      "itemsize", +[](Interp&, const Value& v) { return Value::integer(itemsize(v.dt)); });
  p(
      "name", +[](Interp&, const Value& v) { return Value::str(std::string(c_name(v.dt))); });
  p(
      "priority", +[](Interp&, const Value& v) { return Value::integer(int(v.dt)); });
}

} // namespace

// Tensor.training and Tensor.no_grad are the C++ flags; the class attribute keeps the value a
// script assigned (Tensor.training = 1 reads back 1) while its truth agrees with the flag.
bool tensor_flag(const ModuleObj& cls, Sym name, Value* out) {
  static const Sym kTraining = intern("training"), kNoGrad = intern("no_grad");
  if ((name != kTraining && name != kNoGrad) || cls.instance || cls.name != "Tensor") return false;
  bool* flag = name == kTraining ? &Tensor::training : &no_grad();
  if (out) {
    auto it = cls.attrs.find(name);
    *out = it != cls.attrs.end() && truthy(it->second) == *flag ? it->second : Value::boolean(*flag);
  }
  return true;
}

void set_tensor_flag(ModuleObj& cls, Sym name, const Value& v) {
  if (name == intern("training"))
    Tensor::training = truthy(v); // read by dropout and the optimizers
  else if (name == intern("no_grad"))
    no_grad() = truthy(v); // Functions record no autograd context
  else
    return;
  cls.attrs[name] = v;
}

void register_tensor(Registry& r) {
  register_methods(r);
  register_nn_methods(r);
  auto cls = std::make_shared<ModuleObj>();
  cls->name = "Tensor";
  register_statics(r, *cls);
  cls->ctor = r.add(
      "Tensor.__init__", "data, device=None, dtype=None, requires_grad=None",
      +[](Interp&, Args& a) { return tensor_from_data(a[0], to_dtype(a[2]), opt_bool(a[3])); });
  r.globals[intern("Tensor")] = Value::of(VKind::Module, cls);
  register_dtypes(r);
  register_nn(r);
}

} // namespace tg::script
