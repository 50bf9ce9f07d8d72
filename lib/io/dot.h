// io layer: Graphviz views of the graph and schedule artifacts (tinygrad's GRAPH=1), for
// `--dot` on tg-trace, tg-grad and tg-schedule: `tg-trace x.tg --dot | dot -Tsvg > x.svg`.
#pragma once
#include <string>

#include "lazy/lazy.h"
#include "schedule/schedule.h"

namespace tg {

// One box per node (op, shape, dtype; inputs, states and constants named), edges from sources;
// outputs as their own labelled nodes. Colours follow tinygrad's graph.py by op kind.
std::string graph_to_dot(const Graph& graph);
// One cluster per kernel (named as tinygrad names it before optimizing) holding its AST, buffers as nodes
// between them: a LOAD has an edge from its buffer, a STORE one to it, so the data flow between kernels
// shows.
std::string schedule_to_dot(const Schedule& schedule);

} // namespace tg
