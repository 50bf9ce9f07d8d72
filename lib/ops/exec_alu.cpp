#include "ops/exec_alu.h"

#include <cmath>
#include <cstdlib>

#include "util/error.h"

namespace tg {
namespace {

using Kind = Scalar::Kind;

bool both_int(const Scalar& a, const Scalar& b) { return a.kind != Kind::Float && b.kind != Kind::Float; }

// Python's binary arithmetic on bool/int/float: int op int stays int, anything with a float is float.
Scalar arith(Op op, const Scalar& a, const Scalar& b) {
  if (both_int(a, b)) {
    int64_t x = a.as_int(), y = b.as_int();
    switch (op) {
    case Op::ADD: return Scalar::of_int(int64_t(uint64_t(x) + uint64_t(y)));
    case Op::MUL: return Scalar::of_int(int64_t(uint64_t(x) * uint64_t(y)));
    case Op::MAX:
      if (a.kind == Kind::Bool && b.kind == Kind::Bool) return Scalar::of_bool(a.b || b.b);
      return x >= y ? a : b;
    case Op::XOR:
      if (a.kind == Kind::Bool && b.kind == Kind::Bool) return Scalar::of_bool(a.b != b.b);
      return Scalar::of_int(x ^ y);
    case Op::SHL: return Scalar::of_int(y >= 64 ? 0 : int64_t(uint64_t(x) << y));
    case Op::SHR: return Scalar::of_int(y >= 64 ? (x < 0 ? -1 : 0) : x >> y);
    default: break;
    }
  }
  double x = a.as_double(), y = b.as_double();
  switch (op) {
  case Op::ADD: return Scalar::of_float(x + y);
  case Op::MUL: return Scalar::of_float(x * y);
  case Op::MAX: return x >= y || std::isnan(x) ? a : b;
  default: fail("TypeError", std::string("unsupported operand type(s) for ") + std::string(op_name(op)));
  }
}

bool less(const Scalar& a, const Scalar& b) {
  return both_int(a, b) ? a.as_int() < b.as_int() : a.as_double() < b.as_double();
}
bool not_equal(const Scalar& a, const Scalar& b) {
  return both_int(a, b) ? a.as_int() != b.as_int() : a.as_double() != b.as_double();
}

Scalar python_alu(Op op, const std::vector<Scalar>& s) {
  switch (op) {
  case Op::LOG2: {
    double x = s[0].as_double();
    return Scalar::of_float(x > 0 ? std::log2(x) : x == 0 ? -INFINITY : NAN);
  }
  case Op::EXP2: return Scalar::of_float(std::exp2(s[0].as_double()));
  case Op::SQRT: {
    double x = s[0].as_double();
    return Scalar::of_float(x >= 0 ? std::sqrt(x) : NAN);
  }
  case Op::SIN: {
    double x = s[0].as_double();
    return Scalar::of_float(std::isinf(x) ? NAN : std::sin(x));
  }
  case Op::RECIP: {
    double x = s[0].as_double();
    return Scalar::of_float(x != 0 ? 1 / x : std::copysign(INFINITY, x));
  }
  case Op::NEG:
    if (s[0].kind == Kind::Bool) return Scalar::of_bool(!s[0].b);
    if (s[0].kind == Kind::Int) return Scalar::of_int(-s[0].i);
    return Scalar::of_float(-s[0].f);
  case Op::CMPLT: return Scalar::of_bool(less(s[0], s[1]));
  case Op::CMPNE: return Scalar::of_bool(not_equal(s[0], s[1]));
  case Op::MOD: {
    int64_t x = s[0].as_int(), y = s[1].as_int();
    if (y == 0) fail("ZeroDivisionError", "integer modulo by zero");
    int64_t r = std::llabs(x) % std::llabs(y);
    return Scalar::of_int(x < 0 ? -r : r);
  }
  case Op::IDIV: {
    double x = s[0].as_double(), y = s[1].as_double();
    if (y == 0) return Scalar::of_float(x * INFINITY);
    if (both_int(s[0], s[1])) {
      int64_t a = s[0].as_int(), b = s[1].as_int();
      return Scalar::of_int(a / b);
    }
    return Scalar::of_int(int64_t(std::trunc(x / y)));
  }
  case Op::WHERE: return s[0].truthy() ? s[1] : s[2];
  default: return arith(op, s[0], s[1]);
  }
}

} // namespace

Scalar truncate_const(const Scalar& v, DType dtype) {
  switch (dtype) {
  case DType::Float16: {
    double x = v.as_double();
    if (std::isfinite(x) && std::fabs(x) >= 65520.0) return Scalar::of_float(std::copysign(INFINITY, x));
    return Scalar::of_float(x);
  }
  case DType::BFloat16: return v;
  case DType::Float32:
  case DType::Float64: return truncate(Scalar::of_float(v.as_double()), dtype);
  default: return truncate(v, dtype);
  }
}

Scalar exec_alu(Op op, DType dtype, const std::vector<Scalar>& operands) {
  return truncate_const(python_alu(op, operands), dtype);
}

} // namespace tg
