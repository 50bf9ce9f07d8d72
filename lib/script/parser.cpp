// Recursive descent over Python's grammar, the .tg subset. Names are interned here and
// resolved to slots by resolve_names (resolve.cpp) once the whole program is parsed.
#include <cstring>

#include "script/ast.h"
#include "script/lexer.h"

namespace tg::script {

void resolve_names(Program& program); // resolve.cpp

namespace {

constexpr int kMaxNesting = 600; // nested expressions; Python stops at 200 parentheses

class Parser {
public:
  explicit Parser(std::vector<Token> toks) : t_(std::move(toks)) {}

  Program program() {
    Program p;
    while (!at(TK::End)) {
      if (at(TK::Newline)) {
        ++i_;
        continue;
      }
      statement(p.body);
    }
    return p;
  }

private:
  // --- token helpers ---
  const Token& cur() const { return t_[i_]; }
  bool at(TK k) const { return cur().kind == k; }
  bool at_op(const char* o) const { return cur().kind == TK::Op && cur().text == o; }
  bool at_kw(const char* w) const { return cur().kind == TK::Name && cur().text == w; }
  bool accept_op(const char* o) {
    if (!at_op(o)) return false;
    ++i_;
    return true;
  }
  bool accept_kw(const char* w) {
    if (!at_kw(w)) return false;
    ++i_;
    return true;
  }
  [[noreturn]] void error(const std::string& msg) const { throw PyError("SyntaxError", msg, cur().line); }
  [[noreturn]] void unexpected() const {
    if (at(TK::Indent)) throw PyError("IndentationError", "unexpected indent", cur().line);
    if (at(TK::Newline) || at(TK::End) || at(TK::Dedent)) error("invalid syntax");
    error("invalid syntax near '" + (cur().text.empty() ? std::string("literal") : cur().text) + "'");
  }
  void expect_op(const char* o) {
    if (!accept_op(o)) {
      if (at(TK::Newline) || at(TK::End)) error(std::string("expected '") + o + "'");
      unexpected();
    }
  }
  static bool is_keyword(const std::string& w) {
    static const char* const kw[] = {
        "False", "None",  "True",   "and",      "as",      "assert", "break",  "class",  "continue",
        "def",   "del",   "elif",   "else",     "for",     "from",   "global", "if",     "import",
        "in",    "is",    "lambda", "nonlocal", "not",     "or",     "pass",   "return", "while",
        "with",  "yield", "try",    "except",   "finally", "raise",  "async",  "await"};
    for (const char* k : kw)
      if (w == k) return true;
    return false;
  }
  std::string name() {
    if (!at(TK::Name) || is_keyword(cur().text)) unexpected();
    return t_[i_++].text;
  }
  NodePtr node(NK k) { return std::make_unique<Node>(k, cur().line); }

  struct Nest {
    Parser& p;
    explicit Nest(Parser& pp) : p(pp) {
      if (++p.nesting_ > kMaxNesting) p.error("too many nested parentheses");
    }
    ~Nest() { --p.nesting_; }
  };

  // --- statements ---
  void statement(std::vector<NodePtr>& out) {
    if (at_kw("if")) return out.push_back(if_stmt());
    if (at_kw("for")) return out.push_back(for_stmt());
    if (at_kw("while")) return out.push_back(while_stmt());
    if (at_op("@")) return out.push_back(decorated());
    if (at_kw("def")) return out.push_back(def_stmt());
    if (at_kw("with")) return out.push_back(with_stmt());
    if (at_kw("class")) return out.push_back(class_stmt());
    if (at_kw("try")) return out.push_back(try_stmt());
    for (const char* w : {"async", "yield"})
      if (at_kw(w)) error(std::string("'") + w + "' is not supported in .tg scripts");
    if (at(TK::Indent)) unexpected();
    simple_statements(out);
  }

  void simple_statements(std::vector<NodePtr>& out) {
    while (true) {
      if (NodePtr s = small_statement()) out.push_back(std::move(s));
      if (!accept_op(";")) break;
      if (at(TK::Newline)) break;
    }
    if (!at(TK::Newline)) unexpected();
    ++i_;
  }

