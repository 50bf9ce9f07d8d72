// Cost estimates. See estimate.h.
#include "codegen/estimate.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>

#include "shape/shapetracker.h"

namespace tg {

namespace {

// Estimates saturate instead of failing: a kernel too big to count still runs.
int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}
int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

// A loop's trip count: its end bound, through the split loop's min(core_end, n) (uses n) and a
// symbolic variable (uses its largest value).
int64_t trip_count(const UOp* end) {
  while (end->is_alu(Op::WHERE)) end = end->src[2];
  if (end->is_const()) return end->value().as_int();
  if (const VarArg* v = std::get_if<VarArg>(&end->arg)) return v->max;
  return 1;
}

} // namespace

CostEstimate ast_estimate(const LazyOp& root) {
  std::unordered_map<const LazyOp*, Shape> shape; // each node's output shape, once computed
  std::map<int, int64_t> mem;                     // buffer index -> bytes (a STORE overrides)
  int64_t flops = 0;
  std::vector<std::pair<const LazyOp*, bool>> stack{{&root, false}};
  while (!stack.empty()) { // post-order without recursion: ASTs can be thousands of ops deep
    auto [op, expanded] = stack.back();
    stack.pop_back();
    if (shape.count(op)) continue;
    if (!expanded) {
      stack.push_back({op, true});
      for (auto it = op->src.rbegin(); it != op->src.rend(); ++it) stack.push_back({it->get(), false});
      continue;
    }
    Shape s;
    if (const MemBuffer* mb = std::get_if<MemBuffer>(&op->arg)) {
      s = mb->st.shape();
      mem[mb->idx] = sat_mul(int64_t(itemsize(mb->dtype)), mb->st.real_size());
    } else if (const ConstBuffer* cb = std::get_if<ConstBuffer>(&op->arg)) {
      s = cb->st.shape();
    } else {
      s = shape.at(op->src.at(0).get());
      if (op->op != Op::CAST && op->op != Op::BITCAST) flops = sat_add(flops, prod(s));
      if (const Axes* axes = std::get_if<Axes>(&op->arg))
        for (int a : *axes)
          if (a >= 0 && size_t(a) < s.size()) s[size_t(a)] = 1;
    }
    shape.emplace(op, std::move(s));
  }
  CostEstimate out{flops, 0};
  for (const auto& [idx, bytes] : mem) out.mem = sat_add(out.mem, bytes);
  return out;
}

CostEstimate uops_estimate(const std::vector<const UOp*>& uops) {
  CostEstimate out;
  int64_t mults = 1;
  std::vector<int64_t> stack;
  for (const UOp* u : uops) {
    switch (u->op) {
    case UOps::RANGE:
      stack.push_back(mults);
      mults = sat_mul(mults, trip_count(u->src[1]));
      break;
    case UOps::ENDRANGE:
      if (!stack.empty()) mults = stack.back(), stack.pop_back();
      break;
    case UOps::LOAD:
      out.mem = sat_add(out.mem, sat_mul(int64_t(itemsize(*u->dtype)) * u->vcount, mults));
      break;
    case UOps::STORE:
      out.mem = sat_add(out.mem, sat_mul(int64_t(itemsize(*u->src[2]->dtype)) * u->src[2]->vcount, mults));
      break;
    case UOps::ALU: // (a vector op counts once per lane)
      out.flops = sat_add(out.flops, sat_mul((u->alu() == Op::MULACC ? 2 : 1) * u->vcount, mults));
      break;
    case UOps::WMMA: { // one warp's share of the matrix product, per thread
      const auto& d = std::get<WmmaArg>(u->arg).dims;
      out.flops = sat_add(out.flops, sat_mul(2 * int64_t(d[0]) * d[1] * d[2] / 32, mults));
      break;
    }
    default:
      break;
    }
  }
  return out;
}

CostEstimate kernel_estimate(const LazyOp& root, const std::vector<const UOp*>& uops, int64_t run_count) {
  CostEstimate info = ast_estimate(root), counted = uops_estimate(uops);
  return {std::min(info.flops, sat_mul(counted.flops, run_count)),
          std::min(info.mem, sat_mul(counted.mem, run_count))};
}

} // namespace tg
