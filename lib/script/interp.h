// script layer, evaluator: walks the syntax tree with Python's semantics. Native functions
// (builtins, Tensor methods) are table entries with a Python parameter spec, bound by the same
// rules as a def (positional, keyword, defaults, *args) and Python's TypeError messages.
#pragma once
#include <functional>
#include <iosfwd>
#include <optional>
#include <set>
#include <unordered_map>

#include "script/ast.h"

namespace tg::script {

class Interp;

// A Python signature: "self, shape, *args", "axis=None, keepdim=False". Parameters after
// *args are keyword-only.
struct ParamSpec {
  std::vector<Sym> names;
  std::vector<Value> defaults; // per parameter; VKind::Unbound = required
  int vararg = -1;             // *args (named "*": a bare *, which takes no extra positionals)
  int kwarg = -1;              // **kwargs: a dict of the keywords no parameter names
  static ParamSpec parse(const std::string& spec); // defaults: None True False ints floats 'str'
};

struct CallArgs {
  std::vector<Value> pos;
  std::vector<std::pair<Sym, Value>> kw;
};

// Binds args to spec; out gets one value per parameter (the *args one a tuple).
void bind_arguments(const std::string& qualname, const ParamSpec& spec, CallArgs& args,
                    std::vector<Value>& out);

using NativeFn = Value (*)(Interp&, std::vector<Value>& args);

struct Builtin : Object {
  std::string qualname; // for messages: "Tensor.sum", "len"
  ParamSpec spec;
  NativeFn fn = nullptr;
  bool is_method = false;         // the first parameter is self (bound on attribute access)
  int device_param = -1;          // index of a `device` parameter: checked by check_device (one device)
  bool creates_on_device = false; // the tensor it returns is placed on that device
  bool draws = false;             // a random draw: one per device of a device tuple
};

// A program runs on one device type, the one tg-codegen --device picks; a script names its
// default device Device.DEFAULT ("CLANG") and its others CLANG:1, CLANG:2, ... A device argument
// (device=, .to(), .to_()) of another type is a NotImplementedError naming the call.
void check_device(const std::string& qualname, const Value& device);
// A tensor just made on the default device, moved to `device` (a str, or a tuple: replicated
// on each device, tensor.py's Tensor(data, device=tuple)).
Value place_on_device(const Value& t, const Value& device);

struct MethodObj : Object {
  Value self;
  const Builtin* fn = nullptr; // a native method, or
  Value func;                  // a def from a script class (fn == nullptr)
};

struct Frame {
  std::vector<Value> slots;
  std::shared_ptr<Frame> parent;
};

struct FunctionObj : Object {
  const FuncDef* def;
  ParamSpec spec;
  std::shared_ptr<Frame> closure;
};

using Getter = Value (*)(Interp&, const Value& self);

struct ModuleObj : Object {
  std::string name;
  std::unordered_map<Sym, Value> attrs;
  const Builtin* ctor = nullptr; // Tensor(...)
  // An object instance (an nn layer): attributes assignable, `obj(...)` calls call_self.
  bool instance = false;
  Value (*call_self)(Interp&, const Value& self, CallArgs& args) = nullptr;
  // An instance's methods (obj.step()), bound to the instance on attribute access.
  const std::unordered_map<Sym, const Builtin*>* methods = nullptr;
  // An instance's attributes in assignment order (Python's __dict__ order: state dicts use it).
  std::vector<Sym> order;
  // Script classes (`class Net:`): the class object has is_class, its attributes (methods and
  // class attributes) in attrs/order; an instance has instance and cls.
  bool is_class = false;
  std::shared_ptr<ModuleObj> cls;
  void set_attr(Sym name, Value v) {
    if (attrs.insert_or_assign(name, std::move(v)).second) order.push_back(name);
  }
};

// Methods and properties per value kind, and the global builtins. Built once.
struct Registry {
  std::unordered_map<Sym, const Builtin*> methods[int(VKind::Unbound) + 1];
  std::unordered_map<Sym, Getter> properties[int(VKind::Unbound) + 1];
  std::unordered_map<Sym, Value> globals;
  std::vector<std::shared_ptr<Builtin>> owned;