  NodePtr small_statement() {
    int line = cur().line;
    if (accept_kw("pass")) return std::make_unique<Node>(NK::Pass, line);
    if (accept_kw("break")) return std::make_unique<Node>(NK::Break, line);
    if (accept_kw("continue")) return std::make_unique<Node>(NK::Continue, line);
    if (accept_kw("return")) {
      auto r = std::make_unique<Node>(NK::Return, line);
      if (!at(TK::Newline) && !at_op(";")) r->kids.push_back(testlist(true));
      return r;
    }
    if (accept_kw("raise")) { // raise [EXC [from EXC]]
      auto r = std::make_unique<Node>(NK::Raise, line);
      if (!at(TK::Newline) && !at_op(";") && !at(TK::End)) {
        r->kids.push_back(test());
        if (accept_kw("from")) test(); // (the cause is not kept)
      }
      return r;
    }
    if (accept_kw("del")) { // del a, b[0], c[1:3]
      auto d = std::make_unique<Node>(NK::Del, line);
      NodePtr targets = testlist(true);
      if (targets->kind == NK::TupleExpr)
        for (auto& k : targets->kids) d->kids.push_back(std::move(k));
      else
        d->kids.push_back(std::move(targets));
      for (auto& k : d->kids)
        if (k->kind != NK::Name && k->kind != NK::Subscript && k->kind != NK::Attr)
          error("cannot delete " + std::string(k->kind == NK::Call ? "function call" : "expression"));
      return d;
    }
    for (auto [kw, kind] : {std::pair{"global", NK::Global}, std::pair{"nonlocal", NK::Nonlocal}}) {
      if (!accept_kw(kw)) continue;
      auto g = std::make_unique<Node>(kind, line);
      do {
        g->kids.push_back(std::make_unique<Node>(NK::Name, line));
        g->kids.back()->ref.sym = intern(name());
      } while (accept_op(","));
      return g;
    }
    if (accept_kw("assert")) {
      auto a = std::make_unique<Node>(NK::Assert, line);
      a->kids.push_back(test());
      if (accept_op(",")) a->kids.push_back(test());
      return a;
    }
    if (at_kw("import") || at_kw("from")) return import_statement();
    NodePtr first = testlist(true);
    if (accept_op(":")) { // an annotated assignment: the annotation is not evaluated
      check_target(*first, true);
      test();
      if (!accept_op("=")) return nullptr; // `x: int` alone binds nothing
      auto a = std::make_unique<Node>(NK::Assign, line);
      a->kids.push_back(std::move(first));
      a->kids.push_back(testlist(true));
      return a;
    }
    static const std::pair<const char*, PyOp> kAug[] = {
        {"+=", PyOp::Add},       {"-=", PyOp::Sub},     {"*=", PyOp::Mul},    {"/=", PyOp::Div},
        {"//=", PyOp::FloorDiv}, {"%=", PyOp::Mod},     {"**=", PyOp::Pow},   {"@=", PyOp::MatMul},
        {"<<=", PyOp::LShift},   {">>=", PyOp::RShift}, {"&=", PyOp::BitAnd}, {"|=", PyOp::BitOr},
        {"^=", PyOp::BitXor}};
    for (auto& [text, op] : kAug) {
      if (accept_op(text)) {
        check_target(*first, true);
        auto a = std::make_unique<Node>(NK::AugAssign, line);
        a->op = op;
        a->kids.push_back(std::move(first));
        a->kids.push_back(testlist(true));
        return a;
      }
    }
    if (at_op("=")) {
      auto a = std::make_unique<Node>(NK::Assign, line);
      a->kids.push_back(std::move(first));
      while (accept_op("=")) a->kids.push_back(testlist(true));
      for (size_t k = 0; k + 1 < a->kids.size(); ++k) check_target(*a->kids[k], false);
      return a;
    }
    auto e = std::make_unique<Node>(NK::ExprStmt, line);
    e->kids.push_back(std::move(first));
    return e;
  }

  // `import math`, `import tinygrad.nn as nn`, `from tinygrad.nn.optim import Adam as A`: an
  // assignment of what tg provides under that module path (builtins.cpp's __import__), so a
  // name tg does not provide is an ImportError at the import line.
  NodePtr import_statement() {
    int line = cur().line;
    // __import__(module, (what, ...)): a tuple of the module ("") or of its attributes
    auto import_call = [&](const std::string& module, const std::vector<std::string>& what) {
      auto call = std::make_unique<Node>(NK::Call, line);
      call->kids.push_back(std::make_unique<Node>(NK::Name, line));
      call->kids.back()->ref.sym = intern("__import__");
      std::vector<Value> items;
      for (const std::string& w : what) items.push_back(Value::str(w));
      for (Value v : {Value::str(module), Value::tuple(std::move(items))}) {
        call->kids.push_back(std::make_unique<Node>(NK::Const, line));
        call->kids.back()->value = std::move(v);
      }
      call->arg_kinds.assign(2, kArgPositional);
      return call;
    };
    auto name_tuple = [&](const std::vector<std::string>& names) {
      auto t = std::make_unique<Node>(NK::TupleExpr, line);
      for (const std::string& n : names) {
        t->kids.push_back(std::make_unique<Node>(NK::Name, line));
        t->kids.back()->ref.sym = intern(n);
      }
      return t;
    };
    auto assign = [&](NodePtr target, NodePtr value) {
      auto a = std::make_unique<Node>(NK::Assign, line);
      a->kids.push_back(std::move(target));
      a->kids.push_back(std::move(value));
      return a;
    };
    auto module = [&] {
      std::string m = name();
      while (accept_op(".")) m += "." + name();
      return m;
    };
    auto check_module = [&](const std::string& m) {
      // typing: annotations are parsed but not evaluated, so its names need not exist
      if (m != "math" && m != "functools" && m != "typing" && m != "tinygrad" && m.rfind("tinygrad.", 0) != 0)
        throw PyError("ModuleNotFoundError",
                      "No module named '" + m +
                          "' (a .tg script can import only tinygrad, math, functools and typing)",
                      cur().line);
    };
    if (accept_kw("import")) {
      // import a.b binds a (the package); import a.b as c binds c to a.b
      // ((a,), (c,)) = (__import__("a", ("",)), __import__("a.b", ("",)))
      auto targets = std::make_unique<Node>(NK::TupleExpr, line);
      auto values = std::make_unique<Node>(NK::TupleExpr, line);
      do {
        std::string m = module();
        check_module(m);
        // import a.b binds a (the package); import a.b as c binds c to a.b
        std::string package = m.substr(0, m.find('.'));
        bool alias = accept_kw("as");
        targets->kids.push_back(name_tuple({alias ? name() : package}));
        values->kids.push_back(import_call(alias ? m : package, {""}));
      } while (accept_op(","));
      return assign(std::move(targets), std::move(values));
    }
    accept_kw("from");
    std::string m = module();
    check_module(m);
    if (!accept_kw("import")) unexpected();
    if (at_op("*")) error("'from ... import *' is not supported in .tg scripts: name what you import");
    bool paren = accept_op("(");
    std::vector<std::string> names, what;
    do {
      if (paren && at_op(")")) break;
      what.push_back(name());
      names.push_back(accept_kw("as") ? name() : what.back());
    } while (accept_op(","));
    if (paren) expect_op(")");
    return assign(name_tuple(names), import_call(m, what));
  }

