#include "ops/exec_alu.h"

#include <cmath>

#include "util/error.h"

namespace tg {
namespace {

using Kind = Scalar::Kind;
using i128 = __int128;
using u128 = unsigned __int128;

// An int operand's true value: Python's ints are unbounded, so read it as its dtype holds it.
i128 int_value(const Scalar& s, DType dt) {
  if (s.kind == Kind::Bool) return s.b;
  if (s.kind == Kind::Float) return i128(s.f);
  return dt == DType::UInt64 ? i128(uint64_t(s.i)) : i128(s.i);
}
// Back to a Scalar: the low 64 bits, which truncate() then narrows to the result dtype.
Scalar of_i128(i128 v) { return Scalar::of_int(int64_t(uint64_t(u128(v)))); }

[[noreturn]] void type_error(Op op) {
  fail("TypeError", "unsupported operand type(s) for " + std::string(op_name(op)));
}

Scalar python_float(Op op, const std::vector<Scalar>& s) {
  double x = s[0].as_double(), y = s.size() > 1 ? s[1].as_double() : 0.0;
  switch (op) {
  case Op::LOG2:
    return Scalar::of_float(x > 0 ? std::log2(x) : x == 0 ? -INFINITY : NAN);
  case Op::EXP2:
    return Scalar::of_float(std::exp2(x));
  case Op::SQRT:
    return Scalar::of_float(x >= 0 ? std::sqrt(x) : NAN);
  case Op::SIN:
    return Scalar::of_float(std::isinf(x) ? NAN : std::sin(x));
  case Op::RECIP:
    return Scalar::of_float(x != 0 ? 1 / x : std::copysign(INFINITY, x));
  case Op::NEG:
    return Scalar::of_float(-x);
  case Op::ADD:
    return Scalar::of_float(x + y);
  case Op::MUL:
    return Scalar::of_float(x * y);
  case Op::MAX:
    return y > x ? s[1] : s[0]; // Python's max keeps the first unless the second is larger
  case Op::CMPLT:
    return Scalar::of_bool(x < y);
  case Op::CMPNE:
    return Scalar::of_bool(x != y);
  case Op::IDIV: // int(x/y), or x*inf for y == 0
    if (y == 0) return Scalar::of_float(x * INFINITY);
    if (!std::isfinite(x / y)) fail("OverflowError", "cannot convert float infinity to integer");
    return Scalar::of_float(std::trunc(x / y));
  case Op::MOD: { // abs(int(x)) % abs(int(y)), with x's sign
    if (!std::isfinite(x) || !std::isfinite(y))
      fail("OverflowError", "cannot convert float infinity to integer");
    double a = std::fabs(std::trunc(x)), b = std::fabs(std::trunc(y));
    if (b == 0) fail("ZeroDivisionError", "integer modulo by zero");
    double r = std::fmod(a, b);
    return Scalar::of_float(x < 0 ? -r : r);
  }
  default:
    type_error(op);
  }
}

Scalar python_int(Op op, const std::vector<Scalar>& s, DType dt) {
  i128 x = int_value(s[0], dt), y = s.size() > 1 ? int_value(s[1], dt) : 0;
  switch (op) {
  case Op::NEG:
    return of_i128(-x);
  case Op::ADD:
    return of_i128(i128(u128(x) + u128(y)));
  case Op::MUL:
    return of_i128(i128(u128(x) * u128(y)));
  case Op::MAX:
    return y > x ? s[1] : s[0];
  case Op::CMPLT:
    return Scalar::of_bool(x < y);
  case Op::CMPNE:
    return Scalar::of_bool(x != y);
  case Op::XOR:
    return of_i128(x ^ y);
  case Op::SHL:
    if (y < 0) fail("ValueError", "negative shift count");
    return of_i128(y >= 64 ? 0 : i128(u128(x) << int(y)));
  case Op::SHR:
    if (y < 0) fail("ValueError", "negative shift count");
    return of_i128(y >= 127 ? (x < 0 ? -1 : 0) : x >> int(y));
  case Op::IDIV: // int(x/y): truncating, exact here where Python's float division is not
    if (y == 0) fail("TypeError", "'float' object cannot be interpreted as an integer");
    return of_i128(x / y);
  case Op::MOD:
    if (y == 0) fail("ZeroDivisionError", "integer modulo by zero");
    return of_i128(x % y); // C++ keeps the dividend's sign, as the lambda does
  default:
    return python_float(op, s); // a float function of an int: Python gives a float
  }
}

Scalar python_alu(Op op, const std::vector<Scalar>& s, DType operand_dtype) {
  if (op == Op::WHERE) return s[0].truthy() ? s[1] : s[2];
  bool floats = is_float(operand_dtype);
  for (const Scalar& v : s) floats = floats || v.kind == Kind::Float;
  if (floats) return python_float(op, s);
  bool bools = operand_dtype == DType::Bool;
  for (const Scalar& v : s) bools = bools && v.kind != Kind::Int;
  // bool op bool stays a bool in Python where int would not (not x, x ^ y, max)
  if (bools && op == Op::NEG) return Scalar::of_bool(!s[0].truthy());
  Scalar r = python_int(op, s, operand_dtype);
  return bools && r.kind == Kind::Int ? Scalar::of_bool(r.i != 0) : r;
}

DType default_operand_dtype(Op op, DType dtype, const std::vector<Scalar>& s) {
  if (op != Op::CMPLT && op != Op::CMPNE) return dtype;
  Kind k = s[0].kind;
  return k == Kind::Float ? DType::Float64 : k == Kind::Int ? DType::Int64 : DType::Bool;
}

} // namespace

Scalar truncate_const(const Scalar& v, DType dtype) {
  switch (dtype) {
  case DType::Float16: {
    double x = v.as_double();
    if (std::isfinite(x) && std::fabs(x) >= 65520.0) return Scalar::of_float(std::copysign(INFINITY, x));
    return Scalar::of_float(x);
  }
  case DType::BFloat16:
    return v;
  case DType::Float32:
  case DType::Float64:
    return truncate(Scalar::of_float(v.as_double()), dtype);
  default:
    if (is_int(dtype) && v.kind == Kind::Float && !std::isfinite(v.f))
      fail("TypeError", "'float' object cannot be interpreted as an integer");
    return truncate(v, dtype);
  }
}

Scalar exec_alu(Op op, DType dtype, const std::vector<Scalar>& operands, std::optional<DType> operand_dtype) {
  DType odt = operand_dtype.value_or(default_operand_dtype(op, dtype, operands));
  return truncate_const(python_alu(op, operands, odt), dtype);
}

std::optional<Scalar> try_exec_alu(Op op, DType dtype, const std::vector<Scalar>& operands,
                                   std::optional<DType> operand_dtype) {
  try {
    return exec_alu(op, dtype, operands, operand_dtype);
  } catch (const Error&) {
    return std::nullopt;
  }
}

} // namespace tg
