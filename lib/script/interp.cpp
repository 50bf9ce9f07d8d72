// The statement and call machinery of the evaluator; operators live in operators.cpp.
#include "script/interp.h"

#include "device/registry.h"
#include "script/dict.h"
#include "tensor/function.h"
#include "tensor/tensor_device.h"

#include <new>

namespace tg::script {

// Makes `frame` (its slots grown to n, unbound) the current frame for a scope: a function
// call, a class body, a comprehension. The previous frame comes back when the scope ends,
// also when it ends with an error.
struct Interp::FrameScope {
  std::shared_ptr<Frame>& cur;
  std::shared_ptr<Frame> saved;
  FrameScope(std::shared_ptr<Frame>& current, std::shared_ptr<Frame> frame, size_t n,
             std::shared_ptr<Frame> parent)
      : cur(current) {
    Value unbound;
    unbound.kind = VKind::Unbound;
    frame->slots.resize(n, unbound);
    frame->parent = std::move(parent);
    saved = std::exchange(cur, std::move(frame));
  }
  ~FrameScope() { cur = std::move(saved); }
};

// ---- parameter specs and binding ----

ParamSpec ParamSpec::parse(const std::string& spec) {
  ParamSpec p;
  size_t i = 0;
  auto trim = [](std::string s) {
    size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  while (i < spec.size()) {
    size_t j = spec.find(',', i);
    if (j == std::string::npos) j = spec.size();
    std::string item = trim(spec.substr(i, j - i));
    i = j + 1;
    if (item.empty()) continue;
    Value def;
    def.kind = VKind::Unbound;
    if (item.rfind("**", 0) == 0) {
      p.kwarg = int(p.names.size());
      item = item.substr(2);
    } else if (item[0] == '*') {
      p.vararg = int(p.names.size());
      item = item.substr(1);
    } else if (size_t eq = item.find('='); eq != std::string::npos) {
      std::string d = trim(item.substr(eq + 1));
      item = trim(item.substr(0, eq));
      if (d == "None")
        def = Value::none();
      else if (d == "True")
        def = Value::boolean(true);
      else if (d == "False")
        def = Value::boolean(false);
      else if (d == "()")
        def = Value::tuple({});
      else if (d[0] == '\'')
        def = Value::str(d.substr(1, d.size() - 2));
      else if (d.find_first_of(".e") != std::string::npos)
        def = Value::floating(std::stod(d));
      else
        def = Value::integer(std::stoll(d));
    }
    p.names.push_back(intern(item));
    p.defaults.push_back(def);
  }
  return p;
}

static std::string name_list(const std::vector<std::string>& names) {
  std::string r;
  for (size_t k = 0; k < names.size(); ++k) {
    if (k) r += names.size() == 2 ? " and " : (k + 1 == names.size() ? ", and " : ", ");
    r += "'" + names[k] + "'";
  }
  return r;
}

void bind_arguments(const std::string& q, const ParamSpec& spec, CallArgs& args, std::vector<Value>& out) {
  const size_t n = spec.names.size();
  const size_t npos = spec.vararg >= 0  ? size_t(spec.vararg)
                      : spec.kwarg >= 0 ? size_t(spec.kwarg)
                                        : n; // positional parameters
  static const Sym bare_star = intern("*");
  const bool takes_rest = spec.vararg >= 0 && spec.names[size_t(spec.vararg)] != bare_star;
  out.assign(n, Value());
  for (auto& v : out) v.kind = VKind::Unbound;
  if (args.pos.size() > npos && !takes_rest) {
    size_t required = 0;
    for (size_t k = 0; k < npos; ++k) required += spec.defaults[k].kind == VKind::Unbound;
    std::string takes = required == npos ? std::to_string(npos)
                                         : "from " + std::to_string(required) + " to " + std::to_string(npos);
    bool plural = !(required == npos && npos == 1);
    raise("TypeError", q + "() takes " + takes + " positional argument" + (plural ? "s" : "") + " but " +
                           std::to_string(args.pos.size()) + (args.pos.size() == 1 ? " was" : " were") +
                           " given");
  }
  size_t k = 0;
  for (; k < args.pos.size() && k < npos; ++k) out[k] = std::move(args.pos[k]);
  if (spec.vararg >= 0) {
    std::vector<Value> rest;
    for (size_t m = npos; m < args.pos.size(); ++m) rest.push_back(std::move(args.pos[m]));
    out[spec.vararg] = Value::tuple(std::move(rest));
  }
  std::vector<std::pair<std::string, Value>> extra;
  for (auto& [sym, v] : args.kw) {
    size_t m = 0;
    while (m < n && (spec.names[m] != sym || int(m) == spec.vararg || int(m) == spec.kwarg)) ++m;
    if (m == n && spec.kwarg >= 0) {
      extra.emplace_back(sym_name(sym), std::move(v));
      continue;
    }
    if (m == n) raise("TypeError", q + "() got an unexpected keyword argument '" + sym_name(sym) + "'");
    if (out[m].kind != VKind::Unbound)
      raise("TypeError", q + "() got multiple values for argument '" + sym_name(sym) + "'");
    out[m] = std::move(v);
  }
  if (spec.kwarg >= 0) out[size_t(spec.kwarg)] = make_dict(std::move(extra));
  if (spec.vararg >= 0 && !takes_rest) out[size_t(spec.vararg)] = Value();
  std::vector<std::string> missing, missing_kw;
  for (size_t m = 0; m < n; ++m) {
    if (out[m].kind != VKind::Unbound) continue;
    if (spec.defaults[m].kind != VKind::Unbound)
      out[m] = spec.defaults[m];
    else
      (m < npos ? missing : missing_kw).push_back(sym_name(spec.names[m]));
  }
  if (!missing.empty())
    raise("TypeError", q + "() missing " + std::to_string(missing.size()) + " required positional argument" +
                           (missing.size() > 1 ? "s" : "") + ": " + name_list(missing));
  if (!missing_kw.empty())
    raise("TypeError", q + "() missing " + std::to_string(missing_kw.size()) +
                           " required keyword-only argument" + (missing_kw.size() > 1 ? "s" : "") + ": " +
                           name_list(missing_kw));
}

// ---- registry ----

const Builtin* Registry::add(const std::string& qualname, const std::string& spec, NativeFn fn,
                             bool is_method) {
  auto b = std::make_shared<Builtin>();
  b->qualname = qualname;
  b->spec = ParamSpec::parse(spec);
  b->fn = fn;
  b->is_method = is_method;
  static const Sym device = intern("device");
  for (size_t k = 0; k < b->spec.names.size(); ++k)
    if (b->spec.names[k] == device) b->device_param = int(k);
  // a moving method takes its device itself; anything else makes a tensor on it
  b->creates_on_device = b->device_param >= 0 && qualname != "Tensor.to" && qualname != "Tensor.to_";
  owned.push_back(std::move(b));
  return owned.back().get();
}
void Registry::method(VKind kind, const std::string& name, const std::string& spec, NativeFn fn,
                      const std::string& owner) {
  methods[int(kind)][intern(name)] = add(owner + "." + name, spec, fn, true);
}
void Registry::function(const std::string& name, const std::string& spec, NativeFn fn) {
  add(name, spec, fn);
  globals[intern(name)] = Value::of(VKind::Builtin, owned.back());
}

void Registry::attribute(ModuleObj& m, const std::string& name, const std::string& qualname,
                         const std::string& spec, NativeFn fn) {
  add(qualname, spec, fn);
  m.attrs[intern(name)] = Value::of(VKind::Builtin, owned.back());
}

ModuleObj& nn_module(Registry& r) {
  Value& nn = r.globals[intern("nn")];
  if (nn.kind != VKind::Module) {
    auto m = std::make_shared<ModuleObj>();
    m->name = "tinygrad.nn";
    nn = Value::of(VKind::Module, m);
  }
  return nn.as<ModuleObj>();
}

const Registry& registry() {
  static const Registry* r = [] {
    auto* reg = new Registry();
    register_builtins(*reg);
    register_tensor(*reg);
    register_state(*reg); // after register_tensor: it adds nn.state to the `nn` module
    register_optim(*reg); // and nn.optim
    return reg;
  }();
  return *r;
}

// ---- interpreter ----

Interp::Interp(std::ostream& out, int recursion_limit)
    : print_stream(out), reg_(registry()), recursion_limit_(recursion_limit) {
  for (auto& [sym, v] : reg_.globals) {
    if (size_t(sym) >= builtins_.size()) builtins_.resize(sym + 1);
    builtins_[sym] = v;
  }
  for (auto& v : builtins_)
    if (v.kind == VKind::None && !v.obj) v.kind = VKind::Unbound;
}

std::vector<std::pair<std::string, Value>> Interp::module_variables() const {
  std::vector<std::pair<std::string, Value>> out;
  for (size_t s = 0; s < globals_.size(); ++s)
    if (globals_[s].kind != VKind::Unbound) out.emplace_back(sym_name(Sym(s)), globals_[s]);
  return out;
}

void Interp::run(const Program& program) {
  for (const auto& s : program.body) {
    Flow f = exec(s.get());
    if (f == Flow::Return) throw PyError("SyntaxError", "'return' outside function", s->line);
    if (f == Flow::Break) throw PyError("SyntaxError", "'break' outside loop", s->line);
    if (f == Flow::Continue) throw PyError("SyntaxError", "'continue' not properly in loop", s->line);
  }
}

Value Interp::load(const NameRef& r) {
  switch (r.scope) {
  case Scope::Local: {
    const Value& v = frame_->slots[r.slot];
    if (v.kind == VKind::Unbound)
      raise("UnboundLocalError",
            "cannot access local variable '" + sym_name(r.sym) + "' where it is not associated with a value");
    return v;
  }
  case Scope::Enclosing: {
    Frame* f = frame_.get();
    for (int d = 0; d < r.depth; ++d) f = f->parent.get();
    const Value& v = f->slots[r.slot];
    if (v.kind == VKind::Unbound)
      raise("NameError", "cannot access free variable '" + sym_name(r.sym) +
                             "' where it is not associated with a value in enclosing scope");
    return v;
  }
  case Scope::Global:
    if (size_t(r.sym) < globals_.size() && globals_[r.sym].kind != VKind::Unbound) return globals_[r.sym];
    if (size_t(r.sym) < builtins_.size() && builtins_[r.sym].kind != VKind::Unbound) return builtins_[r.sym];
    raise("NameError", "name '" + sym_name(r.sym) + "' is not defined");
  }
  return Value();
}

void Interp::store(const NameRef& r, Value v) {
  switch (r.scope) {
  case Scope::Local:
    frame_->slots[r.slot] = std::move(v);
    return;
  case Scope::Enclosing: {
    Frame* f = frame_.get();
    for (int d = 0; d < r.depth; ++d) f = f->parent.get();
    f->slots[r.slot] = std::move(v);
    return;
  }
  case Scope::Global:
    if (size_t(r.sym) >= globals_.size()) {
      Value unbound;
      unbound.kind = VKind::Unbound;
      globals_.resize(r.sym + 1, unbound);
    }
    globals_[r.sym] = std::move(v);
    return;
  }
}

Interp::Flow Interp::exec_block(const std::vector<NodePtr>& body) {
  for (const auto& s : body) {
    Flow f = exec(s.get());
    if (f != Flow::Normal) return f;
  }
  return Flow::Normal;
}

Interp::Flow Interp::exec(const Node* s) {
  try {
    return exec_inner(s);
  } catch (PyError& e) {
    if (e.line == 0) e.line = s->line;
    throw;
  } catch (Error& e) {
    throw PyError(e.kind(), e.what(), s->line);
  } catch (std::bad_alloc&) {
    throw PyError("MemoryError", "out of memory", s->line);
  } catch (std::exception& e) {
    throw PyError("RuntimeError", std::string("internal error: ") + e.what(), s->line);
  }
}

Interp::Flow Interp::exec_inner(const Node* s) {
  switch (s->kind) {
  case NK::ExprStmt: {
    Value v = eval(s->kids[0].get());
    if (!frame_ && v.kind != VKind::None) last_expression = std::move(v);
    return Flow::Normal;
  }
  case NK::Assign: {
    Value v = eval(s->kids.back().get());
    for (size_t k = 0; k + 1 < s->kids.size(); ++k) assign(s->kids[k].get(), v);
    return Flow::Normal;
  }
  case NK::AugAssign:
    aug_assign(s);
    return Flow::Normal;
  case NK::If: {
    if (truthy(eval(s->kids[0].get()))) return exec_block(s->body);
    return exec_block(s->orelse);
  }
  case NK::For: {
    Value it = eval(s->kids[1].get());
    auto body = [&](Value v) -> int { // 0 go on, 1 break, 2 return
      assign(s->kids[0].get(), v);
      Flow f = exec_block(s->body);
      if (f == Flow::Break) return 1;
      if (f == Flow::Return) return 2;
      return 0;
    };
    int r = 0;
    if (it.kind == VKind::Range) {
      RangeObj rg = it.as<RangeObj>();
      for (int64_t k = 0, n = rg.size(); k < n && r == 0; ++k) r = body(Value::integer(rg.at(k)));
    } else if (it.kind == VKind::List) {
      // by index, so appending while iterating behaves as in Python
      for (size_t k = 0; k < it.items().size() && r == 0; ++k) r = body(it.items()[k]);
    } else {
      std::vector<Value> items = iterate(it);
      for (size_t k = 0; k < items.size() && r == 0; ++k) r = body(items[k]);
    }
    return r == 2 ? Flow::Return : Flow::Normal;
  }
  case NK::While: {
    while (truthy(eval(s->kids[0].get()))) {
      Flow f = exec_block(s->body);
      if (f == Flow::Break) break;
      if (f == Flow::Return) return f;
    }
    return Flow::Normal;
  }
  case NK::Def: {
    Value f = make_function(s->func);
    for (auto d = s->kids.rbegin(); d != s->kids.rend(); ++d) { // the nearest decorator first
      CallArgs args;
      args.pos.push_back(std::move(f));
      f = call(eval(d->get()), args);
    }
    store(s->ref, f);
    return Flow::Normal;
  }
  case NK::Return:
    return_value_ = s->kids.empty() ? Value() : eval(s->kids[0].get());
    return Flow::Return;
  case NK::Pass:
  case NK::Global: // (the resolver placed the names)
  case NK::Nonlocal:
    return Flow::Normal;
  case NK::Del:
    for (auto& t : s->kids) del(t.get());
    return Flow::Normal;
  case NK::Break:
    return Flow::Break;
  case NK::Continue:
    return Flow::Continue;
  case NK::With:
    return exec_with(s);
  case NK::Class:
    exec_class(s);
    return Flow::Normal;
  case NK::Try:
    return exec_try(s);
  case NK::Raise:
    exec_raise(s);
  case NK::Assert:
    if (!truthy(eval(s->kids[0].get())))
      raise("AssertionError", s->kids.size() > 1 ? str(eval(s->kids[1].get())) : "");
    return Flow::Normal;
  default:
    raise("SyntaxError", "not a statement");
  }
}

namespace {

// Python's built-in exception classes above `kind`, nearest first (Exception catches them all)
const char* exception_parent(const std::string& kind) {
  static const std::pair<const char*, const char*> parents[] = {{"ZeroDivisionError", "ArithmeticError"},
                                                                {"OverflowError", "ArithmeticError"},
                                                                {"FloatingPointError", "ArithmeticError"},
                                                                {"IndexError", "LookupError"},
                                                                {"KeyError", "LookupError"},
                                                                {"NotImplementedError", "RuntimeError"},
                                                                {"RecursionError", "RuntimeError"},
                                                                {"ModuleNotFoundError", "ImportError"},
                                                                {"UnicodeError", "ValueError"},
                                                                {"FileNotFoundError", "OSError"},
                                                                {"PermissionError", "OSError"},
                                                                {"IsADirectoryError", "OSError"},
                                                                {"IndentationError", "SyntaxError"},
                                                                {"UnboundLocalError", "NameError"}};
  for (auto [child, parent] : parents)
    if (kind == child) return parent;
  return nullptr;
}

bool exception_matches(std::string kind, const std::string& handler) {
  if (handler == "Exception" || handler == "BaseException") return true;
  for (const char* k = kind.c_str(); k; k = exception_parent(kind)) {
    kind = k;
    if (kind == handler) return true;
  }
  return false;
}

} // namespace

// try/except/else/finally as Python runs it. An error is matched by its class name (and
// Python's hierarchy of built-in exceptions); the handler's `as` name gets the message.
// finally runs on every way out; a return, break or continue in it replaces that way out.
Interp::Flow Interp::exec_try(const Node* s) {
  const Node* fin = s->kids.back()->kind == NK::Finally ? s->kids.back().get() : nullptr;
  Flow f = Flow::Normal;
  try {
    bool handled = false;
    try {
      f = exec_block(s->body);
    } catch (PyError& e) {
      const Node* h = nullptr;
      for (const auto& k : s->kids) {
        if (k->kind != NK::Except) continue;
        bool match = k->arg_kinds.empty();
        for (Sym c : k->arg_kinds) match = match || exception_matches(e.kind(), sym_name(c));
        if (match) {
          h = k.get();
          break;
        }
      }
      if (!h) throw;
      handled = true;
      if (h->kids[0]) store(h->kids[0]->ref, Value::str(e.what()));
      handling_.push_back(e);
      try {
        f = exec_block(h->body);
      } catch (...) {
        handling_.pop_back();
        throw;
      }
      handling_.pop_back();
    }
    if (!handled && f == Flow::Normal) f = exec_block(s->orelse);
  } catch (PyError&) {
    if (fin) {
      Flow ff = exec_block(fin->body);
      if (ff != Flow::Normal) return ff; // (Python: the error is dropped)
    }
    throw;
  }
  if (fin) {
    Value saved = return_value_;
    Flow ff = exec_block(fin->body);
    if (ff != Flow::Normal) return ff;
    return_value_ = saved;
  }
  return f;
}

// raise: a class of exception or a call of one (its message: the one argument's str, or the
// arguments' repr as a tuple), the message of the exception being handled (`except E as e:
// raise e`), or nothing: the exception being handled again.
void Interp::exec_raise(const Node* s) {
  if (s->kids.empty()) {
    if (handling_.empty()) throw PyError("RuntimeError", "No active exception to reraise", s->line);
    throw handling_.back();
  }
  const Node* x = s->kids[0].get();
  const Node* cls = x->kind == NK::Call ? x->kids[0].get() : x;
  if (cls->kind == NK::Name && cls->ref.scope == Scope::Global) {
    const std::string& kind = sym_name(cls->ref.sym);
    bool builtin_class = kind == "Exception" || kind == "BaseException" || exception_parent(kind) ||
                         (kind.size() > 5 && (kind.rfind("Error") == kind.size() - 5));
    if (builtin_class) {
      std::string message;
      if (x->kind == NK::Call) {
        CallArgs args;
        collect_args(x, 1, args);
        if (!args.kw.empty()) raise("TypeError", kind + "() takes no keyword arguments");
        if (args.pos.size() == 1) message = str(args.pos[0]);
        if (args.pos.size() > 1) message = repr(Value::tuple(args.pos));
      }
      throw PyError(kind, message, s->line);
    }
  }
  Value v = eval(x);
  if (v.kind == VKind::Str && !handling_.empty() && v.s() == handling_.back().what()) throw handling_.back();
  raise("TypeError", "exceptions must derive from BaseException");
}

// `with EXPR [as TARGET]: body`, as Python runs it: __enter__ (its value bound to TARGET), the
// body, then __exit__(None, None, None), also when the body returns, breaks or continues (that
// flow goes on after __exit__) or raises (the error goes on; .tg has no exception objects to
// pass, and no context manager here suppresses one).
Interp::Flow Interp::exec_with(const Node* s) {
  Value mgr = eval(s->kids[0].get());
  auto special = [&](const char* name) -> std::optional<Value> {
    if (mgr.kind != VKind::Module) return std::nullopt;
    if (const auto& cls = mgr.as<ModuleObj>().cls) // a script class: looked up on the class
      return cls->attrs.count(intern(name)) ? std::optional<Value>(get_attr(mgr, intern(name)))
                                            : std::nullopt;
    const auto* methods = mgr.as<ModuleObj>().methods;
    if (!methods || !methods->count(intern(name))) return std::nullopt;
    return get_attr(mgr, intern(name));
  };
  std::string type = type_name(mgr);
  if (mgr.kind == VKind::Module) {
    const ModuleObj& m = mgr.as<ModuleObj>();
    if (m.instance)
      type = m.name;
    else if (m.name == "Tensor" || m.name == "dtypes")
      type = "type"; // classes in tinygrad
  }
  std::optional<Value> enter = special("__enter__");
  if (!enter) raise("TypeError", "'" + type + "' object does not support the context manager protocol");
  std::optional<Value> exit = special("__exit__");
  if (!exit)
    raise("TypeError",
          "'" + type + "' object does not support the context manager protocol (missed __exit__ method)");
  CallArgs no_args;
  Value entered = call(*enter, no_args);
  auto call_exit = [&] {
    CallArgs args;
    args.pos = {Value(), Value(), Value()};
    Value saved = return_value_; // a `return` in the body has set it
    call(*exit, args);
    return_value_ = std::move(saved);
  };
  Flow f;
  try {
    if (s->kids.size() > 1) assign(s->kids[1].get(), entered);
    f = exec_block(s->body);
  } catch (...) {
    call_exit();
    throw;
  }
  call_exit();
  return f;
}

// `class Name: body`: the body runs once in a frame of its own (so that its defs close over
// the scope around the class, not over the class body); what it binds becomes the class's
// attributes, in the order Python's class __dict__ would have them.
void Interp::exec_class(const Node* s) {
  const FuncDef& def = *s->func;
  for (const auto& b : s->kids) {
    Value base = eval(b.get()); // an undefined base is a NameError, as in Python
    raise("TypeError", "class " + def.name + "(" +
                           (base.kind == VKind::Module ? base.as<ModuleObj>().name : type_name(base)) +
                           "): base classes other than object are not supported in .tg scripts");
  }
  auto cls = std::make_shared<ModuleObj>();
  cls->name = def.name;
  cls->is_class = true;
  auto frame = std::make_shared<Frame>();
  {
    FrameScope scope(frame_, frame, def.nlocals, frame_);
    for (const auto& st : def.body) {
      Flow f = exec(st.get());
      if (f == Flow::Return) throw PyError("SyntaxError", "'return' outside function", st->line);
      if (f == Flow::Break) throw PyError("SyntaxError", "'break' outside loop", st->line);
      if (f == Flow::Continue) throw PyError("SyntaxError", "'continue' not properly in loop", st->line);
    }
  }
  for (int k = 0; k < def.nlocals; ++k)
    if (frame->slots[k].kind != VKind::Unbound) cls->set_attr(def.local_syms[k], frame->slots[k]);
  store(s->ref, Value::of(VKind::Module, std::move(cls)));
}

// Net(args): a fresh instance, then Net.__init__(instance, args) when the class defines one.
Value Interp::instantiate(const Value& cls_value, CallArgs& args) {
  auto cls = std::static_pointer_cast<ModuleObj>(cls_value.obj);
  auto inst = std::make_shared<ModuleObj>();
  inst->name = cls->name;
  inst->instance = true;
  inst->cls = cls;
  Value self = Value::of(VKind::Module, inst);
  auto it = cls->attrs.find(intern("__init__"));
  if (it == cls->attrs.end()) {
    if (!args.pos.empty() || !args.kw.empty()) raise("TypeError", cls->name + "() takes no arguments");
    return self;
  }
  Value init = it->second;
  if (init.kind == VKind::Function) args.pos.insert(args.pos.begin(), self);
  Value r = call(init, args);
  if (!r.is_none()) raise("TypeError", "__init__() should return None, not '" + type_name(r) + "'");
  return self;
}

// `del target`: a name becomes unbound (an error if it is not bound), an item or a slice of a
// list, or a key of a dict, is removed.
void Interp::del(const Node* t) {
  if (t->kind == NK::Name) {
    load(t->ref); // (NameError / UnboundLocalError for a name not bound)
    Value unbound;
    unbound.kind = VKind::Unbound;
    store(t->ref, unbound);
    return;
  }
  if (t->kind == NK::Attr) raise("AttributeError", "tg: deleting an attribute is not supported");
  Value obj = eval(t->kids[0].get());
  Value idx = eval(t->kids[1].get());
  if (obj.kind == VKind::List) {
    auto& items = obj.items();
    if (idx.kind == VKind::Slice) {
      int64_t start, stop, step;
      slice_indices(idx.as<SliceObj>(), int64_t(items.size()), start, stop, step);
      std::vector<bool> drop(items.size(), false);
      for (int64_t k = start; step > 0 ? k < stop : k > stop; k += step) drop[size_t(k)] = true;
      std::vector<Value> kept;
      for (size_t k = 0; k < items.size(); ++k)
        if (!drop[k]) kept.push_back(items[k]);
      items = std::move(kept);
      return;
    }
    if (!idx.is_intlike())
      raise("TypeError", "list indices must be integers or slices, not " + type_name(idx));
    int64_t i = idx.as_int(), n = int64_t(items.size());
    if (i < 0) i += n;
    if (i < 0 || i >= n) raise("IndexError", "list assignment index out of range");
    items.erase(items.begin() + i);
    return;
  }
  if (obj.kind == VKind::Dict) {
    if (!obj.as<DictObj>().erase(dict_key(idx))) raise("KeyError", repr(idx));
    return;
  }
  raise("TypeError", "'" + type_name(obj) + "' object doesn't support item deletion");
}

void Interp::assign(const Node* t, const Value& v) {
  switch (t->kind) {
  case NK::Name:
    store(t->ref, v);
    return;
  case NK::TupleExpr:
  case NK::ListExpr: {
    if (!(v.is_seq() || v.kind == VKind::Str || v.kind == VKind::Range || v.kind == VKind::Tensor ||
          v.kind == VKind::Bytes))
      raise("TypeError", "cannot unpack non-iterable " + type_name(v) + " object");
    std::vector<Value> items = iterate(v);
    size_t n = t->kids.size();
    size_t star = n;
    for (size_t k = 0; k < n; ++k)
      if (t->kids[k]->kind == NK::Starred) star = k;
    if (star < n) { // a, *b, c = ...: b gets the middle as a list
      if (items.size() < n - 1)
        raise("ValueError", "not enough values to unpack (expected at least " + std::to_string(n - 1) +
                                ", got " + std::to_string(items.size()) + ")");
      size_t after = n - 1 - star;
      for (size_t k = 0; k < star; ++k) assign(t->kids[k].get(), items[k]);
      assign(t->kids[star]->kids[0].get(),
             Value::list(std::vector<Value>(items.begin() + long(star), items.end() - long(after))));
      for (size_t k = 0; k < after; ++k) assign(t->kids[star + 1 + k].get(), items[items.size() - after + k]);
      return;
    }
    if (items.size() > n)
      raise("ValueError", "too many values to unpack (expected " + std::to_string(n) + ")");
    if (items.size() < n)
      raise("ValueError", "not enough values to unpack (expected " + std::to_string(n) + ", got " +
                              std::to_string(items.size()) + ")");
    for (size_t k = 0; k < n; ++k) assign(t->kids[k].get(), items[k]);
    return;
  }
  case NK::Subscript: {
    Value obj = eval(t->kids[0].get());
    Value idx = eval(t->kids[1].get());
    if (obj.kind == VKind::List) {
      if (idx.kind == VKind::Slice) { // l[a:b] = seq replaces the slice; an extended one needs as many
        std::vector<Value> repl = iterate(v);
        auto& items = obj.items();
        int64_t start, stop, step;
        slice_indices(idx.as<SliceObj>(), int64_t(items.size()), start, stop, step);
        if (step == 1) {
          stop = std::max(stop, start);
          items.erase(items.begin() + start, items.begin() + stop);
          items.insert(items.begin() + start, repl.begin(), repl.end());
          return;
        }
        int64_t n = step > 0 ? std::max<int64_t>(0, (stop - start + step - 1) / step)
                             : std::max<int64_t>(0, (start - stop - step - 1) / -step);
        if (int64_t(repl.size()) != n)
          raise("ValueError", "attempt to assign sequence of size " + std::to_string(repl.size()) +
                                  " to extended slice of size " + std::to_string(n));
        for (int64_t k = 0; k < n; ++k) items[size_t(start + k * step)] = repl[size_t(k)];
        return;
      }
      if (!idx.is_intlike())
        raise("TypeError", "list indices must be integers or slices, not " + type_name(idx));
      auto& items = obj.items();
      int64_t i = idx.as_int(), n = int64_t(items.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) raise("IndexError", "list assignment index out of range");
      items[i] = v;
      return;
    }
    if (obj.kind == VKind::Dict) {
      obj.as<DictObj>().set(dict_key(idx), v);
      return;
    }
    if (obj.kind == VKind::Tensor) {
      tensor_setitem(obj, idx, v);
      return;
    }
    raise("TypeError", "'" + type_name(obj) + "' object does not support item assignment");
  }
  case NK::Attr: {
    Value obj = eval(t->kids[0].get());
    if (obj.kind == VKind::Tensor && sym_name(t->sym) == "grad") {
      if (!v.is_none() && v.kind != VKind::Tensor)
        raise("TypeError", "grad must be a Tensor or None, not '" + type_name(v) + "'");
      obj.t().set_grad(v.is_none() ? nullptr : std::make_shared<Tensor>(v.t()));
      return;
    }
    if (obj.kind == VKind::Tensor && sym_name(t->sym) == "requires_grad") {
      if (v.is_none())
        obj.t().set_requires_grad(std::nullopt);
      else
        obj.t().set_requires_grad(truthy(v));
      return;
    }
    if (obj.kind == VKind::Module && tensor_flag(obj.as<ModuleObj>(), t->sym, nullptr)) {
      set_tensor_flag(obj.as<ModuleObj>(), t->sym, v); // Tensor.training = True, Tensor.no_grad = True
      return;
    }
    if (obj.kind == VKind::Module && (obj.as<ModuleObj>().instance || obj.as<ModuleObj>().is_class)) {
      obj.as<ModuleObj>().set_attr(t->sym, v);
      return;
    }
    raise("AttributeError",
          "'" + type_name(obj) + "' object attribute '" + sym_name(t->sym) + "' is read-only");
  }
  default:
    raise("SyntaxError", "cannot assign to expression");
  }
}

void Interp::aug_assign(const Node* s) {
  const Node* t = s->kids[0].get();
  Value cur;
  Value obj, idx;
  if (t->kind == NK::Name) {
    cur = load(t->ref);
  } else if (t->kind == NK::Subscript) {
    obj = eval(t->kids[0].get());
    idx = eval(t->kids[1].get());
    cur = subscript(obj, idx);
  } else {
    obj = eval(t->kids[0].get());
    cur = get_attr(obj, t->sym);
  }
  Value rhs = eval(s->kids[1].get());
  Value result;
  if (cur.kind == VKind::List && s->op == PyOp::Add) {
    std::vector<Value> more = iterate(rhs);
    auto& items = cur.items();
    items.insert(items.end(), more.begin(), more.end());
    result = cur;
  } else if (cur.kind == VKind::Tensor && s->op != PyOp::FloorDiv && s->op != PyOp::Mod &&
             s->op != PyOp::BitAnd && s->op != PyOp::BitOr) {
    // Tensor.__iadd__ & co: self.assign(...), which mutates the object every alias sees.
    Value r = binary(s->op, cur, rhs);
    cur.t().assign(Operand(r.t()));
    result = cur;
  } else {
    result = binary(s->op, cur, rhs);
  }
  if (t->kind == NK::Name) {
    store(t->ref, result);
  } else if (t->kind == NK::Subscript && obj.kind == VKind::Dict) {
    obj.as<DictObj>().set(dict_key(idx), result);
  } else if (t->kind == NK::Subscript && obj.kind == VKind::Tensor) {
    tensor_setitem(obj, idx, result); // t[i] += x: __iadd__ on the view, then __setitem__
  } else if (t->kind == NK::Subscript) {
    if (obj.kind != VKind::List)
      raise("TypeError", "'" + type_name(obj) + "' object does not support item assignment");
    Node fake(NK::Subscript, s->line);
    auto& items = obj.items();
    int64_t i = idx.as_int(), n = int64_t(items.size());
    if (i < 0) i += n;
    items.at(size_t(i)) = result;
  } else {
    if (obj.kind == VKind::Module && (obj.as<ModuleObj>().instance || obj.as<ModuleObj>().is_class)) {
      obj.as<ModuleObj>().set_attr(t->sym, result);
      return;
    }
    raise("AttributeError",
          "'" + type_name(obj) + "' object attribute '" + sym_name(t->sym) + "' is read-only");
  }
}

Interp::~Interp() {
  for (const std::weak_ptr<Frame>& w : captured_)
    if (std::shared_ptr<Frame> f = w.lock()) {
      std::vector<Value> slots = std::move(f->slots); // destroyed after f is detached
      f->parent.reset();
    }
}

Value Interp::make_function(const std::shared_ptr<FuncDef>& def) {
  auto f = std::make_shared<FunctionObj>();
  f->def = def.get();
  f->closure = frame_;
  if (frame_ && (captured_.empty() || captured_.back().lock() != frame_)) captured_.push_back(frame_);
  f->spec.names = def->params;
  f->spec.vararg = def->vararg_slot;
  f->spec.kwarg = def->kwarg_slot;
  Value unbound;
  unbound.kind = VKind::Unbound;
  f->spec.defaults.assign(def->params.size(), unbound);
  for (size_t k = 0; k < def->defaults.size(); ++k)
    if (def->defaults[k]) f->spec.defaults[k] = eval(def->defaults[k].get());
  return Value::of(VKind::Function, std::move(f));
}

namespace {
struct DepthGuard {
  int& d;
  DepthGuard(int& depth, int limit) : d(depth) {
    if (++d > limit) {
      --d;
      raise("RecursionError", "maximum recursion depth exceeded");
    }
  }
  ~DepthGuard() { --d; }
};
} // namespace

// Frames a traceback keeps (a runaway recursion would otherwise keep a thousand).
constexpr size_t kTracebackFrames = 64;

Value Interp::call_function(const FunctionObj& f, CallArgs& args) {
  DepthGuard guard(depth_, recursion_limit_);
  auto frame = std::make_shared<Frame>();
  bind_arguments(f.def->name, f.spec, args, frame->slots);
  FrameScope scope(frame_, std::move(frame), f.def->nlocals, f.closure);
  Flow fl;
  try {
    fl = exec_block(f.def->body);
  } catch (PyError& e) { // a traceback frame; the caller's statement gives the next line
    if (e.calls.size() < kTracebackFrames) e.calls.emplace_back(f.def->name, e.line);
    e.line = 0;
    throw;
  }
  if (fl == Flow::Break || fl == Flow::Continue) raise("SyntaxError", "'break' outside loop");
  if (fl != Flow::Return) return Value();
  Value r = std::move(return_value_);
  return_value_ = Value();
  return r;
}

Value Interp::call_builtin(const Builtin& b, CallArgs& args) {
  std::vector<Value> bound;
  bind_arguments(b.qualname, b.spec, args, bound);
  if (b.device_param < 0) return b.fn(*this, bound);
  Value device = bound[size_t(b.device_param)];
  check_device(b.qualname, device);
  std::vector<Value> saved = bound;
  Value out = b.fn(*this, bound);
  if (!b.creates_on_device || out.kind != VKind::Tensor) return out;
  if (device.is_none()) return out;
  // A random tensor on several devices is one draw per device (numpy's generator): the call
  // again for each device after the first.
  if ((device.kind == VKind::Tuple || device.kind == VKind::List) && b.draws && !device.items().empty()) {
    std::vector<std::string> devs;
    for (const Value& d : device.items()) devs.push_back(graph_device_name(d.s()));
    bool first = true;
    Tensor t = draw_placed(
        [&] {
          if (first) return first = false, out.t();
          std::vector<Value> again = saved;
          return b.fn(*this, again).t();
        },
        devs);
    return Value::tensor(t);
  }
  return place_on_device(out, device);
}

void check_device(const std::string& qualname, const Value& device) {
  if (device.is_none()) return;
  if (device.kind == VKind::Tuple || device.kind == VKind::List) {
    for (const Value& d : device.items()) check_device(qualname, d);
    return;
  }
  if (device.kind != VKind::Str)
    raise("TypeError", qualname + ": device must be a str, not " + type_name(device));
  const std::string& name = device.s();
  std::string c = canonical_device_name(name);
  if (c.substr(0, c.find(':')) == "CLANG") return;
  raise("NotImplementedError",
        qualname + "('" + name +
            "'): a tg program runs on one device type, which tg-codegen --device picks; the "
            "script names it Device.DEFAULT (\"CLANG\"), and its devices CLANG:1, CLANG:2, ...");
}

Value Interp::call(const Value& f, CallArgs& args) {
  switch (f.kind) {
  case VKind::Function:
    return call_function(f.as<FunctionObj>(), args);
  case VKind::Builtin: {
    DepthGuard guard(depth_, recursion_limit_); // natives may call back (sorted key, map)
    return call_builtin(f.as<Builtin>(), args);
  }
  case VKind::Method: {
    auto& m = f.as<MethodObj>();
    args.pos.insert(args.pos.begin(), m.self);
    if (!m.fn) return call(m.func, args);
    return call_builtin(*m.fn, args);
  }
  case VKind::Module: {
    auto& m = f.as<ModuleObj>();
    if (m.call_self) return m.call_self(*this, f, args);
    if (m.is_class) return instantiate(f, args);
    if (m.cls) // a script class instance: its class's __call__
      if (auto it = m.cls->attrs.find(intern("__call__")); it != m.cls->attrs.end()) {
        if (it->second.kind == VKind::Function) args.pos.insert(args.pos.begin(), f);
        return call(it->second, args);
      }
    if (m.instance) raise("TypeError", "'" + m.name + "' object is not callable");
    if (m.ctor) return call_builtin(*m.ctor, args);
    raise("TypeError", "'module' object is not callable");
  }
  default:
    raise("TypeError", "'" + type_name(f) + "' object is not callable");
  }
}

void Interp::collect_args(const Node* n, size_t first, CallArgs& args) {
  size_t nargs = n->kids.size() - 1;
  args.pos.reserve(nargs);
  for (size_t k = 0; k < nargs; ++k) {
    Sym kind = n->arg_kinds[k];
    const Node* a = n->kids[k + 1].get();
    if (kind == kArgPositional) {
      args.pos.push_back(eval(a));
    } else if (kind == kArgStarred) {
      Value v = eval(a);
      if (!(v.is_seq() || v.kind == VKind::Range || v.kind == VKind::Str || v.kind == VKind::Tensor))
        raise("TypeError", "Value after * must be an iterable, not " + type_name(v));
      for (auto& x : iterate(v)) args.pos.push_back(std::move(x));
    } else if (kind == kArgDoubleStarred) {
      Value v = eval(a);
      if (v.kind != VKind::Dict)
        raise("TypeError", "argument after ** must be a mapping, not " + type_name(v));
      for (auto& [key, x] : v.as<DictObj>().items) {
        Sym s = intern(key);
        for (auto& [have, _] : args.kw)
          if (have == s) raise("TypeError", "got multiple values for keyword argument '" + key + "'");
        args.kw.emplace_back(s, x);
      }
    } else {
      args.kw.emplace_back(kind, eval(a));
    }
  }
  (void)first;
}

// obj.name(args): binds a native method directly, without a bound-method object.
Value Interp::call_method_node(const Node* n) {
  const Node* attr = n->kids[0].get();
  Value self = eval(attr->kids[0].get());
  const auto& table = reg_.methods[int(self.kind)];
  auto it = table.find(attr->sym);
  if (it != table.end()) {
    CallArgs args;
    args.pos.push_back(self);
    collect_args(n, 1, args);
    return call_builtin(*it->second, args);
  }
  Value f = get_attr(self, attr->sym);
  CallArgs args;
  collect_args(n, 1, args);
  return call(f, args);
}

Value Interp::list_comp(const Node* n) {
  DepthGuard guard(depth_, recursion_limit_);
  Value first_iter = eval(n->comps[0].iter.get());
  FrameScope scope(frame_, std::make_shared<Frame>(), n->func->nlocals, frame_);
  std::vector<Value> out;
  std::vector<Value> items = iterate(first_iter);
  const Comprehension& c = n->comps[0];
  for (auto& v : items) {
    assign(c.target.get(), v);
    bool ok = true;
    for (auto& cond : c.conds)
      if (!(ok = truthy(eval(cond.get())))) break;
    if (ok) comp_loop(n, 1, out);
  }
  return Value::list(std::move(out));
}

void Interp::comp_loop(const Node* n, size_t level, std::vector<Value>& out) {
  if (level == n->comps.size()) {
    out.push_back(eval(n->kids[0].get()));
    return;
  }
  const Comprehension& c = n->comps[level];
  for (auto& v : iterate(eval(c.iter.get()))) {
    assign(c.target.get(), v);
    bool ok = true;
    for (auto& cond : c.conds)
      if (!(ok = truthy(eval(cond.get())))) break;
    if (ok) comp_loop(n, level + 1, out);
  }
}

Value Interp::eval(const Node* n) {
  switch (n->kind) {
  case NK::Const:
    return n->value;
  case NK::Name:
    return load(n->ref);
  case NK::NamedExpr: {
    Value v = eval(n->kids[1].get());
    store(n->kids[0]->ref, v);
    return v;
  }
  case NK::Attr:
    return get_attr(eval(n->kids[0].get()), n->sym);
  case NK::Subscript: {
    Value obj = eval(n->kids[0].get());
    return subscript(obj, eval(n->kids[1].get()));
  }
  case NK::Call: {
    if (n->kids[0]->kind == NK::Attr) return call_method_node(n);
    Value f = eval(n->kids[0].get());
    CallArgs args;
    collect_args(n, 1, args);
    return call(f, args);
  }
  case NK::BinOp: {
    Value a = eval(n->kids[0].get());
    Value b = eval(n->kids[1].get());
    if (a.kind == VKind::Int && b.kind == VKind::Int) {
      int64_t r;
      if (n->op == PyOp::Add && !__builtin_add_overflow(a.i, b.i, &r)) return Value::integer(r);
      if (n->op == PyOp::Sub && !__builtin_sub_overflow(a.i, b.i, &r)) return Value::integer(r);
      if (n->op == PyOp::Mul && !__builtin_mul_overflow(a.i, b.i, &r)) return Value::integer(r);
    }
    return binary(n->op, a, b);
  }
  case NK::UnaryOp:
    return unary(n->op, eval(n->kids[0].get()));
  case NK::Not:
    return Value::boolean(!truthy(eval(n->kids[0].get())));
  case NK::And: {
    Value v;
    for (auto& k : n->kids)
      if (!truthy(v = eval(k.get()))) return v;
    return v;
  }
  case NK::Or: {
    Value v;
    for (auto& k : n->kids)
      if (truthy(v = eval(k.get()))) return v;
    return v;
  }
  case NK::Compare: {
    Value a = eval(n->kids[0].get());
    for (size_t k = 0; k < n->ops.size(); ++k) {
      Value b = eval(n->kids[k + 1].get());
      Value tensor_result;
      bool r = compare(n->ops[k], a, b, &tensor_result);
      if (tensor_result.kind == VKind::Tensor) {
        if (k + 1 == n->ops.size()) return tensor_result;
        truthy(tensor_result); // raises, as Python's chained `and` would
      }
      if (!r) return Value::boolean(false);
      a = std::move(b);
    }
    return Value::boolean(true);
  }
  case NK::IfExp:
    return truthy(eval(n->kids[1].get())) ? eval(n->kids[0].get()) : eval(n->kids[2].get());
  case NK::DictExpr: {
    Value d = make_dict();
    for (size_t k = 0; k + 1 < n->kids.size(); k += 2) {
      Value key = eval(n->kids[k].get());
      d.as<DictObj>().set(dict_key(key), eval(n->kids[k + 1].get()));
    }
    return d;
  }
  case NK::ListExpr:
  case NK::TupleExpr: {
    std::vector<Value> items;
    items.reserve(n->kids.size());
    for (auto& k : n->kids) {
      if (k->kind == NK::Starred) {
        for (auto& x : iterate(eval(k->kids[0].get()))) items.push_back(std::move(x));
      } else {
        items.push_back(eval(k.get()));
      }
    }
    return n->kind == NK::ListExpr ? Value::list(std::move(items)) : Value::tuple(std::move(items));
  }
  case NK::SliceExpr: {
    auto s = std::make_shared<SliceObj>();
    if (n->kids[0]) s->start = eval(n->kids[0].get());
    if (n->kids[1]) s->stop = eval(n->kids[1].get());
    if (n->kids[2]) s->step = eval(n->kids[2].get());
    return Value::of(VKind::Slice, std::move(s));
  }
  case NK::Lambda:
    return make_function(n->func);
  case NK::ListComp:
    return list_comp(n);
  case NK::DictComp: {
    Value d = make_dict(), pairs = list_comp(n);
    for (const Value& kv : pairs.items()) d.as<DictObj>().set(dict_key(kv.items()[0]), kv.items()[1]);
    return d;
  }
  case NK::Starred:
    raise("SyntaxError", "can't use starred expression here");
  default:
    raise("SyntaxError", "not an expression");
  }
}

} // namespace tg::script