  void check_target(const Node& n, bool augmented) {
    switch (n.kind) {
    case NK::Name:
    case NK::Attr:
    case NK::Subscript:
      return;
    case NK::TupleExpr:
    case NK::ListExpr: {
      if (augmented) error("'tuple' is an illegal expression for augmented assignment");
      int starred = 0;
      for (auto& k : n.kids) {
        if (k->kind == NK::Starred) {
          if (++starred > 1) error("multiple starred expressions in assignment");
          check_target(*k->kids[0], false);
          continue;
        }
        check_target(*k, false);
      }
      return;
    }
    case NK::Starred:
      error("starred assignment target must be in a list or tuple");
    case NK::Call:
      error("cannot assign to function call");
    case NK::Const:
      error("cannot assign to literal");
    default:
      error("cannot assign to expression");
    }
  }

  std::vector<NodePtr> suite() {
    expect_op(":");
    std::vector<NodePtr> body;
    if (!at(TK::Newline)) {
      simple_statements(body);
      return body;
    }
    ++i_;
    if (!at(TK::Indent)) throw PyError("IndentationError", "expected an indented block", cur().line);
    ++i_;
    while (!at(TK::Dedent) && !at(TK::End)) {
      if (at(TK::Newline)) {
        ++i_;
        continue;
      }
      statement(body);
    }
    if (at(TK::Dedent)) ++i_;
    return body;
  }

  NodePtr if_stmt() {
    auto n = node(NK::If);
    ++i_; // if / elif
    n->kids.push_back(named_test());
    n->body = suite();
    if (at_kw("elif")) {
      n->orelse.push_back(if_stmt());
    } else if (accept_kw("else")) {
      n->orelse = suite();
    }
    return n;
  }

  NodePtr for_stmt() {
    auto n = node(NK::For);
    ++i_;
    n->kids.push_back(target_list());
    if (!accept_kw("in")) unexpected();
    n->kids.push_back(testlist(false));
    n->body = suite();
    if (at_kw("else")) error("'for ... else' is not supported in .tg scripts");
    return n;
  }

  // try: suite (except [NAME | (NAME, ...)] [as NAME]: suite)* [else: suite] [finally: suite].
  // Handlers name exception classes (tg has no exception objects: a handler's `as` name is the
  // message, a str).
  NodePtr try_stmt() {
    auto n = node(NK::Try);
    ++i_;
    n->body = suite();
    while (at_kw("except")) {
      auto h = node(NK::Except);
      ++i_;
      if (!at_op(":")) {
        bool paren = accept_op("(");
        h->arg_kinds.push_back(intern(name()));
        while (paren && accept_op(",") && !at_op(")")) h->arg_kinds.push_back(intern(name()));
        if (paren) expect_op(")");
        if (accept_kw("as")) {
          auto t = node(NK::Name);
          t->ref.sym = intern(name());
          h->kids.push_back(std::move(t));
        }
      }
      if (h->kids.empty()) h->kids.push_back(nullptr);
      h->body = suite();
      n->kids.push_back(std::move(h));
    }
    const bool handlers = !n->kids.empty();
    if (handlers && accept_kw("else")) n->orelse = suite();
    if (at_kw("finally")) {
      auto f = node(NK::Finally);
      ++i_;
      f->body = suite();
      n->kids.push_back(std::move(f));
    }
    if (n->kids.empty()) error("expected 'except' or 'finally' block");
    return n;
  }

