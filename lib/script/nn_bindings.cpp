// tinygrad.nn 0.9.1's layers as the script sees them: `nn.Linear(4, 8)` makes an object whose
// attributes (weight, bias, running_mean, eps, ...) are readable and assignable like Python's,
// and calling it runs the lib/nn layer built from those attributes.
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
Tensor get_t(const ModuleObj& m, const char* name) { return to_tensor(get(m, name), name); }
std::optional<Tensor> get_opt_t(const ModuleObj& m, const char* name) {
  const Value& v = get(m, name);
  if (v.is_none()) return std::nullopt;
  return to_tensor(v, name);
}
int64_t get_i(const ModuleObj& m, const char* name) { return to_index(get(m, name)); }
double get_f(const ModuleObj& m, const char* name) { return to_double(get(m, name), name); }

// Binds __call__(self, x) and returns (layer object, x).
Tensor call_arg(const ModuleObj& m, CallArgs& args) {
  static const ParamSpec spec = ParamSpec::parse("x");
  std::vector<Value> bound;
  bind_arguments(m.name + ".__call__", spec, args, bound);
  return to_tensor(bound[0], "x");
}

// ---- Linear ----
Value linear_call(Interp&, const Value& self, CallArgs& args) {
  auto& m = self.as<ModuleObj>();
  Tensor x = call_arg(m, args);
  nn::Linear l;
  l.weight = get_t(m, "weight");
  l.bias = get_opt_t(m, "bias");
  return T(l(x));
}
Value linear_new(Interp&, Args& a) {
  nn::Linear l(to_index(a[0]), to_index(a[1]), truthy(a[2]));
  auto m = instance("Linear", linear_call);
  set(*m, "weight", T(l.weight));
  set(*m, "bias", opt_T(l.bias));
  return Value::of(VKind::Module, m);
}

// ---- Conv2d / ConvTranspose2d (and the 1d functions) ----
void conv_fields(const ModuleObj& m, nn::Conv2d& c) {
  c.stride = int_or_tuple(get(m, "stride"));
  c.padding = int_or_tuple(get(m, "padding"));
  c.dilation = int_or_tuple(get(m, "dilation"));
  c.groups = get_i(m, "groups");
  c.weight = get_t(m, "weight");
  c.bias = get_opt_t(m, "bias");
}
Value conv_call(Interp&, const Value& self, CallArgs& args) {
  auto& m = self.as<ModuleObj>();
  Tensor x = call_arg(m, args);
  nn::Conv2d c;
  conv_fields(m, c);
  return T(c(x));
}
Value convt_call(Interp&, const Value& self, CallArgs& args) {
  auto& m = self.as<ModuleObj>();
  Tensor x = call_arg(m, args);
  nn::ConvTranspose2d c;
  conv_fields(m, c);
  c.output_padding = int_or_tuple(get(m, "output_padding"));
  return T(c(x));
}
// args: in, out, kernel_size, stride, padding, [output_padding,] dilation, groups, bias
Value conv_new(const Args& a, bool transposed, bool one_d) {
  IntOrTuple ks = one_d ? IntOrTuple(std::vector<int64_t>{to_index(a[2])}) : int_or_tuple(a[2]);
  size_t d = transposed ? 6 : 5; // index of dilation
  auto m = instance(transposed ? "ConvTranspose2d" : "Conv2d", transposed ? convt_call : conv_call);
  const nn::Conv2d* c;
  std::optional<nn::Conv2d> plain;
  std::optional<nn::ConvTranspose2d> tr;
  if (transposed) {
    tr.emplace(to_index(a[0]), to_index(a[1]), ks, int_or_tuple(a[3]), int_or_tuple(a[4]), int_or_tuple(a[5]),
               int_or_tuple(a[d]), to_index(a[d + 1]), truthy(a[d + 2]));
    c = &*tr;
    set(*m, "output_padding", a[5]);
  } else {
    plain.emplace(to_index(a[0]), to_index(a[1]), ks, int_or_tuple(a[3]), int_or_tuple(a[4]),
                  int_or_tuple(a[d]), to_index(a[d + 1]), truthy(a[d + 2]));
    c = &*plain;
  }
  set(*m, "kernel_size", ints(c->kernel_size));
  set(*m, "stride", a[3]);
  set(*m, "padding", a[4]);
  set(*m, "dilation", a[d]);
  set(*m, "groups", a[d + 1]);
  set(*m, "weight", T(c->weight));
  set(*m, "bias", opt_T(c->bias));
  return Value::of(VKind::Module, m);
}

