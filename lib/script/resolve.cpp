// Name resolution, as Python's compiler does it: a name assigned anywhere in a function body
// is local to that function (a slot in its frame); other names refer to the nearest enclosing
// function that assigns them, or else to a global.
#include <unordered_map>
#include <unordered_set>

#include "script/ast.h"

namespace tg::script {
namespace {

class Resolver {
public:
  void module(std::vector<NodePtr>& body) { block(body); }

private:
  struct FuncScope {
    FuncDef* f;
    std::unordered_map<Sym, int> slots;
    std::unordered_set<Sym> globals, nonlocals; // `global x` / `nonlocal x`: not local here
    int declare(Sym s) {
      if (globals.count(s) || nonlocals.count(s)) return -1;
      auto [it, fresh] = slots.try_emplace(s, f->nlocals);
      if (fresh) {
        f->local_syms.push_back(s);
        ++f->nlocals;
      }
      return it->second;
    }
  };

  static void collect_target(const Node& t, FuncScope& sc) {
    if (t.kind == NK::Name) sc.declare(t.ref.sym);
    if (t.kind == NK::TupleExpr || t.kind == NK::ListExpr)
      for (auto& k : t.kids) collect_target(*k, sc);
    if (t.kind == NK::Starred) collect_target(*t.kids[0], sc);
  }
  // `x := v` in an expression binds x in the function around it (also from a comprehension).
  static void collect_named(const Node& n, FuncScope& sc) {
    if (n.kind == NK::Lambda) return;
    if (n.kind == NK::NamedExpr) collect_target(*n.kids[0], sc);
    for (auto& k : n.kids)
      if (k) collect_named(*k, sc);
    for (auto& c : n.comps) {
      if (c.iter) collect_named(*c.iter, sc);
      for (auto& cond : c.conds) collect_named(*cond, sc);
    }
  }
  // The function's `global` and `nonlocal` names, before anything is declared local.
  static void collect_decls(const std::vector<NodePtr>& body, FuncScope& sc) {
    for (auto& s : body) {
      if (s->kind == NK::Global || s->kind == NK::Nonlocal)
        for (auto& k : s->kids) (s->kind == NK::Global ? sc.globals : sc.nonlocals).insert(k->ref.sym);
      if (s->kind == NK::Def || s->kind == NK::Class) continue;
      collect_decls(s->body, sc);
      collect_decls(s->orelse, sc);
      if (s->kind == NK::Try)
        for (auto& h : s->kids) collect_decls(h->body, sc);
    }
  }
  static void collect_block(const std::vector<NodePtr>& body, FuncScope& sc) {
    for (auto& s : body) {
      if (s->kind != NK::Def && s->kind != NK::Class)
        for (auto& k : s->kids)
          if (k) collect_named(*k, sc);
      switch (s->kind) {
      case NK::Del:
        for (auto& k : s->kids) collect_target(*k, sc);
        break;
      case NK::Assign:
        for (size_t k = 0; k + 1 < s->kids.size(); ++k) collect_target(*s->kids[k], sc);
        break;
      case NK::AugAssign:
        collect_target(*s->kids[0], sc);
        break;
      case NK::For:
        collect_target(*s->kids[0], sc);
        break;
      case NK::With:
        if (s->kids.size() > 1) collect_target(*s->kids[1], sc);
        break;
      case NK::Def:
      case NK::Class:
        sc.declare(s->ref.sym);
        break;
      case NK::Try: // the handlers' `as` names and bodies, and finally's body
        for (auto& h : s->kids) {
          if (h->kind == NK::Except && h->kids[0]) collect_target(*h->kids[0], sc);
          collect_block(h->body, sc);
        }
        break;
      default:
        break;
      }
      collect_block(s->body, sc);
      collect_block(s->orelse, sc);
    }
  }

  void name(NameRef& ref) {
    for (int d = 0; d < int(scopes_.size()); ++d) {
      FuncScope& sc = scopes_[scopes_.size() - 1 - d];
      if (d == 0 && sc.globals.count(ref.sym)) break; // `global x`: the module's x
      if (d > 0 && sc.f->is_class) continue;          // a class body's names: only the body itself sees them
      auto it = sc.slots.find(ref.sym);
      if (it != sc.slots.end()) {
        ref.scope = d == 0 ? Scope::Local : Scope::Enclosing;
        ref.depth = d;
        ref.slot = it->second;
        return;
      }
    }
    ref.scope = Scope::Global;
  }

  void function(FuncDef& f) {
    scopes_.push_back(FuncScope{&f, {}, {}, {}});
    collect_decls(f.body, scopes_.back());
    for (Sym p : f.params) scopes_.back().declare(p);
    collect_block(f.body, scopes_.back());
    block(f.body);
    scopes_.pop_back();
  }

  void block(std::vector<NodePtr>& body) {
    for (auto& s : body) node(s.get());
  }

  void node(Node* n) {
    if (!n) return;
    switch (n->kind) {
    case NK::Name:
      name(n->ref);
      return;
    case NK::Def:
      for (auto& k : n->kids) node(k.get()); // decorators
      for (auto& d : n->func->defaults)
        if (d) node(d.get());
      name(n->ref);
      function(*n->func);
      return;
    case NK::Class:
      for (auto& k : n->kids) node(k.get());
      name(n->ref);
      function(*n->func); // no parameters: the body's names become its slots
      return;
    case NK::Lambda:
      for (auto& d : n->func->defaults)
        if (d) node(d.get());
      function(*n->func);
      return;
    case NK::ListComp:
    case NK::DictComp: {
      // The first iterable is evaluated in the enclosing scope, the rest in the comprehension's.
      node(n->comps[0].iter.get());
      FuncDef& f = *n->func;
      scopes_.push_back(FuncScope{&f, {}, {}, {}});
      for (auto& c : n->comps) collect_target(*c.target, scopes_.back());
      for (size_t k = 0; k < n->comps.size(); ++k) {
        node(n->comps[k].target.get());
        if (k > 0) node(n->comps[k].iter.get());
        for (auto& c : n->comps[k].conds) node(c.get());
      }
      node(n->kids[0].get());
      scopes_.pop_back();
      return;
    }
    default:
      break;
    }
    for (auto& k : n->kids) node(k.get());
    block(n->body);
    block(n->orelse);
  }

  std::vector<FuncScope> scopes_;
};

} // namespace

void resolve_names(Program& program) { Resolver().module(program.body); }

} // namespace tg::script