  NodePtr while_stmt() {
    auto n = node(NK::While);
    ++i_;
    n->kids.push_back(named_test());
    n->body = suite();
    if (at_kw("else")) error("'while ... else' is not supported in .tg scripts");
    return n;
  }

  // `with a [as x], b [as y]: suite` is `with a [as x]:` around `with b [as y]: suite`. As in
  // Python 3.9+, `with (a, b):` is two items when the parentheses are followed by ':'.
  NodePtr with_stmt() {
    int line = cur().line;
    ++i_;
    std::vector<std::pair<NodePtr, NodePtr>> items;
    auto item = [&] {
      NodePtr e = test();
      NodePtr target;
      if (accept_kw("as")) target = target_atom();
      items.emplace_back(std::move(e), std::move(target));
    };
    if (at_op("(")) {
      size_t save = i_;
      bool parenthesized = false;
      try {
        ++i_;
        do {
          if (at_op(")")) break;
          item();
        } while (accept_op(","));
        parenthesized = !items.empty() && accept_op(")") && at_op(":");
      } catch (PyError&) {
      }
      if (!parenthesized) { // an expression in parentheses: `with (a) as x:`
        i_ = save;
        items.clear();
      }
    }
    if (items.empty()) do
        item();
      while (accept_op(","));
    std::vector<NodePtr> body = suite();
    for (size_t k = items.size(); k-- > 0;) {
      auto n = std::make_unique<Node>(NK::With, line);
      n->kids.push_back(std::move(items[k].first));
      if (items[k].second) n->kids.push_back(std::move(items[k].second));
      n->body = std::move(body);
      body.clear();
      body.push_back(std::move(n));
    }
    return std::move(body.front());
  }

  // @expr lines, then a def: the decorators (outermost first) are the Def node's kids.
  NodePtr decorated() {
    std::vector<NodePtr> decorators;
    while (accept_op("@")) {
      decorators.push_back(test());
      if (!at(TK::Newline)) unexpected();
      ++i_;
    }
    if (!at_kw("def")) error("only a def can be decorated in .tg scripts");
    NodePtr d = def_stmt();
    d->kids = std::move(decorators);
    return d;
  }

  NodePtr def_stmt() {
    auto n = node(NK::Def);
    ++i_;
    auto f = std::make_shared<FuncDef>();
    f->name = name();
    n->ref.sym = intern(f->name);
    expect_op("(");
    parameters(*f, ")");
    expect_op(")");
    if (accept_op("->")) test();
    f->body = suite();
    n->func = f;
    return n;
  }

  // `class Name:` / `class Name():` / `class Name(object):` and a body run once in its own
  // scope. Other bases are kept as expressions: the evaluator rejects them once they evaluate
  // (an undefined one is a NameError, as in Python). Methods get qualified names ("Net.loss")
  // for Python's TypeError messages.
  NodePtr class_stmt() {
    auto n = node(NK::Class);
    ++i_;
    auto f = std::make_shared<FuncDef>();
    f->name = name();
    f->is_class = true;
    n->ref.sym = intern(f->name);
    if (accept_op("(")) {
      while (!at_op(")")) {
        if (at(TK::Name) && cur().text == "object" && (t_[i_ + 1].kind == TK::Op) &&
            (t_[i_ + 1].text == ")" || t_[i_ + 1].text == ",")) {
          ++i_;
        } else {
          if (at(TK::Name) && t_[i_ + 1].kind == TK::Op && t_[i_ + 1].text == "=")
            error("class keywords (metaclass=...) are not supported in .tg scripts");
          if (at_op("*") || at_op("**")) error("starred class bases are not supported in .tg scripts");
          n->kids.push_back(test());
        }
        if (!accept_op(",")) break;
      }
      expect_op(")");
    }
    f->body = suite();
    for (auto& s : f->body)
      if (s->kind == NK::Def) s->func->name = f->name + "." + s->func->name;
    n->func = f;
    return n;
  }

  void parameters(FuncDef& f, const char* end) {
    bool annotated = std::strcmp(end, ")") == 0, seen_default = false;
    auto add = [&](const std::string& p) {
      Sym s = intern(p);
      for (Sym q : f.params)
        if (q == s) error("duplicate argument '" + p + "' in function definition");
      f.params.push_back(s);
      f.defaults.emplace_back();
    };
    while (!at_op(end)) {
      if (f.kwarg_slot >= 0) error("arguments cannot follow var-keyword argument");
      if (accept_op("**")) {
        f.kwarg_slot = int(f.params.size());
        add(name());
        if (annotated && accept_op(":")) test();
        if (!accept_op(",")) break;
        continue;
      }
      if (accept_op("*")) {
        if (f.vararg_slot >= 0) error("* argument may appear only once");
        f.vararg_slot = int(f.params.size());
        if (at(TK::Name)) {
          add(name());
          if (annotated && accept_op(":")) test();
        } else {
          if (!at_op(",")) error("named arguments must follow bare *");
          f.params.push_back(intern("*"));
          f.defaults.emplace_back();
        }
        if (!accept_op(",")) break;
        continue;
      }
      add(name());
      if (annotated && accept_op(":")) test(); // annotation, ignored
      if (accept_op("=")) {
        f.defaults.back() = test();
        seen_default = true;
      } else if (seen_default && f.vararg_slot < 0) {
        error("non-default argument follows default argument");
      }
      if (!accept_op(",")) break;
    }
  }