  const Builtin* add(const std::string& qualname, const std::string& spec, NativeFn fn,
                     bool is_method = false);
  void method(VKind kind, const std::string& name, const std::string& spec, NativeFn fn,
              const std::string& owner);
  void function(const std::string& name, const std::string& spec, NativeFn fn);
  // A builtin bound as an attribute of a module or class (math.sqrt, nn.Linear, Tensor.ones).
  void attribute(ModuleObj& m, const std::string& name, const std::string& qualname, const std::string& spec,
                 NativeFn fn);
};
const Registry& registry();
void register_builtins(Registry& r);  // builtins.cpp
void register_tensor(Registry& r);    // tensor_bindings.cpp
void register_state(Registry& r);     // state_bindings.cpp: dict methods, nn.state
void register_nn(Registry& r);        // nn_bindings.cpp
void register_optim(Registry& r);     // optim_bindings.cpp: nn.optim
void register_functools(Registry& r); // functools_module.cpp: functools.reduce, functools.partial
void register_symbolic(Registry& r);  // symbolic_bindings.cpp: Variable
void register_devices(Registry& r, ModuleObj& tinygrad, ModuleObj& device,
                      ModuleObj& helpers); // device_bindings.cpp
// tinygrad's get_state_dict walk: every tensor under `obj` with its dotted path (state_bindings.cpp).
// `seen` (optional): containers already walked, skipped when met again.
void state_dict_of(const Value& obj, const std::string& prefix,
                   std::vector<std::pair<std::string, Value>>& out, std::set<const void*>* seen = nullptr);
bool is_optimizer(const Value& v); // an nn.optim object (optim_bindings.cpp)
// + - * // % on symbolic dimensions (and ints with them); nullopt when op or operands don't apply.
std::optional<Value> symbol_op(PyOp op, const Value& a, const Value& b);
// < <= > >= with a symbol: tinygrad's LtNode, truthy unless false at every value.
std::optional<bool> symbol_compare(PyOp op, const Value& a, const Value& b);
std::string node_str(const Expr& e); // str(Variable): "<i[1-10=3]>"
bool is_callable(const Value& v);    // Python's callable() (builtins.cpp)
// The global module `nn` (tinygrad.nn), made on first use: layers, nn.state and nn.optim are
// registered into it from three files.
ModuleObj& nn_module(Registry& r);

struct RecordedInput {
  std::string name;
  Tensor tensor;
  bool requires_grad;
};

class Interp {
public:
  explicit Interp(std::ostream& print_stream, int recursion_limit = 1000);
  ~Interp();
  Interp(const Interp&) = delete;
  Interp& operator=(const Interp&) = delete;
  void run(const Program& program);

  Value eval(const Node* n);
  Value call(const Value& f, CallArgs& args);
  Value binary(PyOp op, const Value& a, const Value& b);
  Value unary(PyOp op, const Value& a);
  bool compare(PyOp op, const Value& a, const Value& b, Value* tensor_result);
  Value get_attr(const Value& obj, Sym name);
  Value subscript(const Value& obj, const Value& index);
  std::vector<Value> iterate(const Value& v); // list(v)

  std::ostream& print_stream;
  std::vector<RecordedInput> inputs;
  std::vector<std::pair<std::string, Tensor>> outputs;
  void define_global(const std::string& name, Value v); // a builtin-level name (`args`)
  std::optional<Value> last_expression;                 // module-level expression statement values (not None)
  // The script's module-level variables, in the order their names first appear in it.
  std::vector<std::pair<std::string, Value>> module_variables() const;

private:
  struct FrameScope;
  enum class Flow { Normal, Return, Break, Continue };
  Flow exec_block(const std::vector<NodePtr>& body);
  Flow exec(const Node* s);
  Flow exec_inner(const Node* s);
  Flow exec_with(const Node* s);
  Flow exec_try(const Node* s);
  [[noreturn]] void exec_raise(const Node* s);
  void exec_class(const Node* s);
  Value instantiate(const Value& cls, CallArgs& args);
  void assign(const Node* target, const Value& v);
  void del(const Node* target);
  void aug_assign(const Node* s);
  Value call_function(const FunctionObj& f, CallArgs& args);
  Value call_builtin(const Builtin& b, CallArgs& args);
  Value call_method_node(const Node* n);
  Value list_comp(const Node* n);
  void comp_loop(const Node* n, size_t level, std::vector<Value>& out);
  Value load(const NameRef& r);
  void store(const NameRef& r, Value v);
  Value make_function(const std::shared_ptr<FuncDef>& def);
  void collect_args(const Node* n, size_t first, CallArgs& args);

  const Registry& reg_;
  std::vector<Value> globals_;   // by Sym
  std::vector<Value> builtins_;  // by Sym
  std::shared_ptr<Frame> frame_; // null at module level
  // Frames a closure captured. A function stored in the frame it captured (a method in its
  // class body, a nested def) is a reference cycle; the destructor clears these frames so
  // that cycles are freed (no garbage collector, as Python's, would find them).
  std::vector<std::weak_ptr<Frame>> captured_;
  Value return_value_;
  std::vector<PyError> handling_; // the exceptions whose handlers run (a bare `raise` re-raises)
  int depth_ = 0, recursion_limit_;
};

// Conversions shared by the bindings (convert.cpp).
int64_t to_index(const Value& v, const char* what = "an integer");
double to_double(const Value& v, const std::string& what);
Scalar to_scalar(const Value& v);
std::optional<DType> to_dtype(const Value& v);
Tensor& to_tensor(const Value& v, const std::string& what);
Shape argfix(const Value& first, const Value& rest); // argfix(first, *rest)
Shape argfix_all(const Value& args);                 // argfix(*args)
Shape to_shape(const Value& v);                      // a tuple/list of ints (None: keep)
AxisArg to_axis(const Value& v);
std::vector<int> to_ints(const Value& v);
Operand to_operand(const Value& v);
void tensor_setitem(const Value& obj, const Value& index, const Value& v); // t[index] = v (operators.cpp)
Value tensor_from_data(const Value& data, std::optional<DType> dtype, std::optional<bool> requires_grad);
Value tensor_list(const std::vector<Tensor>& ts, bool tuple);
// Tensor.training / Tensor.no_grad (tensor_bindings.cpp): whether name is one of them on the
// Tensor class, its current value into *out; and an assignment to one, flag and attribute.
bool tensor_flag(const ModuleObj& cls, Sym name, Value* out);
// Raises NotImplementedError for a Tensor attribute of tinygrad 0.9.1 that tg lacks; else returns.
void refuse_unsupported_tensor_attr(const std::string& name);
void set_tensor_flag(ModuleObj& cls, Sym name, const Value& v);

} // namespace tg::script
