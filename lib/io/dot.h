// io layer: Graphviz views of the graph and schedule artifacts (tinygrad's GRAPH=1), for
// `--dot` on tg-trace, tg-grad and tg-schedule: `tg-trace x.tg --dot | dot -Tsvg > x.svg`.
#pragma once
#include <string>

#include "lazy/lazy.h"
#include "schedule/schedule.h"

namespace tg {

// The part of a picture to draw (--dot-output, --dot-kernel, --dot-depth); by default all of it.
// A source left out is drawn as a dashed "..." box, so a cut shows where it is.
struct DotFilter {
  std::string output; // one output and what it depends on
  int kernel = -1;    // a schedule's kernel k and its buffers (with depth: the kernels before it)
  int depth = -1;     // how many levels of sources above the outputs (or the kernel); -1: all
  bool empty() const { return output.empty() && kernel < 0 && depth < 0; }
};
// Beyond this many boxes, a picture of everything warns that dot may take minutes and says how
// to draw a part.
constexpr size_t kLargeDot = 400;

// One box per node (op, shape, dtype; inputs, states and constants named), edges from sources;
// outputs as their own labelled nodes. Colours follow tinygrad's graph.py by op kind.
std::string graph_to_dot(const Graph& graph, const DotFilter& filter = {});
// One cluster per kernel (named as tinygrad names it before optimizing) holding its AST, buffers as nodes
// between them: a LOAD has an edge from its buffer, a STORE one to it, so the data flow between kernels
// shows.
std::string schedule_to_dot(const Schedule& schedule, const DotFilter& filter = {});

} // namespace tg
