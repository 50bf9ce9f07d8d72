// shape layer: symbolic expressions as text and back (the artifacts' symbolic dimensions).
#pragma once
#include <string>

#include "shape/symbolic.h"

namespace tg {

// Parses Expr::render_debug()'s text; a ValueError names what is wrong and where.
Expr parse_expr(const std::string& text);

} // namespace tg
