// Script bindings of multi-device tensors: Tensor.device, to, to_, shard, shard_, the
// read-only view of lazydata that tinygrad's multi-device tests and models inspect (axis,
// bounds, real, lbs), Device.canonicalize, and tinygrad.helpers.Context for RING.
#include "device/registry.h"
#include "lazy/multi.h"
#include "script/dict.h"
#include "script/interp.h"
#include "script/value.h"
#include "tensor/tensor_device.h"

namespace tg::script {

namespace {

using Args = std::vector<Value>;

std::vector<std::string> device_list(const Value& v, const char* qualname) {
  std::vector<std::string> out;
  for (const Value& d : v.items()) {
    if (d.kind != VKind::Str) raise("TypeError", std::string(qualname) + ": device must be a str, not " + type_name(d));
    out.push_back(d.s());
  }
  return out;
}

Value str_tuple(const std::vector<std::string>& xs) {
  std::vector<Value> out;
  for (const std::string& x : xs) out.push_back(Value::str(x));
  return Value::tuple(std::move(out));
}

std::optional<int> opt_axis(const Value& v) {
  if (v.is_none()) return std::nullopt;
  if (v.kind != VKind::Int) raise("TypeError", "shard: axis must be an int or None, not " + type_name(v));
  return int(v.i);
}

// tensor.py's to(device): a str moves, a tuple shards (axis None).
Tensor moved(const Tensor& t, const Value& device, const char* qualname) {
  if (device.is_none()) return t;
  if (device.kind == VKind::Tuple || device.kind == VKind::List) {
    std::vector<std::string> devs = device_list(device, qualname);
    if (t.is_sharded() && t.devices().size() == devs.size()) {
      bool same = true;
      for (size_t i = 0; i < devs.size(); ++i) same &= graph_device_name(devs[i]) == graph_device_name(t.devices()[i]);
      if (same) return t;
    }
    return t.shard(devs);
  }
  return t.to(device.s());
}

// Attributes of a lazydata object: a snapshot of the tensor's buffers when it was read.
Value lazydata_view(const Tensor& t) {
  auto m = std::make_shared<ModuleObj>();
  const LazyBuffer& lb = t.lazydata();
  m->name = lb.is_multi() ? "MultiLazyBuffer" : "LazyBuffer";
  m->instance = true;
  std::vector<Value> dims;
  for (const sint& d : t.shape()) dims.push_back(Value::symbol(d));
  m->set_attr(intern("shape"), Value::tuple(std::move(dims)));
  m->set_attr(intern("dtype"), Value::dtype(t.dtype()));
  if (!lb.is_multi()) {
    m->set_attr(intern("device"), Value::str(t.device()));
    return Value::of(VKind::Module, m);
  }
  m->set_attr(intern("device"), str_tuple(t.devices()));
  m->set_attr(intern("axis"), lb.multi_axis() ? Value::integer(*lb.multi_axis()) : Value());
  std::vector<Value> real, lbs, bounds;
  for (bool r : lb.real()) real.push_back(Value::boolean(r));
  for (const LazyBuffer& s : lb.lbs()) lbs.push_back(Value::tensor(Tensor(s)));
  m->set_attr(intern("real"), Value::list(std::move(real)));
  m->set_attr(intern("lbs"), Value::list(std::move(lbs)));
  if (lb.multi_axis()) {
    for (auto [a, b] : lb.bounds()) bounds.push_back(Value::tuple({Value::integer(a), Value::integer(b)}));
    m->set_attr(intern("bounds"), Value::list(std::move(bounds)));
  }
  return Value::of(VKind::Module, m);
}

// tinygrad.helpers.Context(**kwargs): a context manager that sets ContextVars while it is
// entered. RING is the one tg's tracing reads; the others (DEBUG, BEAM, ...) change nothing
// a program computes, so they are accepted and ignored.
struct ContextObj : ModuleObj {
  int prev_ring = -1;
};
std::unordered_map<Sym, const Builtin*>& context_methods() {
  static std::unordered_map<Sym, const Builtin*> table;
  return table;
}
ContextObj& context_of(const Value& v) {
  auto* c = v.kind == VKind::Module ? dynamic_cast<ContextObj*>(&v.as<ModuleObj>()) : nullptr;
  if (!c) raise("TypeError", "'" + type_name(v) + "' object is not a context manager");
  return *c;
}

} // namespace

Value place_on_device(const Value& t, const Value& device) {
  return Value::tensor(moved(t.t(), device, "Tensor"));
}

void register_devices(Registry& r, ModuleObj& tinygrad, ModuleObj& device, ModuleObj& helpers) {
  r.method(
      VKind::Tensor, "to", "self, device",
      +[](Interp&, Args& a) {
        Tensor t = moved(a[0].t(), a[1], "Tensor.to");
        return t.same(a[0].t()) ? a[0] : Value::tensor(t); // `x.to(x.device) is x`
      },
      "Tensor");
  r.method(
      VKind::Tensor, "to_", "self, device",
      +[](Interp&, Args& a) {
        Tensor t = a[0].t();
        if (a[1].kind == VKind::Tuple || a[1].kind == VKind::List)
          t.shard_(device_list(a[1], "Tensor.to_"));
        else if (!a[1].is_none())
          t.to_(a[1].s());
        return Value();
      },
      "Tensor");
  r.method(
      VKind::Tensor, "shard", "self, devices, axis=None",
      +[](Interp&, Args& a) { return Value::tensor(a[0].t().shard(device_list(a[1], "Tensor.shard"), opt_axis(a[2]))); },
      "Tensor");
  r.method(
      VKind::Tensor, "shard_", "self, devices, axis=None",
      +[](Interp&, Args& a) {
        Tensor t = a[0].t();
        t.shard_(device_list(a[1], "Tensor.shard_"), opt_axis(a[2]));
        return a[0];
      },
      "Tensor");
  r.properties[int(VKind::Tensor)][intern("device")] = +[](Interp&, const Value& v) {
    const Tensor& t = v.t();
    return t.is_sharded() ? str_tuple(t.devices()) : Value::str(t.device());
  };
  r.properties[int(VKind::Tensor)][intern("lazydata")] = +[](Interp&, const Value& v) { return lazydata_view(v.t()); };

  r.attribute(device, "canonicalize", "Device.canonicalize", "device", +[](Interp&, Args& a) {
    if (a[0].kind != VKind::Str) raise("TypeError", "Device.canonicalize: device must be a str");
    return Value::str(canonical_device_name(a[0].s()));
  });

  r.attribute(helpers, "Context", "Context", "**kwargs", +[](Interp&, Args& a) {
    auto c = std::make_shared<ContextObj>();
    c->name = "Context";
    c->instance = true;
    c->methods = &context_methods();
    for (auto& [k, v] : a[0].as<DictObj>().items) c->set_attr(intern(k), v);
    return Value::of(VKind::Module, c);
  });
  context_methods()[intern("__enter__")] = r.add(
      "Context.__enter__", "self",
      +[](Interp&, Args& a) {
        ContextObj& c = context_of(a[0]);
        c.prev_ring = -2;
        auto it = c.attrs.find(intern("RING"));
        if (it != c.attrs.end()) {
          if (it->second.kind != VKind::Int) raise("TypeError", "Context: RING must be an int");
          c.prev_ring = ring_setting();
          set_ring_setting(int(it->second.i));
        }
        return Value();
      },
      true);
  context_methods()[intern("__exit__")] = r.add(
      "Context.__exit__", "self, exc_type, exc_value, traceback",
      +[](Interp&, Args& a) {
        ContextObj& c = context_of(a[0]);
        if (c.prev_ring != -2) set_ring_setting(c.prev_ring);
        return Value();
      },
      true);
  (void)tinygrad;
}

} // namespace tg::script