// ---- BatchNorm2d ----
Value batchnorm_call(Interp&, const Value& self, CallArgs& args) {
  auto& m = self.as<ModuleObj>();
  Tensor x = call_arg(m, args);
  nn::BatchNorm2d b;
  b.eps = get_f(m, "eps");
  b.momentum = get_f(m, "momentum");
  b.track_running_stats = truthy(get(m, "track_running_stats"));
  b.weight = get_opt_t(m, "weight");
  b.bias = get_opt_t(m, "bias");
  b.running_mean = get_t(m, "running_mean");
  b.running_var = get_t(m, "running_var");
  b.num_batches_tracked = get_t(m, "num_batches_tracked");
  return T(b(x));
}
Value batchnorm_new(Interp&, Args& a) {
  nn::BatchNorm2d b(to_index(a[0]), to_double(a[1], "eps"), truthy(a[2]), truthy(a[3]),
                    to_double(a[4], "momentum"));
  auto m = instance("BatchNorm2d", batchnorm_call);
  set(*m, "eps", a[1]);
  set(*m, "track_running_stats", a[3]);
  set(*m, "momentum", a[4]);
  set(*m, "weight", opt_T(b.weight));
  set(*m, "bias", opt_T(b.bias));
  set(*m, "running_mean", T(b.running_mean));
  set(*m, "running_var", T(b.running_var));
  set(*m, "num_batches_tracked", T(b.num_batches_tracked));
  return Value::of(VKind::Module, m);
}

// ---- LayerNorm / LayerNorm2d ----
void layernorm_fields(const ModuleObj& m, nn::LayerNorm& l) {
  l.normalized_shape = to_shape(get(m, "normalized_shape"));
  l.axis = to_ints(get(m, "axis"));
  l.eps = get_f(m, "eps");
  l.elementwise_affine = truthy(get(m, "elementwise_affine"));
  l.weight = get_opt_t(m, "weight");
  l.bias = get_opt_t(m, "bias");
}
Value layernorm_call(Interp&, const Value& self, CallArgs& args) {
  auto& m = self.as<ModuleObj>();
  Tensor x = call_arg(m, args);
  nn::LayerNorm l;
  layernorm_fields(m, l);
  return T(l(x));
}
Value layernorm2d_call(Interp&, const Value& self, CallArgs& args) {
  auto& m = self.as<ModuleObj>();
  Tensor x = call_arg(m, args);
  nn::LayerNorm2d l;
  layernorm_fields(m, l);
  return T(l(x));
}
Value layernorm_new(const Args& a, bool two_d) {
  Shape ns = a[0].is_seq() ? to_shape(a[0]) : Shape{to_index(a[0])};
  nn::LayerNorm l(ns, to_double(a[1], "eps"), truthy(a[2]));
  auto m = two_d ? instance("LayerNorm2d", layernorm2d_call) : instance("LayerNorm", layernorm_call);
  set(*m, "normalized_shape", ints(l.normalized_shape));
  set(*m, "axis", ints(l.axis));
  set(*m, "eps", a[1]);
  set(*m, "elementwise_affine", a[2]);
  set(*m, "weight", opt_T(l.weight));
  set(*m, "bias", opt_T(l.bias));
  return Value::of(VKind::Module, m);
}

