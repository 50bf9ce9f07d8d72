// The script's `functools`: reduce and partial, which model code written for tinygrad uses to
// fold layers over an input and to fix arguments of a layer or activation.
#include "script/dict.h"
#include "script/interp.h"

namespace tg::script {

namespace {

using Args = std::vector<Value>;

// partial(func, *args, **keywords)(*more, **kw) = func(*args, *more, **keywords, **kw)
Value call_partial(Interp& in, const Value& self, CallArgs& args) {
  const ModuleObj& p = self.as<ModuleObj>();
  CallArgs all;
  all.pos = p.attrs.at(intern("args")).items();
  all.pos.insert(all.pos.end(), args.pos.begin(), args.pos.end());
  for (const auto& [k, v] : p.attrs.at(intern("keywords")).as<DictObj>().items) {
    Sym s = intern(k);
    bool overridden = false;
    for (const auto& [have, _] : args.kw) overridden = overridden || have == s;
    if (!overridden) all.kw.emplace_back(s, v);
  }
  all.kw.insert(all.kw.end(), args.kw.begin(), args.kw.end());
  return in.call(p.attrs.at(intern("func")), all);
}

} // namespace

void register_functools(Registry& r) {
  auto m = std::make_shared<ModuleObj>();
  m->name = "functools";
  auto fn = [&](const char* name, const char* spec, NativeFn f) {
    r.attribute(*m, name, std::string("functools.") + name, spec, f);
  };
  fn(
      "reduce", "function, iterable, *initial", +[](Interp& in, Args& a) {
        std::vector<Value> items = in.iterate(a[1]);
        const auto& initial = a[2].items();
        if (initial.size() > 1)
          raise("TypeError",
                "reduce expected at most 3 arguments, got " + std::to_string(2 + initial.size()));
        size_t k = 0;
        Value acc;
        if (!initial.empty())
          acc = initial[0];
        else if (items.empty())
          raise("TypeError", "reduce() of empty iterable with no initial value");
        else
          acc = items[k++];
        for (; k < items.size(); ++k) {
          CallArgs args;
          args.pos = {acc, items[k]};
          acc = in.call(a[0], args);
        }
        return acc;
      });
  fn(
      "partial", "func, *args, **keywords", +[](Interp&, Args& a) {
        if (!is_callable(a[0])) raise("TypeError", "the first argument must be callable");
        auto p = std::make_shared<ModuleObj>();
        p->name = "functools.partial";
        p->instance = true;
        p->call_self = call_partial;
        p->set_attr(intern("func"), a[0]);
        p->set_attr(intern("args"), a[1]);
        p->set_attr(intern("keywords"), a[2]);
        return Value::of(VKind::Module, std::move(p));
      });
  r.globals[intern("functools")] = Value::of(VKind::Module, m);
}

} // namespace tg::script
