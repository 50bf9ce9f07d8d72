// ast_key: equal kernel ASTs have equal keys, so codegen lowers each distinct kernel once.
#include <gtest/gtest.h>

#include "codegen/ast_key.h"
#include "codegen/codegen.h"
#include "device/registry.h"
#include "test_codegen_util.h"

using namespace tg;
using namespace tg::testing;

namespace {
LazyOpPtr add_kernel(double k, const Shape& shape = {4, 8}) {
  auto st = st_of(shape);
  return store(0, DType::Float32, st,
               alu(Op::ADD, {load(1, DType::Float32, st), cnst(Scalar::of_float(k), DType::Float32, st)}));
}
} // namespace

TEST(AstKey, equal_asts_have_equal_keys_and_any_difference_shows) {
  EXPECT_EQ(ast_key({add_kernel(1.0)}), ast_key({add_kernel(1.0)})); // separate objects, same structure
  EXPECT_NE(ast_key({add_kernel(1.0)}), ast_key({add_kernel(2.0)}));
  EXPECT_NE(ast_key({add_kernel(0.0)}), ast_key({add_kernel(-0.0)}));
  EXPECT_NE(ast_key({add_kernel(1.0)}), ast_key({add_kernel(1.0, {8, 4})}));
  auto st = st_of({4, 8});
  auto shared = load(1, DType::Float32, st);
  auto twice = store(0, DType::Float32, st, alu(Op::ADD, {shared, shared}));
  auto apart =
      store(0, DType::Float32, st, alu(Op::ADD, {load(1, DType::Float32, st), load(1, DType::Float32, st)}));
  EXPECT_NE(ast_key({twice}), ast_key({apart})); // sharing is part of the structure
}

TEST(AstKey, a_repeated_kernel_is_lowered_once_and_named_apart) {
  Schedule s = make_schedule({{"y", DType::Float32, {4, 8}, BufferRole::Output},
                              {"x", DType::Float32, {4, 8}, BufferRole::Input},
                              {"z", DType::Float32, {4, 8}, BufferRole::Output}},
                             {{{add_kernel(1.0)}, {0, 1}}, {{add_kernel(1.0)}, {2, 0}}});
  int lowered = 0;
  CodegenOptions options;
  options.optimize = [&](Kernel& k, const ScheduleKernel&) {
    ++lowered;
    optimize_kernel(k, Optimizer::Tinygrad);
  };
  Program p = codegen_schedule(s, device_renderer("CLANG"), options);
  EXPECT_EQ(lowered, 1);
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[0].name, "E_8_4");
  EXPECT_EQ(p.kernels[1].name, "E_8_4n1");
  std::string renamed = p.kernels[0].src;
  renamed.replace(renamed.find("E_8_4"), 5, "E_8_4n1");
  EXPECT_EQ(p.kernels[1].src, renamed);
  EXPECT_EQ(p.kernels[1].bufs, (std::vector<int>{2, 0}));
}
