// shape layer, symbolic integers: tinygrad 0.9.1's shape/symbolic.py. Index and valid
// expressions are trees of interned, immutable nodes (hash-consed: structurally equal nodes
// are the same pointer), simplified as they are built, with [min, max] bounds on every node.
// Variables name loop indices (gidx0, ridx1 ...) and a program's symbolic dimensions (sint.h).
#pragma once
#include <concepts>
#include <cstdint>
#include <string>
#include <vector>

namespace tg {

enum class ExprKind : uint8_t { Num, Var, Mul, Div, Mod, Lt, Sum, And };

struct ExprNode {
  ExprKind kind;
  int64_t min, max;                   // bounds, inclusive
  int64_t b = 0;                      // Num: value; Mul/Div/Mod/Lt: the int right operand
  const ExprNode* a = nullptr;        // Mul/Div/Mod/Lt: left operand
  const ExprNode* bn = nullptr;       // Mul by a symbolic right operand (a stride `i`); b is then 0
  std::vector<const ExprNode*> nodes; // Sum/And operands
  std::string name;                   // Var
  // Added: the same node with Sum/And operands in a fixed order, so nodes tinygrad calls equal
  // (its equality compares rendered text, which sorts Sum/And operands) share one `canonical`.
  const ExprNode* canonical = nullptr;
};

// A handle to an interned node; cheap to copy, compares by identity (== structural equality).
class Expr {
public:
  Expr() = default;
  Expr(int64_t v); // NumNode
  // Added: any integer type, so Expr(0) is not ambiguous with the node-pointer constructor.
  template <std::integral T> Expr(T v) : Expr(static_cast<int64_t>(v)) {}
  explicit Expr(const ExprNode* n) : n_(n) {}
  static Expr var(const std::string& name, int64_t min, int64_t max);
  static Expr sum(const std::vector<Expr>& xs);  // Node.sum
  static Expr ands(const std::vector<Expr>& xs); // Node.ands

  const ExprNode* node() const { return n_; }
  ExprKind kind() const { return n_->kind; }
  int64_t min() const { return n_->min; }
  int64_t max() const { return n_->max; }
  bool is_num() const { return n_->kind == ExprKind::Num; }
  int64_t num() const { return n_->b; } // only for is_num()
  bool operator==(const Expr& o) const { return n_ == o.n_; }
  bool operator!=(const Expr& o) const { return n_ != o.n_; }
  bool operator==(int64_t v) const { return is_num() && num() == v; }

  Expr operator-() const;
  Expr operator+(const Expr& o) const;
  Expr operator-(const Expr& o) const;
  Expr operator*(int64_t b) const;
  Expr operator*(const Expr& b) const; // MulNode with a Node operand (symbolic strides)
  Expr floordiv(int64_t b, bool factoring_allowed = true) const; // Python //
  Expr operator/(int64_t b) const { return floordiv(b); }
  Expr operator%(int64_t b) const;
  Expr operator<(int64_t b) const;
  Expr operator<(const Expr& b) const; // only when b is a Num or the result folds
  Expr operator>=(int64_t b) const;    // (-self) < (-b+1)
  // Added: create_lt_node / create_ge_node, the simplifying comparisons the shapetracker and
  // linearizer use (operator< is Node.__lt__, which only folds on bounds).
  Expr lt(int64_t b) const;
  Expr ge(int64_t b) const;
  bool truthy() const { return !(n_->min == 0 && n_->max == 0); } // Node.__bool__

  // tinygrad's render() text (str() without <> and variable bounds), e.g. "((idx0*4)+idx1)".
  std::string render() const;
  std::string render_debug() const; // Added: ctx="DEBUG" form, variables as name[min-max]
  std::vector<Expr> vars() const;
  Expr substitute(const std::vector<std::pair<Expr, Expr>>& var_vals) const;

private:
  const ExprNode* n_ = nullptr;
};

// Empties this thread's memo of symbolic results (tinygrad's lru_caches): codegen calls it
// before each kernel, so a kernel's index expressions do not depend on the kernels before it.
void reset_symbolic_memo();

// Added: int on the left, as Python's __radd__/__rsub__/__rmul__ do it.
inline Expr operator+(int64_t a, const Expr& b) { return b + Expr(a); }
inline Expr operator-(int64_t a, const Expr& b) { return -b + Expr(a); }
inline Expr operator*(int64_t a, const Expr& b) { return b * a; }

} // namespace tg
