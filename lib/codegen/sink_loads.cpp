#include "codegen/sink_loads.h"

#include <algorithm>

namespace tg {

namespace {

// A value that may run later than it does: arithmetic, or a read of a buffer nothing writes.
bool movable(const UOp* u) {
  switch (u->op) {
  case UOps::ALU:
  case UOps::CAST:
  case UOps::BITCAST:
  case UOps::GEP:
    return true;
  case UOps::LOAD: // vectors: scalars (an epilogue's batch norm parameters) cost no vector register
    return u->vcount > 1 && u->src[0]->op == UOps::DEFINE_GLOBAL &&
           !std::get<GlobalArg>(u->src[0]->arg).mutable_;
  default:
    return false;
  }
}

bool opens(const UOp* u) { return u->op == UOps::RANGE || u->op == UOps::IF; }
bool closes(const UOp* u) { return u->op == UOps::ENDRANGE || u->op == UOps::ENDIF; }

} // namespace

void sink_loads_past_loops(std::vector<const UOp*>& uops) {
  UOpMap<std::vector<const UOp*>> users;
  for (const UOp* u : uops)
    for (const UOp* s : u->src) users[s].push_back(u);
  std::vector<const UOp*> loops;
  for (const UOp* u : uops)
    if (u->op == UOps::RANGE) loops.push_back(u);
  UOpMap<int> pos;
  for (const UOp* loop : loops) {
    for (size_t i = 0; i < uops.size(); ++i) pos[uops[i]] = int(i);
    const int p = pos[loop];
    // where its block ends, as a renderer closes blocks: an END* closes the innermost one open
    // (consecutive ENDRANGEs need not name their loops innermost first)
    int e = p + 1;
    for (int depth = 1; e < int(uops.size()); ++e) {
      if (opens(uops[size_t(e)])) ++depth;
      if (closes(uops[size_t(e)]) && --depth == 0) break;
    }
    if (e == int(uops.size())) continue;
    // the block the loop is in starts after the nearest scope it is nested in opens
    int s = p - 1;
    for (int depth = 0; s >= 0; --s) {
      if (closes(uops[size_t(s)])) ++depth;
      if (opens(uops[size_t(s)]) && depth-- == 0) break;
    }
    // what computes from a vector read before the loop (the index arithmetic stays: a few
    // integer registers)
    UOpMap<char> from_vector;
    for (int q = s + 1; q < p; ++q) {
      const UOp* u = uops[size_t(q)];
      if (!movable(u)) continue;
      bool vec = u->op == UOps::LOAD;
      for (const UOp* src : u->src) vec |= from_vector.get(src) != 0;
      if (vec) from_vector[u] = 1;
    }
    // from the loop backwards: a value moves when every use of it is after the loop or moves
    UOpMap<char> moving;
    std::vector<const UOp*> moved;
    for (int q = p - 1; q > s; --q) {
      const UOp* u = uops[size_t(q)];
      const std::vector<const UOp*>& us = users[u];
      if (!from_vector.get(u) || us.empty()) continue;
      bool later = std::all_of(us.begin(), us.end(), [&](const UOp* c) {
        int at = pos.get(c);
        return at > e || (at < p && moving.get(c));
      });
      if (!later) continue;
      moving[u] = 1;
      moved.push_back(u);
    }
    if (moved.empty()) continue;
    std::reverse(moved.begin(), moved.end());
    std::vector<const UOp*> out;
    out.reserve(uops.size());
    for (int i = 0; i < int(uops.size()); ++i) {
      if (!moving.get(uops[size_t(i)])) out.push_back(uops[size_t(i)]);
      if (i == e) out.insert(out.end(), moved.begin(), moved.end());
    }
    uops = std::move(out);
  }
}

} // namespace tg