  // --- expressions ---
  NodePtr target_list() {
    int line = cur().line;
    NodePtr first = target_atom();
    if (!at_op(",")) return first;
    auto t = std::make_unique<Node>(NK::TupleExpr, line);
    t->kids.push_back(std::move(first));
    while (accept_op(",")) {
      if (at_kw("in") || at_op("=")) break;
      t->kids.push_back(target_atom());
    }
    return t;
  }
  NodePtr target_atom() {
    NodePtr e = bitor_expr();
    check_target(*e, false);
    return e;
  }

  // testlist; a trailing comma or several items make a tuple.
  NodePtr testlist(bool allow_star) {
    int line = cur().line;
    NodePtr first = allow_star && at_op("*") ? starred() : test();
    if (!at_op(",")) return first;
    auto t = std::make_unique<Node>(NK::TupleExpr, line);
    t->kids.push_back(std::move(first));
    while (accept_op(",")) {
      if (!starts_expression()) break;
      t->kids.push_back(allow_star && at_op("*") ? starred() : test());
    }
    return t;
  }

  bool starts_expression() const {
    switch (cur().kind) {
    case TK::Int:
    case TK::Float:
    case TK::Str:
    case TK::Bytes:
      return true;
    case TK::Name:
      return !is_keyword(cur().text) || cur().text == "None" || cur().text == "True" ||
             cur().text == "False" || cur().text == "lambda" || cur().text == "not";
    case TK::Op:
      for (const char* o : {"(", "[", "{", "-", "+", "~", "...", "*"})
        if (cur().text == o) return true;
      return false;
    default:
      return false;
    }
  }

  NodePtr starred() {
    auto s = node(NK::Starred);
    expect_op("*");
    s->kids.push_back(bitor_expr());
    return s;
  }

  NodePtr named_test() {
    NodePtr e = test();
    if (!at_op(":=")) return e;
    if (e->kind != NK::Name)
      error("cannot use assignment expressions with " + std::string(e->kind == NK::Attr ? "attribute"
                                                                    : e->kind == NK::Subscript
                                                                        ? "subscript"
                                                                        : "expression"));
    auto n = node(NK::NamedExpr);
    ++i_;
    n->kids.push_back(std::move(e));
    n->kids.push_back(test());
    return n;
  }

  NodePtr test() {
    Nest guard(*this);
    if (at_kw("lambda")) return lambda();
    NodePtr body = or_test();
    if (!at_kw("if")) return body;
    auto n = node(NK::IfExp);
    ++i_;
    NodePtr cond = or_test();
    if (!accept_kw("else")) error("expected 'else' after 'if' expression");
    n->kids.push_back(std::move(body));
    n->kids.push_back(std::move(cond));
    n->kids.push_back(test());
    return n;
  }

  NodePtr test_nocond() { return at_kw("lambda") ? lambda() : or_test(); }

  NodePtr lambda() {
    auto n = node(NK::Lambda);
    ++i_;
    auto f = std::make_shared<FuncDef>();
    f->name = "<lambda>";
    parameters(*f, ":");
    expect_op(":");
    auto r = node(NK::Return);
    r->kids.push_back(test());
    f->body.push_back(std::move(r));
    n->func = f;
    return n;
  }

  NodePtr or_test() {
    NodePtr a = and_test();
    if (!at_kw("or")) return a;
    auto n = node(NK::Or);
    n->kids.push_back(std::move(a));
    while (accept_kw("or")) n->kids.push_back(and_test());
    return n;
  }
  NodePtr and_test() {
    NodePtr a = not_test();
    if (!at_kw("and")) return a;
    auto n = node(NK::And);
    n->kids.push_back(std::move(a));
    while (accept_kw("and")) n->kids.push_back(not_test());
    return n;
  }
  NodePtr not_test() {
    if (at_kw("not")) {
      Nest guard(*this);
      auto n = node(NK::Not);
      ++i_;
      n->kids.push_back(not_test());
      return n;
    }
    return comparison();
  }

  bool comp_op(PyOp& op) {
    static const std::pair<const char*, PyOp> kOps[] = {{"<", PyOp::Lt},  {">", PyOp::Gt},  {"<=", PyOp::Le},
                                                        {">=", PyOp::Ge}, {"==", PyOp::Eq}, {"!=", PyOp::Ne}};
    for (auto& [text, o] : kOps)
      if (accept_op(text)) return op = o, true;
    if (accept_kw("in")) return op = PyOp::In, true;
    if (at_kw("not") && t_[i_ + 1].kind == TK::Name && t_[i_ + 1].text == "in") {
      i_ += 2;
      return op = PyOp::NotIn, true;
    }
    if (accept_kw("is")) return op = accept_kw("not") ? PyOp::IsNot : PyOp::Is, true;
    return false;
  }

