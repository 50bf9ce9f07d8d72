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

// Every op, declared once: its enum name, its category, tinygrad's repr (used in text artifacts)
// and its number in binary artifacts. A number is fixed once given, so the list may grow or
// reorder without changing how artifacts encode the others; ops.cpp checks they are distinct.
// clang-format off
#define TG_OPS(X) \
  /* UnaryOps */ \
  X(EXP2, Unary, "UnaryOps.EXP2", 0)     X(LOG2, Unary, "UnaryOps.LOG2", 1) \
  X(CAST, Unary, "UnaryOps.CAST", 2)     X(BITCAST, Unary, "UnaryOps.BITCAST", 3) \
  X(SIN, Unary, "UnaryOps.SIN", 4)       X(SQRT, Unary, "UnaryOps.SQRT", 5) \
  X(NEG, Unary, "UnaryOps.NEG", 6)       X(RECIP, Unary, "UnaryOps.RECIP", 7) \
  /* BinaryOps */ \
  X(ADD, Binary, "BinaryOps.ADD", 8)     X(MUL, Binary, "BinaryOps.MUL", 9) \
  X(IDIV, Binary, "BinaryOps.IDIV", 10)  X(MAX, Binary, "BinaryOps.MAX", 11) \
  X(MOD, Binary, "BinaryOps.MOD", 12)    X(CMPLT, Binary, "BinaryOps.CMPLT", 13) \
  X(CMPNE, Binary, "BinaryOps.CMPNE", 14) X(XOR, Binary, "BinaryOps.XOR", 15) \
  X(SHR, Binary, "BinaryOps.SHR", 16)    X(SHL, Binary, "BinaryOps.SHL", 17) \
  /* TernaryOps */ \
  X(WHERE, Ternary, "TernaryOps.WHERE", 18) X(MULACC, Ternary, "TernaryOps.MULACC", 19) \
  /* ReduceOps */ \
  X(SUM, Reduce, "ReduceOps.SUM", 20)    X(REDUCE_MAX, Reduce, "ReduceOps.MAX", 21) \
  /* BufferOps */ \
  X(LOAD, Buffer, "BufferOps.LOAD", 22)  X(CONST, Buffer, "BufferOps.CONST", 23) \
  X(STORE, Buffer, "BufferOps.STORE", 24) \
  /* LoadOps */ \
  X(EMPTY, Load, "LoadOps.EMPTY", 25)    X(LOAD_CONST, Load, "LoadOps.CONST", 26) \
  X(COPY, Load, "LoadOps.COPY", 27)      X(CONTIGUOUS, Load, "LoadOps.CONTIGUOUS", 28) \
  X(CUSTOM, Load, "LoadOps.CUSTOM", 29)  X(ASSIGN, Load, "LoadOps.ASSIGN", 30) \
  X(VIEW, Load, "LoadOps.VIEW", 31)
// clang-format on

#define TG_OP_ENUM(op, kind, name, code) op,
enum class Op : uint8_t { TG_OPS(TG_OP_ENUM) };
#undef TG_OP_ENUM
#define TG_OP_COUNT(op, kind, name, code) +1
constexpr int kNumOps = 0 TG_OPS(TG_OP_COUNT);
#undef TG_OP_COUNT

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
