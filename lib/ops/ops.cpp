#include "ops/ops.h"

#include <array>
#include <string>

namespace tg {
namespace {

struct OpInfo {
  Op op;
  OpKind kind;
  std::string_view name;
};

// clang-format off
constexpr std::array<OpInfo, kNumOps> kOpTable{{
  {Op::EXP2, OpKind::Unary, "UnaryOps.EXP2"},       {Op::LOG2, OpKind::Unary, "UnaryOps.LOG2"},
  {Op::CAST, OpKind::Unary, "UnaryOps.CAST"},       {Op::BITCAST, OpKind::Unary, "UnaryOps.BITCAST"},
  {Op::SIN, OpKind::Unary, "UnaryOps.SIN"},         {Op::SQRT, OpKind::Unary, "UnaryOps.SQRT"},
  {Op::NEG, OpKind::Unary, "UnaryOps.NEG"},         {Op::RECIP, OpKind::Unary, "UnaryOps.RECIP"},
  {Op::ADD, OpKind::Binary, "BinaryOps.ADD"},       {Op::MUL, OpKind::Binary, "BinaryOps.MUL"},
  {Op::IDIV, OpKind::Binary, "BinaryOps.IDIV"},     {Op::MAX, OpKind::Binary, "BinaryOps.MAX"},
  {Op::MOD, OpKind::Binary, "BinaryOps.MOD"},       {Op::CMPLT, OpKind::Binary, "BinaryOps.CMPLT"},
  {Op::CMPNE, OpKind::Binary, "BinaryOps.CMPNE"},   {Op::XOR, OpKind::Binary, "BinaryOps.XOR"},
  {Op::SHR, OpKind::Binary, "BinaryOps.SHR"},       {Op::SHL, OpKind::Binary, "BinaryOps.SHL"},
  {Op::WHERE, OpKind::Ternary, "TernaryOps.WHERE"}, {Op::MULACC, OpKind::Ternary, "TernaryOps.MULACC"},
  {Op::SUM, OpKind::Reduce, "ReduceOps.SUM"},       {Op::REDUCE_MAX, OpKind::Reduce, "ReduceOps.MAX"},
  {Op::LOAD, OpKind::Buffer, "BufferOps.LOAD"},     {Op::CONST, OpKind::Buffer, "BufferOps.CONST"},
  {Op::STORE, OpKind::Buffer, "BufferOps.STORE"},
  {Op::EMPTY, OpKind::Load, "LoadOps.EMPTY"},       {Op::LOAD_CONST, OpKind::Load, "LoadOps.CONST"},
  {Op::COPY, OpKind::Load, "LoadOps.COPY"},         {Op::CONTIGUOUS, OpKind::Load, "LoadOps.CONTIGUOUS"},
  {Op::CUSTOM, OpKind::Load, "LoadOps.CUSTOM"},     {Op::ASSIGN, OpKind::Load, "LoadOps.ASSIGN"},
  {Op::VIEW, OpKind::Load, "LoadOps.VIEW"},
}};
// clang-format on

constexpr bool table_is_in_enum_order() {
  for (int i = 0; i < kNumOps; i++)
    if (int(kOpTable[i].op) != i) return false;
  return true;
}
static_assert(table_is_in_enum_order(), "kOpTable must list ops in enum order");

} // namespace

OpKind op_kind(Op op) { return kOpTable[int(op)].kind; }
std::string_view op_name(Op op) { return kOpTable[int(op)].name; }

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