  NodePtr comparison() {
    NodePtr a = bitor_expr();
    PyOp op;
    if (!comp_op(op)) return a;
    auto n = node(NK::Compare);
    n->kids.push_back(std::move(a));
    do {
      n->ops.push_back(op);
      n->kids.push_back(bitor_expr());
    } while (comp_op(op));
    return n;
  }

  // Left-associative binary levels, loosest first.
  struct Level {
    std::vector<std::pair<const char*, PyOp>> ops;
  };
  NodePtr binary(int level) {
    static const Level kLevels[] = {
        {{{"|", PyOp::BitOr}}},
        {{{"^", PyOp::BitXor}}},
        {{{"&", PyOp::BitAnd}}},
        {{{"<<", PyOp::LShift}, {">>", PyOp::RShift}}},
        {{{"+", PyOp::Add}, {"-", PyOp::Sub}}},
        {{{"*", PyOp::Mul}, {"/", PyOp::Div}, {"//", PyOp::FloorDiv}, {"%", PyOp::Mod}, {"@", PyOp::MatMul}}},
    };
    if (level == int(std::size(kLevels))) return factor();
    NodePtr a = binary(level + 1);
    while (true) {
      bool matched = false;
      for (auto& [text, op] : kLevels[level].ops) {
        if (at_op(text)) {
          auto n = node(NK::BinOp);
          ++i_;
          n->op = op;
          n->kids.push_back(std::move(a));
          n->kids.push_back(binary(level + 1));
          a = std::move(n);
          matched = true;
          break;
        }
      }
      if (!matched) return a;
    }
  }
  NodePtr bitor_expr() { return binary(0); }

  NodePtr factor() {
    static const std::pair<const char*, PyOp> kUnary[] = {
        {"-", PyOp::Neg}, {"+", PyOp::Pos}, {"~", PyOp::Invert}};
    for (auto& [text, op] : kUnary) {
      if (at_op(text)) {
        Nest guard(*this);
        auto n = node(NK::UnaryOp);
        ++i_;
        n->op = op;
        n->kids.push_back(factor());
        return n;
      }
    }
    return power();
  }

  NodePtr power() {
    NodePtr base = primary();
    if (!at_op("**")) return base;
    auto n = node(NK::BinOp);
    ++i_;
    n->op = PyOp::Pow;
    n->kids.push_back(std::move(base));
    n->kids.push_back(factor());
    return n;
  }

  NodePtr primary() {
    NodePtr e = atom();
    while (true) {
      if (at_op("(")) {
        Nest guard(*this);
        auto c = node(NK::Call);
        ++i_;
        c->kids.push_back(std::move(e));
        call_arguments(*c);
        e = std::move(c);
      } else if (at_op("[")) {
        Nest guard(*this);
        auto s = node(NK::Subscript);
        ++i_;
        s->kids.push_back(std::move(e));
        s->kids.push_back(subscript_list());
        expect_op("]");
        e = std::move(s);
      } else if (at_op(".")) {
        auto a = node(NK::Attr);
        ++i_;
        a->sym = intern(name());
        a->kids.push_back(std::move(e));
        e = std::move(a);
      } else {
        return e;
      }
    }
  }

  void call_arguments(Node& c) {
    bool seen_keyword = false;
    while (!accept_op(")")) {
      if (accept_op("*")) {
        c.arg_kinds.push_back(kArgStarred);
        c.kids.push_back(test());
      } else if (accept_op("**")) {
        c.arg_kinds.push_back(kArgDoubleStarred);
        c.kids.push_back(test());
      } else if (at(TK::Name) && t_[i_ + 1].kind == TK::Op && t_[i_ + 1].text == "=") {
        Sym kw = intern(name());
        ++i_;
        for (size_t k = 0; k < c.arg_kinds.size(); ++k)
          if (c.arg_kinds[k] == kw) error("keyword argument repeated: " + sym_name(kw));
        c.arg_kinds.push_back(kw);
        c.kids.push_back(test());
        seen_keyword = true;
      } else {
        if (seen_keyword) error("positional argument follows keyword argument");
        NodePtr a = test();
        if (at_kw("for")) {
          int line = a->line; // read before the move: argument order is unspecified
          a = comprehension(std::move(a), line);
        }
        c.arg_kinds.push_back(kArgPositional);
        c.kids.push_back(std::move(a));
      }
      if (!accept_op(",")) {
        expect_op(")");
        break;
      }
    }
  }

  NodePtr subscript_list() {
    int line = cur().line;
    NodePtr first = subscript();
    if (!at_op(",")) return first;
    auto t = std::make_unique<Node>(NK::TupleExpr, line);
    t->kids.push_back(std::move(first));
    while (accept_op(",")) {
      if (at_op("]")) break;
      t->kids.push_back(subscript());
    }
    return t;
  }

