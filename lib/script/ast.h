// script layer, syntax tree: one Node type for expressions and statements, with names
// resolved at parse time to a frame slot, an enclosing frame's slot, or a global symbol.
#pragma once
#include <memory>
#include <vector>

#include "script/value.h"

namespace tg::script {

enum class NK : uint8_t {
  // expressions
  Const,
  Name,
  Attr,      // kids[0].sym
  Subscript, // kids[0][kids[1]]
  Call,      // kids[0](kids[1..]) with arg_kinds
  BinOp,     // op
  UnaryOp,   // op
  And,
  Or,
  Not,
  Compare, // kids[0] ops[0] kids[1] ops[1] kids[2] ...
  IfExp,   // kids: body, test, orelse
  ListExpr,
  DictExpr, // kids: key0, value0, key1, value1, ...
  TupleExpr,
  SliceExpr, // kids: start, stop, step (nullptr = omitted)
  Lambda,
  ListComp,  // kids[0] element; comps
  DictComp,  // kids[0] a (key, value) TupleExpr; comps
  Starred,   // *kids[0] (in calls and list/tuple displays)
  NamedExpr, // kids[0] := kids[1] (kids[0] a Name)
  // statements
  ExprStmt,
  Assign,    // kids[0..n-2] targets, kids[n-1] value
  AugAssign, // kids[0] target, kids[1] value, op
  AttrAssign,
  If,    // kids: test; body; orelse
  For,   // kids[0] target, kids[1] iterable; body
  While, // kids[0] test; body
  Def,   // func; ref = the function's name
  Return,
  Pass,
  Break,
  Continue,
  Assert,   // kids: test [, msg]
  With,     // kids[0] context expression [, kids[1] `as` target]; body (`with a, b:` nests)
  Class,    // kids: base expressions (`object` dropped); func: the class body's scope; ref = the name
  Try,      // body; kids: Except handlers, then a Finally if any; orelse: the else block
  Except,   // arg_kinds: the exception class names (none: bare `except:`); kids[0] `as` target or
            // nullptr; body
  Finally,  // body
  Raise,    // kids[0] the exception (a class or a call of one; none: re-raise)
  Del,      // kids: the targets (names, subscripts)
  Global,   // kids: the names (Name nodes)
  Nonlocal, // kids: the names (Name nodes)
};

enum class PyOp : uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  FloorDiv,
  Mod,
  Pow,
  MatMul,
  LShift,
  RShift,
  BitAnd,
  BitOr,
  BitXor,
  Neg,
  Pos,
  Invert,
  Lt,
  Gt,
  Le,
  Ge,
  Eq,
  Ne,
  In,
  NotIn,
  Is,
  IsNot,
};

enum class Scope : uint8_t { Local, Enclosing, Global };
struct NameRef {
  Scope scope = Scope::Global;
  int depth = 0; // Enclosing: frames to walk up
  int slot = 0;  // Local/Enclosing: slot in the frame
  Sym sym = -1;
};

struct Node;
using NodePtr = std::unique_ptr<Node>;
struct FuncDef;

// Kinds of call arguments.
constexpr Sym kArgPositional = -1;
constexpr Sym kArgStarred = -2;
constexpr Sym kArgDoubleStarred = -3; // **mapping

struct Comprehension {
  NodePtr target, iter;
  std::vector<NodePtr> conds;
};

struct Node {
  NK kind;
  int line = 0;
  PyOp op = PyOp::Add;
  Value value;  // Const
  Sym sym = -1; // Attr name
  NameRef ref;  // Name, Def
  std::vector<NodePtr> kids;
  std::vector<Sym> arg_kinds; // Call: per argument kArgPositional, kArgStarred or keyword
  std::vector<PyOp> ops;      // Compare
  std::vector<NodePtr> body, orelse;
  std::vector<Comprehension> comps;
  std::shared_ptr<FuncDef> func; // Def, Lambda, ListComp (its scope)
  Node(NK k, int l) : kind(k), line(l) {}
};

struct FuncDef {
  std::string name; // "f", "<lambda>", "<listcomp>"
  std::vector<Sym> params;
  std::vector<NodePtr> defaults; // per param (null: none)
  int vararg_slot = -1;          // *args, or a bare * (named "*"): the params after it are keyword-only
  int kwarg_slot = -1;           // **kwargs
  int nlocals = 0;               // params first, then other locals
  std::vector<Sym> local_syms;   // slot -> name
  std::vector<NodePtr> body;     // Lambda: one Return
  bool is_class = false;         // a class body: its names are not visible to nested scopes
};

struct Program {
  std::vector<NodePtr> body;
};

// Parses a whole script; raises PyError("SyntaxError"/"IndentationError") with its line.
Program parse_program(const std::string& source);

} // namespace tg::script
