// launch layer: BEAM search (tinygrad's BEAM=N, tg-codegen --beam N). A kernel's candidates
// are its opts plus one action from tinygrad's OptOp action space; each round compiles the new
// candidates as one program (clang runs in parallel) and times them on this machine; the N
// fastest go on to the next round, until a round finds nothing faster. The search starts from
// tg's own optimizer's choice, so what it keeps is never slower than that as measured, and
// it keeps a faster kernel only if it computes the same outputs on random inputs. Results are cached by
// content (the compiler and target, the width, the kernel's AST): the second search of a kernel on a machine
// is a file read.
#pragma once
#include <chrono>
#include <string>
#include <vector>

#include "codegen/kernel.h"
#include "device/device.h"
#include "schedule/schedule.h"

namespace tg {

struct BeamResult {
  bool from_tg = false;  // started from tg's optimizer (else from no opts)
  std::vector<Opt> opts; // the actions applied after that start
  double seconds = 0;    // the kept kernel's best time (0 when cached)
  double tg_seconds = 0; // tg's optimizer's kernel, timed the same way (0 when cached)
  int rounds = 0, candidates = 0;
  bool cached = false;
  bool rejected = false; // the fastest candidate's outputs differed from tg's kernel: tg's kept
  // The fastest was not kMargin faster than tg's kernel when the two were timed again, in
  // turns (the search's own timings favour whichever ran last in a warm cache): tg's kept.
  bool unconfirmed = false;
  bool cut = false; // the deadline ended the search: the best so far, not cached
};

using BeamDeadline = std::chrono::steady_clock::time_point;

// Searches opts for `sk` (a kernel of `s`) on `device` with beam width `width` >= 1, starting no
// round after `deadline` (tg-codegen --beam-budget).
BeamResult beam_search(const ScheduleKernel& sk, const Schedule& s, Device& device, int width,
                       BeamDeadline deadline = BeamDeadline::max());
// Applies a search's result to a fresh Kernel of the same AST.
void apply_beam(Kernel& k, const BeamResult& r);

} // namespace tg