  NodePtr subscript() {
    NodePtr start;
    if (!at_op(":")) {
      start = test();
      if (!at_op(":")) return start;
    }
    auto s = node(NK::SliceExpr);
    ++i_; // ':'
    NodePtr stop, step;
    if (!at_op("]") && !at_op(",") && !at_op(":")) stop = test();
    if (accept_op(":") && !at_op("]") && !at_op(",")) step = test();
    s->kids.push_back(std::move(start));
    s->kids.push_back(std::move(stop));
    s->kids.push_back(std::move(step));
    return s;
  }

  // An f-string's text: literal runs ({{ and }} are braces) go to `s`; each {expr!c:spec} field
  // becomes __format__(expr, "c", "spec"), parsed from its own tokens.
  template <class Flush>
  void fstring_parts(const std::string& text, int line, std::string& s, std::vector<NodePtr>& parts,
                     Flush flush) {
    for (size_t k = 0; k < text.size();) {
      char c = text[k];
      if (c == '}') {
        if (k + 1 < text.size() && text[k + 1] == '}') {
          s += '}';
          k += 2;
          continue;
        }
        throw PyError("SyntaxError", "f-string: single '}' is not allowed", line);
      }
      if (c != '{') {
        s += c;
        ++k;
        continue;
      }
      if (k + 1 < text.size() && text[k + 1] == '{') {
        s += '{';
        k += 2;
        continue;
      }
      // the field's end: the first ! or : or } outside brackets and quotes
      size_t j = k + 1;
      int depth = 0;
      char quote = 0;
      for (; j < text.size(); ++j) {
        char d = text[j];
        if (quote) {
          if (d == quote) quote = 0;
          continue;
        }
        if (d == '\'' || d == '"')
          quote = d;
        else if (d == '(' || d == '[' || d == '{')
          ++depth;
        else if (d == ')' || d == ']' || d == '}') {
          if (depth == 0) break;
          --depth;
        } else if (depth == 0 && (d == ':' || (d == '!' && j + 1 < text.size() && text[j + 1] != '=')))
          break;
      }
      std::string expr = text.substr(k + 1, j - k - 1), conv, spec;
      if (j < text.size() && text[j] == '!') {
        conv = text.substr(j + 1, 1);
        j += 2;
      }
      if (j < text.size() && text[j] == ':') {
        size_t e = text.find('}', j);
        if (e == std::string::npos) throw PyError("SyntaxError", "f-string: expecting '}'", line);
        spec = text.substr(j + 1, e - j - 1);
        if (spec.find('{') != std::string::npos)
          throw PyError("SyntaxError",
                        "f-string: nested fields in a format spec are not supported in .tg scripts", line);
        j = e;
      }
      if (j >= text.size() || text[j] != '}') throw PyError("SyntaxError", "f-string: expecting '}'", line);
      // {expr=}: the expression's text, then its repr (or its format with a spec), as Python 3.8
      size_t last = expr.find_last_not_of(' ');
      if (last != std::string::npos && last > 0 && expr[last] == '=' &&
          std::string("=!<>").find(expr[last - 1]) == std::string::npos) {
        s += expr;
        expr.resize(last);
        if (conv.empty() && spec.empty()) conv = "r";
      }
      if (expr.find_first_not_of(" ") == std::string::npos)
        throw PyError("SyntaxError", "f-string: empty expression not allowed", line);
      if (!conv.empty() && conv != "r" && conv != "s" && conv != "a")
        throw PyError("SyntaxError", "f-string: invalid conversion character: expected 's', 'r', or 'a'",
                      line);
      std::vector<Token> toks = tokenize("(" + expr + ")");
      for (Token& t : toks) t.line = line;
      Parser sub(std::move(toks));
      NodePtr value = sub.test();
      flush();
      auto call = std::make_unique<Node>(NK::Call, line);
      auto fn = std::make_unique<Node>(NK::Name, line);
      fn->ref.sym = intern("__format__");
      call->kids.push_back(std::move(fn));
      call->kids.push_back(std::move(value));
      for (const std::string* a : {&conv, &spec}) {
        auto arg = std::make_unique<Node>(NK::Const, line);
        arg->value = Value::str(*a);
        call->kids.push_back(std::move(arg));
      }
      call->arg_kinds.assign(3, kArgPositional);
      parts.push_back(std::move(call));
      k = j + 1;
    }
  }

  NodePtr comprehension(NodePtr element, int line) {
    auto n = std::make_unique<Node>(NK::ListComp, line);
    n->kids.push_back(std::move(element));
    while (accept_kw("for")) {
      Comprehension c;
      c.target = target_list();
      if (!accept_kw("in")) unexpected();
      c.iter = or_test();
      while (accept_kw("if")) c.conds.push_back(test_nocond());
      n->comps.push_back(std::move(c));
    }
    n->func = std::make_shared<FuncDef>();
    n->func->name = "<listcomp>";
    return n;
  }

