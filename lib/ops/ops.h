// ops layer: tinygrad 0.9.1's op set (ops.py) as one flat enum with a category per op, and
// LazyOp, the kernel AST a ScheduleItem carries (STORE roots over LOAD/CONST leaves).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "dtype/dtype.h"
#include "shape/shapetracker.h"

namespace tg {

// clang-format off
enum class Op : uint8_t {
  // UnaryOps
  EXP2, LOG2, CAST, BITCAST, SIN, SQRT, NEG, RECIP,
  // BinaryOps
  ADD, MUL, IDIV, MAX, MOD, CMPLT, CMPNE, XOR, SHR, SHL,
  // TernaryOps
  WHERE, MULACC,
  // ReduceOps
  SUM, REDUCE_MAX,
  // BufferOps
  LOAD, CONST, STORE,
  // LoadOps
  EMPTY, LOAD_CONST, COPY, CONTIGUOUS, CUSTOM, ASSIGN, VIEW,
};
// clang-format on
constexpr int kNumOps = int(Op::VIEW) + 1;

enum class OpKind : uint8_t { Unary, Binary, Ternary, Reduce, Buffer, Load };
OpKind op_kind(Op op);
inline bool is_unary(Op op) { return op_kind(op) == OpKind::Unary; }
inline bool is_binary(Op op) { return op_kind(op) == OpKind::Binary; }
inline bool is_ternary(Op op) { return op_kind(op) == OpKind::Ternary; }
inline bool is_reduce(Op op) { return op_kind(op) == OpKind::Reduce; }
inline bool is_elementwise(Op op) { return op_kind(op) <= OpKind::Ternary; }
// "BinaryOps.ADD", "ReduceOps.MAX", "LoadOps.CONST": tinygrad's repr, used in artifacts.
std::string_view op_name(Op op);
std::optional<Op> op_from_name(std::string_view name);
// An op's number in binary artifacts: explicit and fixed, not the enum's position, so adding an
// op does not change how artifacts encode the others.
uint8_t op_code(Op op);
std::optional<Op> op_from_code(uint8_t code);
// Ops that do not keep f(0) = 0, so padding cannot be pushed through them.
bool is_unsafe_pad_op(Op op);

struct MemBuffer {
  int idx;
  DType dtype;
  ShapeTracker st;
  bool operator==(const MemBuffer&) const = default;
};
struct ConstBuffer {
  Scalar val;
  DType dtype;
  ShapeTracker st;
  bool operator==(const ConstBuffer& o) const { return val == o.val && dtype == o.dtype && st == o.st; }
};
using Axes = std::vector<int>;
// arg of a LazyOp: nothing, a dtype (CAST/BITCAST), reduce axes, or a buffer.
using LazyOpArg = std::variant<std::monostate, DType, Axes, MemBuffer, ConstBuffer>;

struct LazyOp;
using LazyOpPtr = std::shared_ptr<const LazyOp>;

struct LazyOp {
  Op op;
  std::vector<LazyOpPtr> src;
  LazyOpArg arg;

  static LazyOpPtr make(Op op, std::vector<LazyOpPtr> src, LazyOpArg arg = {});
  DType dtype() const; // as tinygrad: buffer dtype, cast target, bool for compares, else last src
};

} // namespace tg
