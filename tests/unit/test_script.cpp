// The .tg language: lexer, parser and evaluator with Python's semantics, through run_script.
#include <gtest/gtest.h>

#include <sstream>

#include "script/trace.h"

namespace tg {
namespace {

// Runs a script and returns what it printed.
std::string run(const std::string& src) {
  std::ostringstream out;
  ScriptOptions opt;
  opt.print_stream = &out;
  run_script(src + "\noutput('_unit', 0)\n", "t.tg", opt);
  return out.str();
}
std::string show(const std::string& expr) { return run("print((" + expr + "))"); }

// "LINE: Kind: message" of the error a script raises.
std::string error(const std::string& src) {
  std::ostringstream out;
  ScriptOptions opt;
  opt.print_stream = &out;
  try {
    run_script(src, "t.tg", opt);
  } catch (const ScriptError& e) {
    return std::to_string(e.line()) + ": " + e.kind() + ": " + e.message();
  }
  return "no error";
}

TEST(ScriptScalars, floor_division_and_modulo_follow_python_signs) {
  EXPECT_EQ(show("7 // 2, -7 // 2, 7 // -2, -7 // -2"), "(3, -4, -4, 3)\n");
  EXPECT_EQ(show("7 % 3, -7 % 3, 7 % -3, -7 % -3"), "(1, 2, -2, -1)\n");
  EXPECT_EQ(show("7.5 // 2, -7.5 // 2, -7.5 % 2, 7.5 % -2"), "(3.0, -4.0, 0.5, -0.5)\n");
}

TEST(ScriptScalars, true_division_is_float) {
  EXPECT_EQ(show("7 / 2, 4 / 2, 1 / 3"), "(3.5, 2.0, 0.3333333333333333)\n");
}

TEST(ScriptScalars, int_power_stays_int_and_negative_power_is_float) {
  EXPECT_EQ(show("2 ** 10, 2 ** -1, 2.0 ** 3, (-2) ** 3, -2 ** 2"), "(1024, 0.5, 8.0, -8, -4)\n");
  EXPECT_EQ(show("2 ** 3 ** 2"), "512\n"); // right associative
}

TEST(ScriptScalars, bool_is_an_int) {
  EXPECT_EQ(show("True + True, True * 3, True / 2, True & False, 3 & True"), "(2, 3, 0.5, False, 1)\n");
}

TEST(ScriptScalars, bit_operations) {
  EXPECT_EQ(show("6 & 3, 6 | 3, 6 ^ 3, 1 << 10, -16 >> 2, ~5"), "(2, 7, 5, 1024, -4, -6)\n");
}

TEST(ScriptScalars, float_repr_is_python_shortest) {
  EXPECT_EQ(show("0.1 + 0.2, 1e20, 1e-5, 1.5, 100.0, math.inf, -math.inf"),
            "(0.30000000000000004, 1e+20, 1e-05, 1.5, 100.0, inf, -inf)\n");
}

TEST(ScriptScalars, integer_literals) {
  EXPECT_EQ(show("0x1F, 0o17, 0b101, 1_000_000, 1.5e3, .5"), "(31, 15, 5, 1000000, 1500.0, 0.5)\n");
}

TEST(ScriptScalars, chained_comparisons) {
  EXPECT_EQ(show("1 < 2 < 3, 1 < 3 < 2, 3 > 2 == 2, 1 == 1.0, 'a' < 'b', (1, 2) < (1, 3)"),
            "(True, False, True, True, True, True)\n");
}

TEST(ScriptScalars, chained_comparison_evaluates_middle_once) {
  EXPECT_EQ(run("n = [0]\ndef f():\n  n[0] += 1\n  return 2\nprint(1 < f() < 3, n[0])"), "True 1\n");
}

TEST(ScriptScalars, and_or_short_circuit_and_return_operands) {
  EXPECT_EQ(show("0 or 5, 3 and 4, [] or 'x', None and 1/0, 1 or 1/0, not 0"),
            "(5, 4, 'x', None, 1, True)\n");
}

TEST(ScriptScalars, conditional_expression) {
  EXPECT_EQ(show("'a' if 0 else 'b', 1 if 2 else 3"), "('b', 1)\n");
}

TEST(ScriptScalars, membership_and_identity) {
  EXPECT_EQ(show("2 in [1, 2], 5 not in (1, 2), 'b' in 'abc', None is None, 1 is not None"),
            "(True, True, True, True, True)\n");
}

TEST(ScriptScalars, conversions) {
  EXPECT_EQ(show("int(3.9), int(-3.9), int('42'), float(2), float('1.5'), bool([]), bool(3), str(12)"),
            "(3, -3, 42, 2.0, 1.5, False, True, '12')\n");
}

TEST(ScriptScalars, builtins) {
  EXPECT_EQ(
      show("len([1, 2, 3]), abs(-3), abs(-2.5), min(3, 1, 2), max([4, 9, 2]), sum([1, 2, 3]), sum([0.5, 1])"),
      "(3, 3, 2.5, 1, 9, 6, 1.5)\n");
  EXPECT_EQ(show("list(range(2, 10, 3)), list(range(5, 0, -2)), len(range(10)), round(2.5), round(3.5)"),
            "([2, 5, 8], [5, 3, 1], 10, 2, 4)\n");
  EXPECT_EQ(show("list(zip([1, 2], 'ab')), list(enumerate('xy')), sorted([3, 1, 2]), reversed([1, 2])"),
            "([(1, 'a'), (2, 'b')], [(0, 'x'), (1, 'y')], [1, 2, 3], [2, 1])\n");
}

TEST(ScriptScalars, math_module) {
  EXPECT_EQ(show("math.sqrt(16), math.log(math.e), math.exp(0), math.prod((2, 3, 4)), math.ceil(2.1), "
                 "math.floor(-2.1)"),
            "(4.0, 1.0, 1.0, 24, 3, -3)\n");
  EXPECT_EQ(show("math.pi, math.isnan(math.nan), math.log(8, 2)"), "(3.141592653589793, True, 3.0)\n");
}

TEST(ScriptSequences, slicing_lists_tuples_and_strings) {
  EXPECT_EQ(show("[0, 1, 2, 3, 4][1:4], [0, 1, 2, 3, 4][::-1], [0, 1, 2, 3, 4][-2:], (0, 1, 2, 3)[::2]"),
            "([1, 2, 3], [4, 3, 2, 1, 0], [3, 4], (0, 2))\n");
  EXPECT_EQ(show("'hello'[1:3], 'hello'[-1], [0, 1, 2][5:], [0, 1, 2, 3][3:0:-1], (1,)[0]"),
            "('el', 'o', [], [3, 2, 1], 1)\n");
}

TEST(ScriptSequences, concatenation_and_repetition) {
  EXPECT_EQ(show("[1] + [2], (1,) + (2, 3), 'ab' * 2, [0] * 3, 2 * (1,)"),
            "([1, 2], (1, 2, 3), 'abab', [0, 0, 0], (1, 1))\n");
}

TEST(ScriptSequences, list_methods_mutate_in_place_and_alias) {
  EXPECT_EQ(
      run("a = [1]\nb = a\na.append(2)\nb += [3]\na.extend((4,))\nprint(a, a.pop(), a, a.index(2), b is a)"),
      "[1, 2, 3] 4 [1, 2, 3] 1 True\n");
}

TEST(ScriptSequences, list_comprehensions) {
  EXPECT_EQ(show("[x * y for x in range(3) for y in (1, 10) if x]"), "[1, 10, 2, 20]\n");
  EXPECT_EQ(show("sum(x for x in range(5))"), "10\n");
  EXPECT_EQ(run("x = 'outer'\ny = [x for x in range(2)]\nprint(x, y)"), "outer [0, 1]\n");
}

TEST(ScriptSequences, starred_arguments_and_displays) {
  EXPECT_EQ(
      run("def f(a, b, c): return a + b * c\nargs = (2, 3)\nprint(f(1, *args), [*args, 4], max(*args))"),
      "7 [2, 3, 4] 3\n");
}

TEST(ScriptStatements, tuple_unpacking_and_swaps) {
  EXPECT_EQ(run("a, b = 1, 2\na, b = b, a\n(c, d), e = [3, 4], 5\nx = y = 7\nprint(a, b, c, d, e, x, y)"),
            "2 1 3 4 5 7 7\n");
}

TEST(ScriptStatements, augmented_assignment) {
  EXPECT_EQ(
      run("a = 5\na += 2\na *= 3\na //= 4\na **= 2\na -= 1\na %= 7\nl = [1, 2]\nl[1] += 5\nprint(a, l)"),
      "3 [1, 7]\n");
}

TEST(ScriptStatements, for_over_range_lists_and_tuples_with_break_continue) {
  EXPECT_EQ(run("s = 0\nfor i in range(10):\n  if i == 2: continue\n  if i == 5: break\n  s += i\n"
                "for x in [10, 20]: s += x\nfor a, b in ((1, 2), (3, 4)):\n  s += a * b\nprint(s)"),
            "52\n");
}

TEST(ScriptStatements, if_elif_else) {
  EXPECT_EQ(
      run("def sign(x):\n  if x > 0:\n    return 1\n  elif x < 0:\n    return -1\n  else:\n    return 0\n"
          "print(sign(5), sign(-2), sign(0))"),
      "1 -1 0\n");
}

TEST(ScriptStatements, while_loop) { EXPECT_EQ(run("i = 0\nwhile i < 5:\n  i += 2\nprint(i)"), "6\n"); }

TEST(ScriptStatements, with_sets_the_tensor_flags_and_restores_them) {
  EXPECT_EQ(run("print(Tensor.training)\nwith Tensor.train() as c:\n  print(Tensor.training, c)\n"
                "  with Tensor.train(mode=False):\n    print(Tensor.training)\n  print(Tensor.training)\n"
                "print(Tensor.training)"),
            "False\nTrue None\nFalse\nTrue\nFalse\n");
  EXPECT_EQ(run("with Tensor.train(), (Tensor.inference_mode()):\n  print(Tensor.training, Tensor.no_grad)\n"
                "print(Tensor.training, Tensor.no_grad)"),
            "True True\nFalse False\n");
  EXPECT_EQ(
      run("with (Tensor.train(1), Tensor.inference_mode(0),):\n  print(Tensor.training, Tensor.no_grad)"),
      "1 0\n");
}

TEST(ScriptStatements, with_exit_runs_on_return_break_continue_and_errors) {
  EXPECT_EQ(
      run("def f():\n  with Tensor.train() as c:\n    return Tensor.training\nprint(f(), Tensor.training)"),
      "True False\n");
  EXPECT_EQ(run("n = 0\nfor i in range(4):\n  with Tensor.inference_mode():\n    if i == 2:\n      break\n"
                "    n += 1\n    continue\nprint(n, Tensor.no_grad)"),
            "2 False\n");
  EXPECT_EQ(run("def g():\n  with Tensor.train() as c:\n    pass\n  return c\nprint(g())"), "None\n");
  EXPECT_EQ(error("with Tensor.train():\n  x = 1\n  y = x / 0"), "3: ZeroDivisionError: division by zero");
  EXPECT_EQ(run("print(Tensor.training)"), "False\n");
}

TEST(ScriptStatements, with_needs_a_context_manager) {
  EXPECT_EQ(error("x = 1\nwith 3:\n  pass"),
            "2: TypeError: 'int' object does not support the context manager protocol");
  EXPECT_EQ(error("with Tensor:\n  pass"),
            "1: TypeError: 'type' object does not support the context manager protocol");
  EXPECT_EQ(error("with Tensor.train() as 1:\n  pass"), "1: SyntaxError: cannot assign to literal");
  EXPECT_EQ(error("with Tensor.train(),:\n  pass"), "1: SyntaxError: invalid syntax near ':'");
}

TEST(ScriptStatements, line_continuation_and_comments) {
  EXPECT_EQ(run("x = (1 +  # a comment\n     2)\ny = 3 + \\\n    4\nz = [1,\n\n  2]\nprint(x, y, z)  # end"),
            "3 7 [1, 2]\n");
}

TEST(ScriptStatements, semicolons_and_pass) { EXPECT_EQ(run("a = 1; b = 2; pass\nprint(a + b)"), "3\n"); }

TEST(ScriptStatements, imports_of_tinygrad_math_and_typing_are_accepted) {
  EXPECT_EQ(
      run("from tinygrad import Tensor, dtypes\nimport math\nfrom typing import List\nprint(math.sqrt(4))"),
      "2.0\n");
  EXPECT_EQ(error("import numpy"),
            "1: ModuleNotFoundError: No module named 'numpy' (a .tg script can import only "
            "tinygrad, math, functools and typing)");
}

TEST(ScriptFunctions, keyword_only_parameters_and_var_keywords) {
  EXPECT_EQ(run("def f(a, *, b, c=3, **kw):\n  return a + b + c + len(kw)\nprint(f(1, b=2, z=0))"), "7\n");
  EXPECT_EQ(error("def f(a, *, b): return a\nf(1, 2)"),
            "2: TypeError: f() takes 1 positional argument but 2 were given");
  EXPECT_EQ(error("def f(**kw): return kw\nf(**[1])"),
            "2: TypeError: argument after ** must be a mapping, not list");
}

TEST(ScriptStatements, decorators_staticmethod_and_classmethod) {
  EXPECT_EQ(run("class A:\n  n = 2\n  @staticmethod\n  def s(x): return x + 1\n  @classmethod\n"
                "  def c(cls, x): return x * cls.n\nprint(A.s(1), A().s(1), A.c(3), A().c(4))"),
            "2 2 6 8\n");
}

TEST(ScriptFunctions, defaults_keywords_and_varargs) {
  EXPECT_EQ(run("def f(a, b=2, *rest):\n  return (a, b, rest)\nprint(f(1), f(1, b=5), f(1, 2, 3, 4))"),
            "(1, 2, ()) (1, 5, ()) (1, 2, (3, 4))\n");
}

TEST(ScriptFunctions, closures_capture_variables_late) {
  EXPECT_EQ(run("def make(n):\n  def add(x):\n    return x + n\n  n += 1\n  return add\nprint(make(1)(10))"),
            "12\n");
  EXPECT_EQ(run("fs = [lambda x, k=k: x * k for k in range(3)]\nprint([f(2) for f in fs])"), "[0, 2, 4]\n");
}

TEST(ScriptFunctions, recursion) {
  EXPECT_EQ(run("def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)\nprint(fib(15))"), "610\n");
}

TEST(ScriptFunctions, lambda_and_globals) {
  EXPECT_EQ(run("k = 3\nf = lambda x, y=1: x * k + y\nk = 4\nprint(f(2), f(2, y=0), (lambda: 7)())"),
            "9 8 7\n");
}

TEST(ScriptFunctions, function_without_return_gives_none) {
  EXPECT_EQ(run("def f():\n  pass\nprint(f())"), "None\n");
}

TEST(ScriptClasses, init_attributes_methods_and_call) {
  std::string cls = "class Acc:\n"
                    "  '''doc'''\n"
                    "  def __init__(self, start=0, *more):\n"
                    "    self.total = start + len(more)\n"
                    "    self.step = 1\n"
                    "  def add(self, n=None):\n"
                    "    self.total += self.step if n is None else n\n"
                    "    return self\n"
                    "  def __call__(self, k):\n"
                    "    return self.total * k\n";
  EXPECT_EQ(run(cls + "a = Acc(10, 'x', 'y')\na.step = 5\na.add().add(1)\nprint(a.total, a(2), a.step)"),
            "18 36 5\n");
  EXPECT_EQ(run(cls + "a = Acc(start=0)\nf = a.add\nf(); f(); f(4)\nprint(a.total, Acc.add(a, 1).total)"),
            "6 7\n");
  EXPECT_EQ(run(cls + "a = Acc()\na.extra = [1]\na.extra += [2]\nprint(a.extra)"), "[1, 2]\n");
  EXPECT_EQ(run("class E: pass\nclass F(): pass\nclass G(object): pass\nprint(E() is not E(), F(), G)"),
            "True <__main__.F object> <class '__main__.G'>\n");
}

TEST(ScriptClasses, class_attributes_scopes_and_closures) {
  std::string cls = "class C:\n  k = 2\n  ks = [k, k * 2]\n  def get(self): return self.k\n";
  EXPECT_EQ(run(cls + "c = C()\nd = C()\nd.k = 5\nprint(c.get(), d.get(), C.k, C.ks)"), "2 5 2 [2, 4]\n");
  EXPECT_EQ(run(cls + "c = C()\nC.k = 7\nprint(c.get())"), "7\n");
  // a method does not see the class body's names, but does see the function around the class
  EXPECT_EQ(error(cls + "class D:\n  y = 1\n  def f(self): return y\nD().f()"),
            "7: NameError: name 'y' is not defined");
  EXPECT_EQ(run("def make(n):\n  class P:\n    def get(self): return n\n  return P()\nprint(make(3).get())"),
            "3\n");
}

TEST(ScriptClasses, state_dict_walks_instance_attributes_in_assignment_order) {
  std::string src = "class Net:\n"
                    "  def __init__(self):\n"
                    "    self.b = nn.Linear(2, 3)\n"
                    "    self.a = [nn.Linear(3, 3, bias=False), {'n': nn.LayerNorm(3)}]\n"
                    "    self.s = 1.5\n"
                    "print(list(nn.state.get_state_dict(Net()).keys()), len(nn.state.get_parameters(Net())))";
  EXPECT_EQ(run(src), "['b.weight', 'b.bias', 'a.0.weight', 'a.1.n.weight', 'a.1.n.bias'] 5\n");
}

TEST(ScriptClasses, errors_read_like_python) {
  std::string cls = "class Net:\n  def __init__(self, h):\n    self.h = h\n  def f(self, x): return x\n";
  EXPECT_EQ(error(cls + "y = Net(1).foo"), "5: AttributeError: 'Net' object has no attribute 'foo'");
  EXPECT_EQ(error(cls + "y = Net.foo"), "5: AttributeError: type object 'Net' has no attribute 'foo'");
  EXPECT_EQ(error(cls + "Net()"), "5: TypeError: Net.__init__() missing 1 required positional argument: 'h'");
  EXPECT_EQ(error(cls + "Net(1, 2)"),
            "5: TypeError: Net.__init__() takes 2 positional arguments but 3 were given");
  EXPECT_EQ(error(cls + "Net(1).f()"), "5: TypeError: Net.f() missing 1 required positional argument: 'x'");
  EXPECT_EQ(error(cls + "Net(1)(2)"), "5: TypeError: 'Net' object is not callable");
  EXPECT_EQ(error("class E: pass\nE(1)"), "2: TypeError: E() takes no arguments");
  EXPECT_EQ(error("class E:\n  def __init__(self): return 1\nE()"),
            "3: TypeError: __init__() should return None, not 'int'");
  EXPECT_EQ(error("class E(Base): pass"), "1: NameError: name 'Base' is not defined");
  EXPECT_EQ(error("class E(int): pass").substr(0, 13), "1: TypeError:");
  EXPECT_EQ(error("class E(metaclass=int): pass"),
            "1: SyntaxError: class keywords (metaclass=...) are not supported in .tg scripts");
}

TEST(ScriptErrors, name_error_names_the_line) {
  EXPECT_EQ(error("a = 1\nb = c + 1\n"), "2: NameError: name 'c' is not defined");
}

TEST(ScriptErrors, zero_division) {
  EXPECT_EQ(error("x = 1 // 0"), "1: ZeroDivisionError: integer division or modulo by zero");
  EXPECT_EQ(error("x = 1 % 0"), "1: ZeroDivisionError: integer modulo by zero");
  EXPECT_EQ(error("x = 1 / 0"), "1: ZeroDivisionError: division by zero");
  EXPECT_EQ(error("x = 1.0 / 0"), "1: ZeroDivisionError: float division by zero");
}

TEST(ScriptErrors, type_errors_for_operands) {
  EXPECT_EQ(error("x = 1 + 'a'"), "1: TypeError: unsupported operand type(s) for +: 'int' and 'str'");
  EXPECT_EQ(error("x = 'a' + 1"), "1: TypeError: can only concatenate str (not \"int\") to str");
  EXPECT_EQ(error("x = -'a'"), "1: TypeError: bad operand type for unary -: 'str'");
  EXPECT_EQ(error("x = 1 < 'a'"), "1: TypeError: '<' not supported between instances of 'int' and 'str'");
  EXPECT_EQ(error("x = len(3)"), "1: TypeError: object of type 'int' has no len()");
  EXPECT_EQ(error("x = 3(1)"), "1: TypeError: 'int' object is not callable");
}

TEST(ScriptErrors, call_argument_errors_read_like_python) {
  std::string f = "def f(a, b=1): return a\n";
  EXPECT_EQ(error(f + "f()"), "2: TypeError: f() missing 1 required positional argument: 'a'");
  EXPECT_EQ(error(f + "f(1, 2, 3)"),
            "2: TypeError: f() takes from 1 to 2 positional arguments but 3 were given");
  EXPECT_EQ(error(f + "f(1, c=2)"), "2: TypeError: f() got an unexpected keyword argument 'c'");
  EXPECT_EQ(error(f + "f(1, a=2)"), "2: TypeError: f() got multiple values for argument 'a'");
  EXPECT_EQ(error("(lambda: 1)(2)"), "1: TypeError: <lambda>() takes 0 positional arguments but 1 was given");
}

TEST(ScriptErrors, index_and_unpack_errors) {
  EXPECT_EQ(error("x = [1, 2][5]"), "1: IndexError: list index out of range");
  EXPECT_EQ(error("x = (1, 2)[5]"), "1: IndexError: tuple index out of range");
  EXPECT_EQ(error("a, b = 1, 2, 3"), "1: ValueError: too many values to unpack (expected 2)");
  EXPECT_EQ(error("a, b, c = 1, 2"), "1: ValueError: not enough values to unpack (expected 3, got 2)");
  EXPECT_EQ(error("a, b = 1"), "1: TypeError: cannot unpack non-iterable int object");
}

TEST(ScriptErrors, unbound_local) {
  EXPECT_EQ(
      error("def g():\n  print(zz)\n  zz = 1\ng()"),
      "2: UnboundLocalError: cannot access local variable 'zz' where it is not associated with a value");
}

TEST(ScriptErrors, error_inside_a_function_has_the_innermost_line) {
  EXPECT_EQ(error("def f(x):\n  y = x + 1\n  return y / 0\n\nz = f(1)"),
            "3: ZeroDivisionError: division by zero");
}

TEST(ScriptErrors, attribute_errors) {
  EXPECT_EQ(error("x = (1).foo"), "1: AttributeError: 'int' object has no attribute 'foo'");
  EXPECT_EQ(error("x = [1].foo"), "1: AttributeError: 'list' object has no attribute 'foo'");
  EXPECT_EQ(error("x = math.foo"), "1: AttributeError: module 'math' has no attribute 'foo'");
}

TEST(ScriptErrors, assert_statement) { EXPECT_EQ(error("assert 1 == 2, 'nope'"), "1: AssertionError: nope"); }

TEST(ScriptErrors, deep_recursion_raises_recursion_error) {
  EXPECT_EQ(error("def r(n): return r(n + 1)\nr(0)"), "1: RecursionError: maximum recursion depth exceeded");
}

TEST(ScriptErrors, deeply_nested_expressions_do_not_crash) {
  std::string deep = std::string(5000, '(') + "1" + std::string(5000, ')');
  EXPECT_EQ(error("x = " + deep), "1: SyntaxError: too many nested parentheses");
  std::string sum = "x = 0";
  for (int i = 0; i < 20000; ++i) sum += " + 1";
  EXPECT_EQ(run(sum + "\nprint(x)"), "20000\n");
}

TEST(ScriptSyntax, syntax_errors_have_lines) {
  EXPECT_EQ(error("a = 1\nb = (2 +\n"), "3: SyntaxError: unexpected EOF while parsing");
  EXPECT_EQ(error("a = 1\nb = 2 +\n"), "2: SyntaxError: invalid syntax");
  EXPECT_EQ(error("a = 1\n  b = 2\n"), "2: IndentationError: unexpected indent");
  EXPECT_EQ(error("if 1:\nb = 2\n"), "2: IndentationError: expected an indented block");
  EXPECT_EQ(error("x = 'abc\n"), "1: SyntaxError: unterminated string literal");
  EXPECT_EQ(error("1 = x"), "1: SyntaxError: cannot assign to literal");
  EXPECT_EQ(error("f(a=1, 2)"), "1: SyntaxError: positional argument follows keyword argument");
  EXPECT_EQ(error("x = 1 $ 2"), "1: SyntaxError: invalid character '$'");
}

TEST(ScriptSyntax, return_outside_function_is_an_error) {
  EXPECT_EQ(error("x = 1\nreturn x"), "2: SyntaxError: 'return' outside function");
}

TEST(ScriptStrings, escapes_and_bytes) {
  EXPECT_EQ(show("'a\\tb', \"it's\", len('\\n'), b'ab', 'x' 'y', r'\\n'"),
            "('a\\tb', \"it's\", 1, b'ab', 'xy', '\\\\n')\n");
  EXPECT_EQ(show("'-'.join(['a', 'b']), 'a b  c'.split(), 'ij,k'.split(',')"),
            "('a-b', ['a', 'b', 'c'], ['ij', 'k'])\n");
}

TEST(ScriptStrings, fstrings_format_and_percent) {
  EXPECT_EQ(run("x = 3\nprint(f'{x:03d}|{x!r}|{{x}}|{x * 2:>3}|{1.5:.2f}')"), "003|3|{x}|  6|1.50\n");
  EXPECT_EQ(run("print('%d-%s %.1f %%' % (1, 'a', 2.25))"), "1-a 2.2 %\n");
  EXPECT_EQ(run("print(format(1234567, ','), format('ab', '^6') + '|')"), "1,234,567   ab  |\n");
  EXPECT_EQ(error("print(f'{}')"), "1: SyntaxError: f-string: empty expression not allowed");
  EXPECT_EQ(error("print('%d %d' % (1,))"), "1: TypeError: not enough arguments for format string");
}

TEST(ScriptExceptions, handlers_match_by_class_and_python_hierarchy) {
  EXPECT_EQ(run("try:\n  {}['k']\nexcept IndexError:\n  print('index')\nexcept LookupError as e:\n  "
                "print('lookup', e)\n"),
            "lookup 'k'\n");
  EXPECT_EQ(run("try:\n  1 // 0\nexcept (TypeError, ArithmeticError) as e:\n  print(e)\n"),
            "integer division or modulo by zero\n");
  EXPECT_EQ(run("try:\n  raise NotImplementedError('later')\nexcept RuntimeError as e:\n  print('rt', e)\n"),
            "rt later\n");
  EXPECT_EQ(
      run("try:\n  x = 1\nexcept:\n  print('no')\nelse:\n  print('else', x)\nfinally:\n  print('fin')\n"),
      "else 1\nfin\n");
  // an unmatched error goes on after finally, with its line
  EXPECT_EQ(error("try:\n  y = undefined\nexcept ValueError:\n  pass\nfinally:\n  print('fin')\n"),
            "2: NameError: name 'undefined' is not defined");
}

TEST(ScriptExceptions, finally_runs_on_return_break_and_errors) {
  EXPECT_EQ(run("def f():\n  try:\n    return 1\n  finally:\n    print('f')\nprint(f())\n"), "f\n1\n");
  EXPECT_EQ(run("def g():\n  try:\n    return 1\n  finally:\n    return 2\nprint(g())\n"), "2\n");
  EXPECT_EQ(run("for i in range(3):\n  try:\n    if i == 1: break\n  finally:\n    print(i)\n"), "0\n1\n");
  EXPECT_EQ(
      run("def h():\n  try:\n    raise ValueError('v')\n  finally:\n    return 'swallowed'\nprint(h())\n"),
      "swallowed\n");
}

TEST(ScriptExceptions, raise_forms) {
  EXPECT_EQ(error("raise ValueError('bad', 3)"), "1: ValueError: ('bad', 3)");
  EXPECT_EQ(error("raise KeyError"), "1: KeyError: ");
  EXPECT_EQ(error("try:\n  1 // 0\nexcept ZeroDivisionError:\n  raise\n"),
            "2: ZeroDivisionError: integer division or modulo by zero");
  EXPECT_EQ(error("try:\n  [][1]\nexcept Exception as e:\n  raise e\n"),
            "2: IndexError: list index out of range");
  EXPECT_EQ(error("raise"), "1: RuntimeError: No active exception to reraise");
  EXPECT_EQ(error("raise 3"), "1: TypeError: exceptions must derive from BaseException");
  EXPECT_EQ(error("try:\n  pass\n"), "3: SyntaxError: expected 'except' or 'finally' block");
}

TEST(ScriptFunctools, reduce_and_partial) {
  EXPECT_EQ(show("functools.reduce(lambda a, b: a - b, [10, 3, 2]), functools.reduce(max, [], 5)"),
            "(5, 5)\n");
  EXPECT_EQ(error("functools.reduce(max, [])"),
            "1: TypeError: reduce() of empty iterable with no initial value");
  EXPECT_EQ(run("import functools\nf = functools.partial(lambda a, b, c=0: (a, b, c), 1, c=3)\nprint(f(2), "
                "f(2, c=4))\n"),
            "(1, 2, 3) (1, 2, 4)\n");
  EXPECT_EQ(error("import itertools"),
            "1: ModuleNotFoundError: No module named 'itertools' (a .tg script can import only "
            "tinygrad, math, functools and typing)");
}

TEST(ScriptBuiltins, dict_map_filter_sort_format_pow_round) {
  EXPECT_EQ(show("dict([('a', 1)], b=2), list(map(lambda a, b: a + b, [1, 2], [10, 20, 30])), "
                 "list(filter(None, [0, 1, 2]))"),
            "({'a': 1, 'b': 2}, [11, 22], [1, 2])\n");
  EXPECT_EQ(run("l = [(1, 'b'), (0, 'a'), (1, 'a')]\nl.sort(key=lambda r: r[0], reverse=True)\nprint(l)\n"),
            "[(1, 'b'), (1, 'a'), (0, 'a')]\n");
  EXPECT_EQ(
      show("'{}|{:>4}|{x!r}|{{}}'.format(1, 'ab', x='s'), pow(3, 200, 7), round(2.675, 2), round(0.125, 2)"),
      "(\"1|  ab|'s'|{}\", 2, 2.67, 0.12)\n");
  EXPECT_EQ(error("'{}{0}'.format(1, 2)"),
            "1: ValueError: cannot switch from automatic field numbering to manual field specification");
  EXPECT_EQ(show("callable(len), callable(3), callable(lambda: 0)"), "(True, False, True)\n");
}

TEST(ScriptStatements, starred_assignment_targets) {
  EXPECT_EQ(run("a, *b, c = range(5)\n*d, e = 'xy'\nprint(a, b, c, d, e)\n"), "0 [1, 2, 3] 4 ['x'] y\n");
  EXPECT_EQ(error("a, *b, c = [1]"),
            "1: ValueError: not enough values to unpack (expected at least 2, got 1)");
  EXPECT_EQ(error("a, *b, *c = [1, 2, 3]"), "1: SyntaxError: multiple starred expressions in assignment");
  EXPECT_EQ(
      run("l = list(range(6))\nl[1:3] = 'ab'\nl[::2] = [7, 8, 9]\nl[5:] = []\nl[-1:-1] = [0]\nprint(l)\n"),
      "[7, 'a', 8, 3, 0, 9]\n");
  EXPECT_EQ(error("l = [1, 2, 3]\nl[::2] = [0]"),
            "2: ValueError: attempt to assign sequence of size 1 to extended slice of size 2");
}

} // namespace
} // namespace tg
