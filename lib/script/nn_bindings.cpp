// tinygrad.nn 0.9.1's layers as the script sees them: `nn.Linear(4, 8)` makes an object whose
// attributes (weight, bias, running_mean, eps, ...) are readable and assignable like Python's,
// and calling it runs the lib/nn layer built from those attributes. The attributes are each
// layer's `fields` list (nn/layers.h); this file only converts them and maps __init__'s
// arguments to the C++ constructor.
#include <algorithm>

#include "nn/layers.h"
#include "script/interp.h"

namespace tg::script {
namespace {

using Args = std::vector<Value>;

Value T(const Tensor& t) { return Value::tensor(t); }
Value opt_T(const std::optional<Tensor>& t) { return t ? T(*t) : Value::none(); }
Value ints(const std::vector<int64_t>& v) {
  std::vector<Value> items;
  for (int64_t x : v) items.push_back(Value::integer(x));
  return Value::tuple(std::move(items));
}
Value ints(const std::vector<int>& v) { return ints(std::vector<int64_t>(v.begin(), v.end())); }

// An int or a tuple/list of ints, kept as given (the layer stores it unchanged).
IntOrTuple int_or_tuple(const Value& v) {
  if (v.is_seq()) {
    std::vector<int64_t> r;
    for (auto& x : v.items()) r.push_back(to_index(x));
    return IntOrTuple(std::move(r));
  }
  return IntOrTuple(to_index(v));
}

std::shared_ptr<ModuleObj> instance(const char* name, Value (*call)(Interp&, const Value&, CallArgs&)) {
  auto m = std::make_shared<ModuleObj>();
  m->name = name;
  m->instance = true;
  m->call_self = call;
  return m;
}
void set(ModuleObj& m, const char* name, Value v) { m.set_attr(intern(name), std::move(v)); }
const Value& get(const ModuleObj& m, const char* name) {
  auto it = m.attrs.find(intern(name));
  if (it == m.attrs.end()) raise("AttributeError", "'" + m.name + "' object has no attribute '" + name + "'");
  return it->second;
}
// A layer attribute as the script sees it, and back (the field types nn::*::fields lists).
Value to_value(const Tensor& t) { return T(t); }
Value to_value(const std::optional<Tensor>& t) { return opt_T(t); }
Value to_value(const IntOrTuple& v) { return v.is_int ? Value::integer(v.values[0]) : ints(v.values); }
Value to_value(const std::vector<int64_t>& v) { return ints(v); }
Value to_value(const std::vector<int>& v) { return ints(v); }
Value to_value(const Shape& v) { return ints(shape_ints(v)); }
Value to_value(int64_t v) { return Value::integer(v); }
Value to_value(double v) { return Value::floating(v); }
Value to_value(bool v) { return Value::boolean(v); }

void from_value(const Value& v, const char* name, Tensor& out) { out = to_tensor(v, name); }
void from_value(const Value& v, const char* name, std::optional<Tensor>& out) {
  out = v.is_none() ? std::nullopt : std::optional<Tensor>(to_tensor(v, name));
}
void from_value(const Value& v, const char*, IntOrTuple& out) { out = int_or_tuple(v); }
void from_value(const Value& v, const char*, std::vector<int64_t>& out) { out = shape_ints(to_shape(v)); }
void from_value(const Value& v, const char*, std::vector<int>& out) { out = to_ints(v); }
void from_value(const Value& v, const char*, Shape& out) { out = to_shape(v); }
void from_value(const Value& v, const char*, int64_t& out) { out = to_index(v); }
void from_value(const Value& v, const char* name, double& out) { out = to_double(v, name); }
void from_value(const Value& v, const char*, bool& out) { out = truthy(v); }

// __call__(self, x): the layer rebuilt from the object's attributes (which the script may have
// reassigned), then called. Embedding's argument is named idx, as tinygrad's.
template <class L> Value call_layer(Interp&, const Value& self, CallArgs& args) {
  auto& m = self.as<ModuleObj>();
  static const ParamSpec spec = ParamSpec::parse(std::is_same_v<L, nn::Embedding> ? "idx" : "x");
  std::vector<Value> bound;
  bind_arguments(m.name + ".__call__", spec, args, bound);
  L layer;
  L::fields(layer, [&](const char* name, auto& member) { from_value(get(m, name), name, member); });
  return T(layer(to_tensor(bound[0], std::is_same_v<L, nn::Embedding> ? "idx" : "x")));
}

// A new layer object: its attributes are the constructed layer's fields, except that a scalar
// or int-or-tuple field named like an __init__ parameter keeps the value as given (tinygrad
// stores `stride=[1, 2]` as that list and `eps=1` as that int; kernel_size it makes a tuple).
template <class L>
Value layer_object(const char* name, const L& layer, const char* init_spec, const Args& given) {
  auto m = instance(name, call_layer<L>);
  ParamSpec spec = ParamSpec::parse(init_spec);
  L::fields(layer, [&](const char* field, const auto& member) {
    using F = std::decay_t<decltype(member)>;
    constexpr bool as_given = std::is_same_v<F, IntOrTuple> || std::is_arithmetic_v<F>;
    auto at = std::find(spec.names.begin(), spec.names.end(), intern(field));
    set(*m, field,
        as_given && at != spec.names.end() ? given[size_t(at - spec.names.begin())] : to_value(member));
  });
  return Value::of(VKind::Module, m);
}

const char* const kConv =
    "in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True";
const char* const kConvT = "in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, "
                           "dilation=1, groups=1, bias=True";
const char* const kLinear = "in_features, out_features, bias=True";
const char* const kBatchNorm = "sz, eps=1e-05, affine=True, track_running_stats=True, momentum=0.1";
const char* const kLayerNorm = "normalized_shape, eps=1e-05, elementwise_affine=True";
const char* const kGroupNorm = "num_groups, num_channels, eps=1e-05, affine=True";
const char* const kInstanceNorm = "num_features, eps=1e-05, affine=True";
const char* const kEmbedding = "vocab_size, embed_size";

// args: in, out, kernel_size, stride, padding, [output_padding,] dilation, groups, bias
Value conv_new(const Args& a, bool transposed, bool one_d) {
  IntOrTuple ks = one_d ? IntOrTuple(std::vector<int64_t>{to_index(a[2])}) : int_or_tuple(a[2]);
  size_t d = transposed ? 6 : 5; // index of dilation
  if (transposed)
    return layer_object("ConvTranspose2d",
                        nn::ConvTranspose2d(to_index(a[0]), to_index(a[1]), ks, int_or_tuple(a[3]),
                                            int_or_tuple(a[4]), int_or_tuple(a[5]), int_or_tuple(a[d]),
                                            to_index(a[d + 1]), truthy(a[d + 2])),
                        kConvT, a);
  return layer_object("Conv2d",
                      nn::Conv2d(to_index(a[0]), to_index(a[1]), ks, int_or_tuple(a[3]), int_or_tuple(a[4]),
                                 int_or_tuple(a[d]), to_index(a[d + 1]), truthy(a[d + 2])),
                      kConv, a);
}

Value layernorm_new(const Args& a, bool two_d) {
  Shape ns = a[0].is_seq() ? to_shape(a[0]) : Shape{to_index(a[0])};
  if (two_d)
    return layer_object("LayerNorm2d", nn::LayerNorm2d(ns, to_double(a[1], "eps"), truthy(a[2])), kLayerNorm,
                        a);
  return layer_object("LayerNorm", nn::LayerNorm(ns, to_double(a[1], "eps"), truthy(a[2])), kLayerNorm, a);
}

} // namespace

void register_nn(Registry& r) {
  ModuleObj& mod = nn_module(r);
  auto add = [&](const char* name, const std::string& qualname, const char* spec, NativeFn fn) {
    r.attribute(mod, name, qualname, spec, fn);
  };
  add(
      "Linear", "Linear.__init__", kLinear, +[](Interp&, Args& a) {
        return layer_object("Linear", nn::Linear(to_index(a[0]), to_index(a[1]), truthy(a[2])), kLinear, a);
      });
  add(
      "Conv2d", "Conv2d.__init__", kConv, +[](Interp&, Args& a) { return conv_new(a, false, false); });
  add(
      "Conv1d", "Conv1d", kConv, +[](Interp&, Args& a) { return conv_new(a, false, true); });
  add(
      "ConvTranspose2d", "ConvTranspose2d.__init__", kConvT,
      +[](Interp&, Args& a) { return conv_new(a, true, false); });
  add(
      "ConvTranspose1d", "ConvTranspose1d", kConvT,
      +[](Interp&, Args& a) { return conv_new(a, true, true); });
  add(
      "BatchNorm2d", "BatchNorm2d.__init__", kBatchNorm, +[](Interp&, Args& a) {
        return layer_object("BatchNorm2d",
                            nn::BatchNorm2d(to_index(a[0]), to_double(a[1], "eps"), truthy(a[2]),
                                            truthy(a[3]), to_double(a[4], "momentum")),
                            kBatchNorm, a);
      });
  add(
      "LayerNorm", "LayerNorm.__init__", kLayerNorm,
      +[](Interp&, Args& a) { return layernorm_new(a, false); });
  add(
      "LayerNorm2d", "LayerNorm2d.__init__", kLayerNorm,
      +[](Interp&, Args& a) { return layernorm_new(a, true); });
  add(
      "GroupNorm", "GroupNorm.__init__", kGroupNorm, +[](Interp&, Args& a) {
        return layer_object(
            "GroupNorm", nn::GroupNorm(to_index(a[0]), to_index(a[1]), to_double(a[2], "eps"), truthy(a[3])),
            kGroupNorm, a);
      });
  add(
      "InstanceNorm", "InstanceNorm.__init__", kInstanceNorm, +[](Interp&, Args& a) {
        return layer_object("InstanceNorm",
                            nn::InstanceNorm(to_index(a[0]), to_double(a[1], "eps"), truthy(a[2])),
                            kInstanceNorm, a);
      });
  add(
      "Embedding", "Embedding.__init__", kEmbedding, +[](Interp&, Args& a) {
        return layer_object("Embedding", nn::Embedding(to_index(a[0]), to_index(a[1])), kEmbedding, a);
      });
}

} // namespace tg::script