  NodePtr atom() {
    const Token& tk = cur();
    int line = tk.line;
    auto constant = [&](Value v) {
      auto n = std::make_unique<Node>(NK::Const, line);
      n->value = std::move(v);
      ++i_;
      return n;
    };
    switch (tk.kind) {
    case TK::Int:
      return constant(Value::integer(tk.ival));
    case TK::Float:
      return constant(Value::floating(tk.fval));
    case TK::Str:
    case TK::Bytes: {
      bool bytes = tk.kind == TK::Bytes;
      std::vector<NodePtr> parts; // adjacent literals, f-strings among them, are one string
      std::string s;
      auto flush = [&] {
        if (s.empty()) return;
        parts.push_back(std::make_unique<Node>(NK::Const, line));
        parts.back()->value = Value::str(std::move(s));
        s.clear();
      };
      while (at(TK::Str) || at(TK::Bytes)) {
        if ((cur().kind == TK::Bytes) != bytes) error("cannot mix bytes and nonbytes literals");
        const Token& t = t_[i_++];
        if (!t.fstring) {
          s += t.text;
          continue;
        }
        fstring_parts(t.text, t.line, s, parts, flush);
      }
      if (bytes || parts.empty()) {
        auto n = std::make_unique<Node>(NK::Const, line);
        n->value = bytes ? Value::bytes(s) : Value::str(s);
        return n;
      }
      flush();
      // "".join([part, ...])
      auto empty = std::make_unique<Node>(NK::Const, line);
      empty->value = Value::str("");
      auto join = std::make_unique<Node>(NK::Attr, line);
      join->sym = intern("join");
      join->kids.push_back(std::move(empty));
      auto list = std::make_unique<Node>(NK::ListExpr, line);
      list->kids = std::move(parts);
      auto call = std::make_unique<Node>(NK::Call, line);
      call->kids.push_back(std::move(join));
      call->kids.push_back(std::move(list));
      call->arg_kinds.push_back(kArgPositional);
      return call;
    }
    case TK::Name: {
      if (tk.text == "None") return constant(Value::none());
      if (tk.text == "True") return constant(Value::boolean(true));
      if (tk.text == "False") return constant(Value::boolean(false));
      auto n = std::make_unique<Node>(NK::Name, line);
      n->ref.sym = intern(name());
      return n;
    }
    case TK::Op:
      break;
    default:
      unexpected();
    }
    if (at_op("...")) return constant(Value::ellipsis());
    if (at_op("(")) {
      Nest guard(*this);
      ++i_;
      if (accept_op(")")) return std::make_unique<Node>(NK::TupleExpr, line);
      NodePtr first = at_op("*") ? starred() : named_test();
      if (at_kw("for")) {
        NodePtr c = comprehension(std::move(first), line); // a generator, evaluated eagerly
        expect_op(")");
        return c;
      }
      if (accept_op(")")) {
        if (first->kind == NK::Starred) error("cannot use starred expression here");
        return first;
      }
      auto t = std::make_unique<Node>(NK::TupleExpr, line);
      t->kids.push_back(std::move(first));
      while (accept_op(",")) {
        if (at_op(")")) break;
        t->kids.push_back(at_op("*") ? starred() : test());
      }
      expect_op(")");
      return t;
    }
    if (at_op("[")) {
      Nest guard(*this);
      ++i_;
      auto l = std::make_unique<Node>(NK::ListExpr, line);
      if (accept_op("]")) return l;
      NodePtr first = at_op("*") ? starred() : test();
      if (at_kw("for")) {
        NodePtr c = comprehension(std::move(first), line);
        expect_op("]");
        return c;
      }
      l->kids.push_back(std::move(first));
      while (accept_op(",")) {
        if (at_op("]")) break;
        l->kids.push_back(at_op("*") ? starred() : test());
      }
      expect_op("]");
      return l;
    }
    if (at_op("{")) { // a dict display; set displays and dict comprehensions are not supported
      Nest guard(*this);
      ++i_;
      auto d = std::make_unique<Node>(NK::DictExpr, line);
      while (!at_op("}")) {
        d->kids.push_back(test());
        if (!accept_op(":")) error("set displays are not supported in .tg scripts");
        d->kids.push_back(test());
        if (d->kids.size() == 2 && at_kw("for")) { // {k: v for ...}: a comprehension of (k, v)
          auto pair = std::make_unique<Node>(NK::TupleExpr, line);
          pair->kids = std::move(d->kids);
          NodePtr c = comprehension(std::move(pair), line);
          c->kind = NK::DictComp;
          c->func->name = "<dictcomp>";
          expect_op("}");
          return c;
        }
        if (!accept_op(",")) break;
      }
      expect_op("}");
      return d;
    }
    unexpected();
  }

  std::vector<Token> t_;
  size_t i_ = 0;
  int nesting_ = 0;
};

} // namespace

Program parse_program(const std::string& source) {
  Program p = Parser(tokenize(source)).program();
  resolve_names(p);
  return p;
}

} // namespace tg::script
