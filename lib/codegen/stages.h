// codegen layer: the stages of a kernel's lowering as text, for `tg-codegen --print-after STAGE`
// (tinygrad's DEBUG=3..6): the AST, the applied OptOps, the UOps before and after the rewrite
// rules, and the rendered source.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/codegen.h"

namespace tg {

enum class Stage : uint8_t { Ast, Opts, Linearize, Rewrite, Render };
// "ast", "opts", "linearize", "rewrite", "render", in pipeline order.
const std::vector<std::string_view>& stage_names();
std::optional<Stage> stage_from_name(std::string_view name);

// The kernel's AST in tinygrad's print_tree layout (numbered lines, ┣/┗ branches; a subtree
// printed before is a "goto" to its line).
std::string ast_tree(const std::vector<LazyOpPtr>& ast);
// What one stage made of a kernel, as text ending in a newline.
std::string stage_text(Stage stage, const ScheduleKernel& kernel, const LoweredKernel& lowered);

} // namespace tg
