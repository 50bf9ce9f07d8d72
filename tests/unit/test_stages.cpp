// tg-codegen --print-after: the stage names and each stage's text for one kernel.
#include <gtest/gtest.h>

#include "codegen/stages.h"
#include "device/clang/clang_renderer.h"
#include "lazy/lazybuffer.h"
#include "tensor/tensor.h"

using namespace tg;

TEST(Stages, names_are_in_pipeline_order_and_parse_back) {
  std::vector<std::string_view> want{"ast", "opts", "linearize", "rewrite", "render"};
  EXPECT_EQ(stage_names(), want);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(stage_from_name(want[i]), Stage(i));
  EXPECT_EQ(stage_from_name("source"), std::nullopt);
}

TEST(Stages, each_stage_of_a_reduce_kernel_prints_what_it_made) {
  Tensor x = Tensor::placeholder("st_x", {4, 8});
  Schedule s = schedule_graph(
      extract_graph({{"y", x.sum(std::vector<int>{1}).lazydata()}}, {{"st_x", x.lazydata().id(), false}}));
  ASSERT_EQ(s.kernels.size(), 1u);
  ClangRenderer renderer;
  std::optional<LoweredKernel> seen;
  CodegenOptions options;
  options.optimizer = Optimizer::Tinygrad;
  options.observe = [&](size_t, const ScheduleKernel&, const LoweredKernel& l) { seen = l; };
  codegen_schedule(s, renderer, options);
  ASSERT_TRUE(seen);
  const ScheduleKernel& k = s.kernels[0];
  std::string ast = stage_text(Stage::Ast, k, *seen);
  EXPECT_EQ(ast, ast_tree(k.ast));
  EXPECT_EQ(ast.rfind("  0 ━┳ BufferOps.STORE", 0), 0u) << ast; // print_tree: the root first
  EXPECT_NE(ast.find("ReduceOps.SUM"), std::string::npos);
  EXPECT_NE(stage_text(Stage::Linearize, k, *seen).find("DEFINE_GLOBAL"), std::string::npos);
  EXPECT_NE(stage_text(Stage::Rewrite, k, *seen).find("STORE"), std::string::npos);
  std::string src = stage_text(Stage::Render, k, *seen);
  EXPECT_NE(src.find(seen->name), std::string::npos);
  EXPECT_EQ(src.back(), '\n');
}