// ---- GroupNorm / InstanceNorm ----
Value groupnorm_call(Interp&, const Value& self, CallArgs& args) {
  auto& m = self.as<ModuleObj>();
  Tensor x = call_arg(m, args);
  nn::GroupNorm g;
  g.num_groups = get_i(m, "num_groups");
  g.num_channels = get_i(m, "num_channels");
  g.eps = get_f(m, "eps");
  g.weight = get_opt_t(m, "weight");
  g.bias = get_opt_t(m, "bias");
  return T(g(x));
}
Value groupnorm_new(Interp&, Args& a) {
  nn::GroupNorm g(to_index(a[0]), to_index(a[1]), to_double(a[2], "eps"), truthy(a[3]));
  auto m = instance("GroupNorm", groupnorm_call);
  set(*m, "num_groups", a[0]);
  set(*m, "num_channels", a[1]);
  set(*m, "eps", a[2]);
  set(*m, "weight", opt_T(g.weight));
  set(*m, "bias", opt_T(g.bias));
  return Value::of(VKind::Module, m);
}
Value instancenorm_call(Interp&, const Value& self, CallArgs& args) {
  auto& m = self.as<ModuleObj>();
  Tensor x = call_arg(m, args);
  nn::InstanceNorm g;
  g.num_features = get_i(m, "num_features");
  g.eps = get_f(m, "eps");
  g.weight = get_opt_t(m, "weight");
  g.bias = get_opt_t(m, "bias");
  return T(g(x));
}
Value instancenorm_new(Interp&, Args& a) {
  nn::InstanceNorm g(to_index(a[0]), to_double(a[1], "eps"), truthy(a[2]));
  auto m = instance("InstanceNorm", instancenorm_call);
  set(*m, "num_features", a[0]);
  set(*m, "eps", a[1]);
  set(*m, "weight", opt_T(g.weight));
  set(*m, "bias", opt_T(g.bias));
  return Value::of(VKind::Module, m);
}

// ---- Embedding ----
Value embedding_call(Interp&, const Value& self, CallArgs& args) {
  auto& m = self.as<ModuleObj>();
  static const ParamSpec spec = ParamSpec::parse("idx");
  std::vector<Value> bound;
  bind_arguments("Embedding.__call__", spec, args, bound);
  nn::Embedding e;
  e.vocab_sz = get_i(m, "vocab_sz");
  e.embed_sz = get_i(m, "embed_sz");
  e.weight = get_t(m, "weight");
  return T(e(to_tensor(bound[0], "idx")));
}
Value embedding_new(Interp&, Args& a) {
  nn::Embedding e(to_index(a[0]), to_index(a[1]));
  auto m = instance("Embedding", embedding_call);
  set(*m, "vocab_sz", a[0]);
  set(*m, "embed_sz", a[1]);
  set(*m, "weight", T(e.weight));
  return Value::of(VKind::Module, m);
}

const char* const kConv =
    "in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True";
const char* const kConvT = "in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, "
                           "dilation=1, groups=1, bias=True";

} // namespace

void register_nn(Registry& r) {
  ModuleObj& mod = nn_module(r);
  auto add = [&](const char* name, const std::string& qualname, const char* spec, NativeFn fn) {
    r.add(qualname, spec, fn);
    mod.attrs[intern(name)] = Value::of(VKind::Builtin, r.owned.back());
  };
  add("Linear", "Linear.__init__", "in_features, out_features, bias=True", linear_new);
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
  add("BatchNorm2d", "BatchNorm2d.__init__",
      "sz, eps=1e-05, affine=True, track_running_stats=True, momentum=0.1", batchnorm_new);
  add(
      "LayerNorm", "LayerNorm.__init__", "normalized_shape, eps=1e-05, elementwise_affine=True",
      +[](Interp&, Args& a) { return layernorm_new(a, false); });
  add(
      "LayerNorm2d", "LayerNorm2d.__init__", "normalized_shape, eps=1e-05, elementwise_affine=True",
      +[](Interp&, Args& a) { return layernorm_new(a, true); });
  add("GroupNorm", "GroupNorm.__init__", "num_groups, num_channels, eps=1e-05, affine=True", groupnorm_new);
  add("InstanceNorm", "InstanceNorm.__init__", "num_features, eps=1e-05, affine=True", instancenorm_new);
  add("Embedding", "Embedding.__init__", "vocab_size, embed_size", embedding_new);
}

} // namespace tg::script
