#include "ops/ops.h"

#include <array>
#include <string>

namespace tg {
namespace {

struct OpInfo {
  Op op;
  OpKind kind;
  std::string_view name;
  uint8_t code; // in binary artifacts: fixed once given, so the enum may grow or reorder freely
};

// clang-format off
constexpr std::array<OpInfo, kNumOps> kOpTable{{
  {Op::EXP2, OpKind::Unary, "UnaryOps.EXP2", 0},       {Op::LOG2, OpKind::Unary, "UnaryOps.LOG2", 1},
  {Op::CAST, OpKind::Unary, "UnaryOps.CAST", 2},       {Op::BITCAST, OpKind::Unary, "UnaryOps.BITCAST", 3},
  {Op::SIN, OpKind::Unary, "UnaryOps.SIN", 4},         {Op::SQRT, OpKind::Unary, "UnaryOps.SQRT", 5},
  {Op::NEG, OpKind::Unary, "UnaryOps.NEG", 6},         {Op::RECIP, OpKind::Unary, "UnaryOps.RECIP", 7},
  {Op::ADD, OpKind::Binary, "BinaryOps.ADD", 8},       {Op::MUL, OpKind::Binary, "BinaryOps.MUL", 9},
  {Op::IDIV, OpKind::Binary, "BinaryOps.IDIV", 10},     {Op::MAX, OpKind::Binary, "BinaryOps.MAX", 11},
  {Op::MOD, OpKind::Binary, "BinaryOps.MOD", 12},       {Op::CMPLT, OpKind::Binary, "BinaryOps.CMPLT", 13},
  {Op::CMPNE, OpKind::Binary, "BinaryOps.CMPNE", 14},   {Op::XOR, OpKind::Binary, "BinaryOps.XOR", 15},
  {Op::SHR, OpKind::Binary, "BinaryOps.SHR", 16},       {Op::SHL, OpKind::Binary, "BinaryOps.SHL", 17},
  {Op::WHERE, OpKind::Ternary, "TernaryOps.WHERE", 18}, {Op::MULACC, OpKind::Ternary, "TernaryOps.MULACC", 19},
  {Op::SUM, OpKind::Reduce, "ReduceOps.SUM", 20},       {Op::REDUCE_MAX, OpKind::Reduce, "ReduceOps.MAX", 21},
  {Op::LOAD, OpKind::Buffer, "BufferOps.LOAD", 22},     {Op::CONST, OpKind::Buffer, "BufferOps.CONST", 23},
  {Op::STORE, OpKind::Buffer, "BufferOps.STORE", 24},
  {Op::EMPTY, OpKind::Load, "LoadOps.EMPTY", 25},       {Op::LOAD_CONST, OpKind::Load, "LoadOps.CONST", 26},
  {Op::COPY, OpKind::Load, "LoadOps.COPY", 27},         {Op::CONTIGUOUS, OpKind::Load, "LoadOps.CONTIGUOUS", 28},
  {Op::CUSTOM, OpKind::Load, "LoadOps.CUSTOM", 29},     {Op::ASSIGN, OpKind::Load, "LoadOps.ASSIGN", 30},
  {Op::VIEW, OpKind::Load, "LoadOps.VIEW", 31},
}};
// clang-format on

constexpr bool table_is_in_enum_order() {
  for (int i = 0; i < kNumOps; i++)
    if (int(kOpTable[i].op) != i) return false;
  return true;
}
static_assert(table_is_in_enum_order(), "kOpTable must list ops in enum order");

constexpr bool codes_are_distinct() {
  for (int i = 0; i < kNumOps; i++)
    for (int j = i + 1; j < kNumOps; j++)
      if (kOpTable[i].code == kOpTable[j].code) return false;
  return true;
}
static_assert(codes_are_distinct(), "two ops share a binary artifact code");

} // namespace

OpKind op_kind(Op op) { return kOpTable[int(op)].kind; }
std::string_view op_name(Op op) { return kOpTable[int(op)].name; }

uint8_t op_code(Op op) { return kOpTable[int(op)].code; }

std::optional<Op> op_from_code(uint8_t code) {
  for (const OpInfo& info : kOpTable)
    if (info.code == code) return info.op;
  return std::nullopt;
}

std::optional<Op> op_from_name(std::string_view name) {
  for (const OpInfo& info : kOpTable)
    if (info.name == name) return info.op;
  return std::nullopt;
}

bool is_unsafe_pad_op(Op op) { return op == Op::RECIP || op == Op::LOG2 || op == Op::EXP2 || op == Op::IDIV; }

LazyOpPtr LazyOp::make(Op op, std::vector<LazyOpPtr> src, LazyOpArg arg) {
  return std::make_shared<const LazyOp>(LazyOp{op, std::move(src), std::move(arg)});
}

DType LazyOp::dtype() const {
  if (op_kind(op) == OpKind::Buffer) {
    if (auto* mb = std::get_if<MemBuffer>(&arg)) return mb->dtype;
    if (auto* cb = std::get_if<ConstBuffer>(&arg)) return cb->dtype;
  }
  if (op == Op::CAST || op == Op::BITCAST) {
    if (auto* dt = std::get_if<DType>(&arg)) return *dt;
  }
  if (op == Op::CMPLT || op == Op::CMPNE) return DType::Bool;
  if (src.empty()) return kDefaultFloat;
  return src.back()->dtype();
}

} // namespace tg
