// lazy layer: tinygrad's repr of a symbolic expression, render(ctx="REPR") in symbolic.py:
// NumNode(3), Variable('i', 1, 10).bind(3) (the value bound in the process graph), as messages
// and print() show shapes: "((NumNode(3)+Variable('start_pos', 0, 31).bind(0)), 4)".
#pragma once
#include <string>

#include "shape/shapetracker.h"

namespace tg {

std::string sym_repr(const Expr& e);
// An int as itself, a symbolic dimension as sym_repr.
std::string sym_repr(const sint& d);
// A shape as Python's tuple repr of its dims.
std::string shape_sym_repr(const Shape& s);

} // namespace tg
