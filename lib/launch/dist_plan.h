// launch layer, tg-run --dist: in which order the processes walk a program's kernels, and which
// buffers move between them before which kernel. Every process computes the same plan from the
// program, so each send meets its receive and every process joins each collective; planned
// once per run, not per step.
#pragma once
#include <cstddef>
#include <map>
#include <vector>

#include "codegen/program.h"

namespace tg {

// Where the program's work lives: each buffer's process (-1: a constant, on every process) and
// each kernel's. A kernel reads what another process holds only as a copy between devices,
// which writes only its first buffer (no kernel mixes devices).
struct DistLayout {
  std::map<int, int> owner;
  std::vector<int> kernel_rank;
  std::map<int, size_t> bytes; // buffer id -> bytes, the same on every process
  int ranks = 1;
  bool reads_elsewhere(const ProgramKernel& k, size_t i) const;
};

struct BufferMove {
  int id, from, to;
};

// What moves before the kernel at one position of the launch order.
struct Exchange {
  std::vector<std::vector<int>> allgathers; // each: one buffer per process, in rank order
  std::vector<BufferMove> moves;            // point to point
  bool empty() const { return allgathers.empty() && moves.empty(); }
  std::vector<BufferMove> every_move() const; // the allgathers' too, as point-to-point moves
};

// Program order, except that a copy from another process's device moves down to just before the
// first kernel that needs its target (see dist_plan.cpp).
std::vector<size_t> dist_launch_order(const Program& p, const DistLayout& layout);

// One entry per position of `order`.
std::vector<Exchange> plan_exchanges(const Program& p, const DistLayout& layout,
                                     const std::vector<size_t>& order);

} // namespace tg
