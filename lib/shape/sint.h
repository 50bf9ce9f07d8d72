// shape layer, one dimension: tinygrad's sint, an int or a symbolic expression over bound
// Variables (Variable("i", 1, 10).bind(3) in a shape). Most of tg works on concrete shapes;
// it reads a dimension as an int through the implicit conversion, which throws one clear error
// for a symbolic dimension. That keeps every int-only path as it was, and the paths that know
// symbolic shapes (views, the graph, the schedule, codegen, the runtime) ask is_int()/expr().
#pragma once
#include <concepts>
#include <cstdint>
#include <string>
#include <vector>

#include "shape/symbolic.h"

namespace tg {

class sint {
public:
  sint() = default;
  template <std::integral T> sint(T v) : v_(static_cast<int64_t>(v)) {}
  explicit sint(const Expr& e); // a Num becomes an int

  operator int64_t() const {
    if (e_) not_concrete();
    return v_;
  }
  bool is_int() const { return e_ == nullptr; }
  Expr expr() const { return e_ ? Expr(e_) : Expr(v_); }
  const ExprNode* node() const { return e_; } // nullptr for an int
  int64_t max() const { return e_ ? e_->max : v_; }
  int64_t min() const { return e_ ? e_->min : v_; }
  // tinygrad's str(): "3", or a symbolic dimension as rendered ("i", "(i+2)").
  std::string str() const { return e_ ? expr().render() : std::to_string(v_); }

  // (symbols by their canonical node: tinygrad compares nodes by text, so (i+2) and (2+i) are equal)
  friend bool operator==(const sint& a, const sint& b) {
    if (!a.e_ || !b.e_) return !a.e_ && !b.e_ && a.v_ == b.v_;
    return a.e_->canonical == b.e_->canonical;
  }
  template <std::integral T> friend bool operator==(const sint& a, T b) { return !a.e_ && a.v_ == b; }

private:
  [[noreturn]] void not_concrete() const;
  int64_t v_ = 0;
  const ExprNode* e_ = nullptr;
};

// A program's symbolic variable: its range, and the value the script bound it to
// (Variable("i", 1, 10).bind(3)): tg-run's value unless --var gives another.
struct VarBinding {
  std::string name;
  int64_t min = 0, max = 0, value = 0;
  bool operator==(const VarBinding&) const = default;
};

// A dimension's value with every variable at its value in `vars`; a ValueError names a variable
// the table lacks.
int64_t eval_dim(const sint& d, const std::vector<VarBinding>& vars);

// Symbolic arithmetic on dimensions (ints stay ints).
sint operator+(const sint& a, const sint& b);
sint operator-(const sint& a, const sint& b);
sint operator*(const sint& a, const sint& b);
inline sint& operator+=(sint& a, const sint& b) { return a = a + b; }
inline sint& operator-=(sint& a, const sint& b) { return a = a - b; }
inline sint& operator*=(sint& a, const sint& b) { return a = a * b; }
template <std::integral T> sint operator+(const sint& a, T b) { return a + sint(b); }
template <std::integral T> sint operator-(const sint& a, T b) { return a - sint(b); }
template <std::integral T> sint operator*(const sint& a, T b) { return a * sint(b); }
template <std::integral T> sint operator+(T a, const sint& b) { return sint(a) + b; }
template <std::integral T> sint operator-(T a, const sint& b) { return sint(a) - b; }
template <std::integral T> sint operator*(T a, const sint& b) { return sint(a) * b; }

// tinygrad's `a < b` on nodes (LtNode) as a truth value: false only where a < b is false at every
// value of the variables (a == b, or a.min >= b.max); for ints, a < b.
bool maybe_lt(const sint& a, const sint& b);
// min and max where the order is the same at every value (always, for ints); a symbolic pair
// whose order depends on the value is NotImplementedError naming `what` (tg has no min/max node,
// and tinygrad's Python min() on nodes would pick one side and be wrong at some values).
sint smin(const sint& a, const sint& b, const char* what);
sint smax(const sint& a, const sint& b, const char* what);

} // namespace tg
