// grad layer: reverse-mode autodiff over a graph artifact (tg-grad). The gradient rules are
// tinygrad 0.9.1's function.py restated per lazy op: unary/binary/ternary ALU ops, SUM and
// REDUCE_MAX (ties share the gradient evenly, as Max does), CAST, CONTIGUOUS, and VIEW, whose
// adjoint is each of its movement ops' (the node's `moves`), in reverse; a view without a
// usable history is scattered back through its ShapeTracker's index map.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lazy/lazy.h"

namespace tg {

// `graph` plus one output grad_NAME = d loss / d NAME for each name in `wrt` (graph inputs).
// loss: the output of that name, or the only output when empty. Throws tg::Error for an unknown
// name, a non-scalar loss or a non-float input. An input that does not reach the loss gets a
// zero gradient, as tinygrad gives where the path folds away at trace time (a zero-size
// reduce, x**0, a slice of padding), and a line in `notes` when given.
Graph gradient_graph(const Graph& graph, const std::vector<std::string>& wrt, const std::string& loss = "",
                     std::vector<std::string>* notes = nullptr);

} // namespace tg
