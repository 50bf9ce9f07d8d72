#include "ops/ops.h"

#include <array>
#include <string>

namespace tg {
namespace {

struct OpInfo {
  Op op;
  OpKind kind;
  std::string_view name;
  uint8_t code;
};

#define TG_OP_INFO(op, kind, name, code) {Op::op, OpKind::kind, name, code},
constexpr std::array<OpInfo, kNumOps> kOpTable{{TG_OPS(TG_OP_INFO)}};
#undef TG_OP_INFO

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
