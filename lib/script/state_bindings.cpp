// script layer: dict values (script/dict.h), the `args` global and nn.state — safe_load,
// safe_save, get_state_dict, get_parameters, load_state_dict — over nn/safetensors.
// safe_save can write only values known at trace time (literal data and constants); anything
// computed needs tg-run --out-dir (docs/architecture.md).
#include <algorithm>
#include <cstring>
#include <set>

#include "dtype/dtype_bytes.h"
#include "lazy/lazybuffer.h"
#include "nn/safetensors.h"
#include "script/dict.h"
#include "script/interp.h"

namespace tg::script {

using Args = std::vector<Value>;

Value make_dict(std::vector<std::pair<std::string, Value>> items) {
  auto d = std::make_shared<DictObj>();
  d->items = std::move(items);
  remember_container(d);
  return Value::of(VKind::Dict, std::move(d));
}

const std::string& dict_key(const Value& key) {
  if (key.kind != VKind::Str)
    raise("TypeError", "dict keys must be strings in .tg scripts, not " + type_name(key));
  return key.s();
}

Value dict_get(const Value& dict, const Value& key) {
  if (key.kind != VKind::Str) raise("KeyError", repr(key));
  Value* v = dict.as<DictObj>().find(key.s());
  if (!v) raise("KeyError", repr(key));
  return *v;
}

std::vector<Value> dict_keys(const Value& dict) {
  std::vector<Value> out;
  for (auto& [k, v] : dict.as<DictObj>().items) out.push_back(Value::str(k));
  return out;
}

void Interp::define_global(const std::string& name, Value v) {
  Sym s = intern(name);
  if (size_t(s) >= builtins_.size()) {
    size_t old = builtins_.size();
    builtins_.resize(size_t(s) + 1);
    for (size_t k = old; k < builtins_.size(); ++k) builtins_[k].kind = VKind::Unbound;
  }
  builtins_[s] = std::move(v);
}

namespace {

// Bytes of a tensor whose value is known at trace time: literal data seen contiguously, or a
// constant. Else nullopt.
std::optional<std::vector<uint8_t>> known_bytes(const Tensor& t) {
  const LazyBuffer& lb = t.lazydata();
  const LazyNode& base = lb.base().node();
  int64_t n = lb.size();
  size_t isz = size_t(itemsize(lb.dtype()));
  if (base.op == Op::COPY && base.dtype == lb.dtype() && (lb.is_base() || lb.st().contiguous()) &&
      base.data.size() == size_t(n) * isz)
    return base.data.to_vector();
  if (lb.is_unrealized_const()) {
    const Scalar& s = lb.const_value();
    std::vector<uint8_t> one(isz);
    store_element(one.data(), s, lb.dtype());
    std::vector<uint8_t> out;
    out.reserve(size_t(n) * isz);
    for (int64_t k = 0; k < n; ++k) out.insert(out.end(), one.begin(), one.end());
    return out;
  }
  return std::nullopt;
}

const std::string& path_arg(const Value& v, const char* fn) {
  if (v.kind != VKind::Str)
    raise("TypeError", std::string(fn) + ": the file name must be a str, not " + type_name(v));
  return v.s();
}

Value safe_load(Interp&, Args& a) {
  nn::SafeFile f;
  try {
    f = nn::load_safetensors(path_arg(a[0], "safe_load"));
  } catch (const PyError&) {
    throw;
  } catch (const Error& e) {
    raise(e.kind(), e.what());
  }
  std::vector<std::pair<std::string, Value>> items;
  for (auto& t : f.tensors)
    items.emplace_back(t.name, Value::tensor(Tensor(LazyBuffer::from_data(
                                   std::move(t.data), shape_from_ints(t.shape), t.dtype, "", t.name))));
  return make_dict(std::move(items));
}

Value safe_save(Interp&, Args& a) {
  if (a[0].kind != VKind::Dict)
    raise("TypeError", "safe_save: tensors must be a dict, not " + type_name(a[0]));
  const std::string& path = path_arg(a[1], "safe_save");
  nn::SafeFile f;
  for (auto& [k, v] : a[0].as<DictObj>().items) {
    if (v.kind != VKind::Tensor)
      raise("AttributeError", "'" + type_name(v) + "' object has no attribute 'dtype'");
    const Tensor& t = v.t();
    auto bytes = known_bytes(t);
    if (!bytes)
      raise("RuntimeError", "safe_save: tensor '" + k +
                                "' is computed, and a .tg script only traces: its value is not known until "
                                "tg-run; output() it and save it with `tg-run --out-dir` instead");
    f.tensors.push_back({k, t.dtype(), shape_ints(t.shape()), std::move(*bytes)});
  }
  if (!a[2].is_none()) {
    if (a[2].kind != VKind::Dict) raise("TypeError", "safe_save: metadata must be a dict");
    for (auto& [k, v] : a[2].as<DictObj>().items) {
      if (v.kind != VKind::Str) raise("TypeError", "safe_save: metadata values must be str in .tg scripts");
      f.metadata.emplace_back(k, v.s());
    }
  }
  try {
    nn::save_safetensors(f, path);
  } catch (const Error& e) {
    raise(e.kind(), e.what());
  }
  return Value();
}

Value get_state_dict(Interp&, Args& a) {
  std::vector<std::pair<std::string, Value>> out;
  if (a[1].kind != VKind::Str) raise("TypeError", "get_state_dict: prefix must be a str");
  state_dict_of(a[0], a[1].s(), out);
  return make_dict(std::move(out));
}

Value get_parameters(Interp&, Args& a) {
  std::vector<std::pair<std::string, Value>> out;
  state_dict_of(a[0], "", out);
  std::vector<Value> ts;
  for (auto& [k, v] : out) ts.push_back(v);
  return Value::list(std::move(ts));
}

Value load_state_dict(Interp&, Args& a) {
  if (a[1].kind != VKind::Dict) raise("TypeError", "load_state_dict: state_dict must be a dict");
  std::vector<std::pair<std::string, Value>> model;
  state_dict_of(a[0], "", model);
  auto& sd = a[1].as<DictObj>();
  bool strict = truthy(a[2]), consume = truthy(a[4]);
  for (auto& [k, v] : model) {
    Value* src = sd.find(k);
    if (!src && !strict) continue;
    if (!src) raise("KeyError", repr(Value::str(k)));
    if (src->kind != VKind::Tensor)
      raise("AttributeError", "'" + type_name(*src) + "' object has no attribute 'to'");
    Tensor& dst = v.t();
    const Tensor& x = src->t();
    if (x.requires_grad() == std::optional<bool>(true)) raise("AssertionError", "");
    if (dst.shape() != x.shape())
      raise("AssertionError", "replace shape mismatch " + repr(Value::tuple([&] {
                                std::vector<Value> s;
                                for (int64_t d : dst.shape()) s.push_back(Value::integer(d));
                                return s;
                              }())) +
                                  " != " + repr(Value::tuple([&] {
                                    std::vector<Value> s;
                                    for (int64_t d : x.shape()) s.push_back(Value::integer(d));
                                    return s;
                                  }())));
    // onto the model's devices: its shards (split as the model's are), or its one device
    Tensor placed = dst.is_sharded()
                        ? (x.is_sharded() ? x : x.shard(dst.devices(), dst.lazydata().multi_axis()))
                        : x.to(dst.device());
    dst.replace(placed); // the same tensor object: an optimizer holding it sees the new value
    if (consume) {
      auto& items = sd.items;
      const std::string& key = k; // clang 14 cannot capture a structured binding
      items.erase(std::find_if(items.begin(), items.end(), [&](auto& p) { return p.first == key; }));
    }
  }
  return Value();
}

} // namespace

void state_dict_of(const Value& obj, const std::string& prefix,
                   std::vector<std::pair<std::string, Value>>& out, std::set<const void*>* seen) {
  // a container that holds itself is walked once (automatic state names must not recurse forever)
  if (seen && obj.obj && obj.kind != VKind::Tensor && !seen->insert(obj.obj.get()).second) return;
  auto put = [&](const std::string& k, Value v) {
    for (auto& [name, val] : out)
      if (name == k) {
        val = std::move(v);
        return;
      }
    out.emplace_back(k, std::move(v));
  };
  switch (obj.kind) {
  case VKind::Tensor: {
    std::string k = prefix;
    size_t b = k.find_first_not_of('.'), e = k.find_last_not_of('.');
    put(b == std::string::npos ? "" : k.substr(b, e - b + 1), obj);
    return;
  }
  case VKind::List:
  case VKind::Tuple:
    for (size_t i = 0; i < obj.items().size(); ++i)
      state_dict_of(obj.items()[i], prefix + std::to_string(i) + ".", out, seen);
    return;
  case VKind::Dict:
    for (auto& [k, v] : obj.as<DictObj>().items) state_dict_of(v, prefix + k + ".", out, seen);
    return;
  case VKind::Module: {
    auto& m = obj.as<ModuleObj>();
    if (!m.instance) return;
    for (Sym s : m.order) state_dict_of(m.attrs.at(s), prefix + sym_name(s) + ".", out, seen);
    return;
  }
  default:
    return;
  }
}

void register_state(Registry& r) {
  r.method(
      VKind::Dict, "keys", "self", +[](Interp&, Args& a) { return Value::list(dict_keys(a[0])); }, "dict");
  r.method(
      VKind::Dict, "values", "self",
      +[](Interp&, Args& a) {
        std::vector<Value> out;
        for (auto& [k, v] : a[0].as<DictObj>().items) out.push_back(v);
        return Value::list(std::move(out));
      },
      "dict");
  r.method(
      VKind::Dict, "items", "self",
      +[](Interp&, Args& a) {
        std::vector<Value> out;
        for (auto& [k, v] : a[0].as<DictObj>().items) out.push_back(Value::tuple({Value::str(k), v}));
        return Value::list(std::move(out));
      },
      "dict");
  r.method(
      VKind::Dict, "get", "self, key, default=None",
      +[](Interp&, Args& a) {
        Value* v = a[1].kind == VKind::Str ? a[0].as<DictObj>().find(a[1].s()) : nullptr;
        return v ? *v : a[2];
      },
      "dict");

  auto state = std::make_shared<ModuleObj>();
  state->name = "tinygrad.nn.state";
  auto fn = [&](const std::string& name, const std::string& spec, NativeFn f) {
    r.attribute(*state, name, "nn.state." + name, spec, f);
  };
  fn("safe_load", "fn", safe_load);
  fn("safe_save", "tensors, fn, metadata=None", safe_save);
  fn("get_state_dict", "obj, prefix='', tensor_type=None", get_state_dict);
  fn("get_parameters", "obj", get_parameters);
  fn("load_state_dict", "model, state_dict, strict=True, verbose=True, consume=False", load_state_dict);
  nn_module(r).attrs[intern("state")] = Value::of(VKind::Module, state);
}

} // namespace tg::script
