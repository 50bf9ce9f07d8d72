// nn.optim as the script sees it: SGD, LARS, Adam, AdamW and LAMB make an optimizer object
// with step(), zero_grad() and schedule_step(), and tinygrad's attribute names (params, lr, m,
// v, b1_t, b ...) readable. The work is lib/nn/optim; a step is assigns (see optim.h).
#include <memory>

#include "nn/optim.h"
#include "script/interp.h"

namespace tg::script {
namespace {

using Args = std::vector<Value>;

struct OptimizerObj : ModuleObj {
  std::shared_ptr<nn::Optimizer> opt;
};

nn::Optimizer& opt_of(const Value& self) {
  auto* o = dynamic_cast<OptimizerObj*>(&self.as<ModuleObj>());
  if (!o) raise("TypeError", "not an optimizer");
  return *o->opt;
}

std::vector<Tensor> tensors(const Value& v, const char* what) {
  if (!v.is_seq())
    raise("TypeError", std::string(what) + " must be a list of Tensors, not '" + type_name(v) + "'");
  std::vector<Tensor> out;
  for (const Value& x : v.items()) out.push_back(to_tensor(x, what));
  return out;
}

std::unordered_map<Sym, const Builtin*>& methods() {
  static std::unordered_map<Sym, const Builtin*> table;
  return table;
}

void set(ModuleObj& m, const char* name, Value v) { m.set_attr(intern(name), std::move(v)); }

Value wrap(std::shared_ptr<nn::Optimizer> opt, const char* type, std::vector<Value> members = {}) {
  auto m = std::make_shared<OptimizerObj>();
  m->name = type;
  m->instance = true;
  m->methods = &methods();
  set(*m, "params", tensor_list(opt->params, false));
  set(*m, "buffers", tensor_list(opt->buffers, false));
  if (!opt->params.empty()) { // Optimizer.device: the first parameter's
    const Tensor& p0 = opt->params[0];
    std::vector<Value> devs;
    for (const std::string& d : p0.is_sharded() ? p0.devices() : std::vector<std::string>{})
      devs.push_back(Value::str(d));
    set(*m, "device", p0.is_sharded() ? Value::tuple(std::move(devs)) : Value::str(p0.device()));
  }
  if (dynamic_cast<nn::OptimizerGroup*>(opt.get())) {
    set(*m, "optimizers", Value::tuple(std::move(members)));
  } else {
    set(*m, "lr", Value::tensor(opt->lr));
  }
  if (auto* l = dynamic_cast<nn::LARS*>(opt.get())) {
    set(*m, "momentum", Value::floating(l->momentum));
    set(*m, "wd", Value::floating(l->wd));
    set(*m, "nesterov", Value::boolean(l->nesterov));
    set(*m, "classic", Value::boolean(l->classic));
    set(*m, "tcoef", Value::floating(l->tcoef));
    set(*m, "b", tensor_list(l->b, false));
  } else if (auto* a = dynamic_cast<nn::LAMB*>(opt.get())) {
    set(*m, "b1", Value::floating(a->b1));
    set(*m, "b2", Value::floating(a->b2));
    set(*m, "eps", Value::floating(a->eps));
    set(*m, "wd", Value::floating(a->wd));
    set(*m, "adam", Value::boolean(a->adam));
    set(*m, "b1_t", Value::tensor(a->b1_t));
    set(*m, "b2_t", Value::tensor(a->b2_t));
    set(*m, "m", tensor_list(a->m, false));
    set(*m, "v", tensor_list(a->v, false));
  }
  m->opt = std::move(opt);
  return Value::of(VKind::Module, m);
}

double num(const Value& v, const char* what) { return to_double(v, what); }

} // namespace

bool is_optimizer(const Value& v) {
  return v.kind == VKind::Module && dynamic_cast<const OptimizerObj*>(&v.as<ModuleObj>()) != nullptr;
}

void register_optim(Registry& r) {
  auto mod = std::make_shared<ModuleObj>();
  mod->name = "tinygrad.nn.optim";
  // qualname: how errors name it (a class's constructor is Class.__init__, as in Python)
  auto add = [&](const char* name, const char* qualname, const char* spec, NativeFn fn) {
    r.attribute(*mod, name, qualname, spec, fn);
  };
  add(
      "SGD", "SGD", "params, lr=0.001, momentum=0.0, weight_decay=0.0, nesterov=False, classic=False",
      +[](Interp&, Args& a) {
        return wrap(nn::SGD(tensors(a[0], "params"), num(a[1], "lr"), num(a[2], "momentum"),
                            num(a[3], "weight_decay"), truthy(a[4]), truthy(a[5])),
                    "LARS");
      });
  add(
      "LARS", "LARS.__init__",
      "params, lr=0.001, momentum=0.9, weight_decay=0.0001, nesterov=False, classic=True, tcoef=0.001",
      +[](Interp&, Args& a) {
        return wrap(std::make_shared<nn::LARS>(tensors(a[0], "params"), num(a[1], "lr"),
                                               num(a[2], "momentum"), num(a[3], "weight_decay"), truthy(a[4]),
                                               truthy(a[5]), num(a[6], "tcoef")),
                    "LARS");
      });
  add(
      "Adam", "Adam", "params, lr=0.001, b1=0.9, b2=0.999, eps=1e-08", +[](Interp&, Args& a) {
        return wrap(nn::Adam(tensors(a[0], "params"), num(a[1], "lr"), num(a[2], "b1"), num(a[3], "b2"),
                             num(a[4], "eps")),
                    "LAMB");
      });
  add(
      "AdamW", "AdamW", "params, lr=0.001, b1=0.9, b2=0.999, eps=1e-08, weight_decay=0.01",
      +[](Interp&, Args& a) {
        return wrap(nn::AdamW(tensors(a[0], "params"), num(a[1], "lr"), num(a[2], "b1"), num(a[3], "b2"),
                              num(a[4], "eps"), num(a[5], "weight_decay")),
                    "LAMB");
      });
  add(
      "LAMB", "LAMB.__init__", "params, lr=0.001, b1=0.9, b2=0.999, eps=1e-06, weight_decay=0.0, adam=False",
      +[](Interp&, Args& a) {
        return wrap(std::make_shared<nn::LAMB>(tensors(a[0], "params"), num(a[1], "lr"), num(a[2], "b1"),
                                               num(a[3], "b2"), num(a[4], "eps"), num(a[5], "weight_decay"),
                                               truthy(a[6])),
                    "LAMB");
      });

  add(
      "OptimizerGroup", "OptimizerGroup.__init__", "*optimizers", +[](Interp&, Args& a) {
        std::vector<std::shared_ptr<nn::Optimizer>> opts;
        for (const Value& v : a[0].items()) {
          auto* o = v.kind == VKind::Module ? dynamic_cast<OptimizerObj*>(&v.as<ModuleObj>()) : nullptr;
          if (!o) raise("TypeError", "OptimizerGroup takes optimizers, not '" + type_name(v) + "'");
          opts.push_back(o->opt);
        }
        return wrap(std::make_shared<nn::OptimizerGroup>(std::move(opts)), "OptimizerGroup", a[0].items());
      });

  auto method = [&](const char* name, const char* spec, NativeFn fn) {
    methods()[intern(name)] = r.add(std::string("Optimizer.") + name, spec, fn, /*is_method=*/true);
  };
  method(
      "step", "self", +[](Interp&, Args& a) {
        opt_of(a[0]).step();
        return Value();
      });
  method(
      "zero_grad", "self", +[](Interp&, Args& a) {
        opt_of(a[0]).zero_grad();
        return Value();
      });
  method(
      "schedule_step", "self",
      +[](Interp&, Args& a) { return tensor_list(opt_of(a[0]).schedule_step(), false); });

  nn_module(r).attrs[intern("optim")] = Value::of(VKind::Module, mod);
}

} // namespace tg::script
