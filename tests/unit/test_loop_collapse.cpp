// tinygrad 0.9.1's arange loop folding (loop_collapse, sum_collapse and the UNMUL rules): the
// reduce over a padded constant that arange, cumsum, one_hot and tril build becomes a closed
// form, so those kernels are O(n) again and their source is tinygrad's.
#include <gtest/gtest.h>

#include "codegen/uops.h"
#include "device/clang/clang_renderer.h"
#include "lazy/lazybuffer.h"
#include "tensor/tensor.h"
#include "test_codegen_util.h"

using namespace tg;
using namespace tg::testing;

namespace {

Schedule schedule_of(const Tensor& t) { return schedule_graph(extract_graph({{"out", t.lazydata()}}, {})); }

std::string only_source(const Schedule& s, Optimizer optimizer = Optimizer::Tinygrad) {
  EXPECT_EQ(s.kernels.size(), 1u);
  ClangRenderer renderer;
  std::string src;
  CodegenOptions options;
  options.optimizer = optimizer;
  options.observe = [&](size_t, const ScheduleKernel&, const LoweredKernel& l) { src = l.src; };
  codegen_schedule(s, renderer, options);
  return src;
}

} // namespace

TEST(LoopCollapse, arange_kernel_is_tinygrads_closed_form) {
  // CLANG=1 DEBUG=4 python -c "from tinygrad import Tensor; Tensor.arange(200).realize()"
  EXPECT_EQ(only_source(schedule_of(Tensor::arange(Scalar::of_int(200)))), R"(#include <tgmath.h>
void r_200_50_4(int* restrict data0) {
  for (int ridx0 = 0; ridx0 < 200; ridx0++) {
    int alu0 = (-ridx0);
    int alu1 = (((((alu0+199)/(-4))+50)>0)?(((alu0+199)/(-4))+50):0);
    int alu2 = (((-50)>(-alu1))?(-50):(-alu1));
    int alu3 = (((((alu0+200)/(-4))+50)>0)?(((alu0+200)/(-4))+50):0);
    int alu4 = (((-50)>(-alu3))?(-50):(-alu3));
    int alu5 = (((((alu0+201)/(-4))+50)>0)?(((alu0+201)/(-4))+50):0);
    int alu6 = (((-50)>(-alu5))?(-50):(-alu5));
    int alu7 = (((((alu0+202)/(-4))+50)>0)?(((alu0+202)/(-4))+50):0);
    int alu8 = (((-50)>(-alu7))?(-50):(-alu7));
    data0[ridx0] = ((-alu8)+(-alu6)+(-alu4)+(-alu2)+(-1));
  }
}
)");
}

TEST(LoopCollapse, collapsed_kernels_compute_arange_cumsum_and_tril) {
  for (Optimizer opt : {Optimizer::Tinygrad, Optimizer::Tg}) {
    CodegenOptions o;
    o.optimizer = opt;
    auto arange =
        run(schedule_of(Tensor::arange(Scalar::of_int(3), Scalar::of_int(70003), Scalar::of_int(7))), {}, o);
    std::vector<int32_t> got = values_of<int32_t>(arange.at("out"));
    ASSERT_EQ(got.size(), 10000u);
    for (size_t i = 0; i < got.size(); i++) ASSERT_EQ(got[i], int32_t(3 + 7 * i)) << i;

    auto cumsum = run(schedule_of(Tensor::ones({5000}).cumsum(0)), {}, o);
    std::vector<float> sums = values_of<float>(cumsum.at("out"));
    for (size_t i = 0; i < sums.size(); i++) ASSERT_EQ(sums[i], float(i + 1)) << i;

    auto tril = run(schedule_of(Tensor::ones({300, 300}).tril(-2)), {}, o);
    std::vector<float> t = values_of<float>(tril.at("out"));
    for (size_t r = 0; r < 300; r++)
      for (size_t c = 0; c < 300; c++) ASSERT_EQ(t[r * 300 + c], c + 2 <= r ? 1.f : 0.f) << r << "," << c;
  }
}

TEST(LoopCollapse, arange_reduce_loop_is_gone_from_the_source) {
  std::string src = only_source(schedule_of(Tensor::arange(Scalar::of_int(100000))), Optimizer::Tg);
  EXPECT_EQ(src.find("ridx1"), std::string::npos) << src; // one loop: O(n), not O(n^2)
}

TEST(LoopCollapse, a_sum_of_a_loop_invariant_value_is_a_product) {
  // tinygrad's sum_collapse: x expanded over a reduce axis and summed is x times the count
  Tensor x = Tensor::placeholder("lc_x", {4});
  Schedule s = schedule_graph(
      extract_graph({{"out", x.reshape({4, 1}).expand({4, 100}).sum(std::vector<int>{1}).lazydata()}},
                    {{"lc_x", x.lazydata().id(), false}}));
  std::string src = only_source(s);
  EXPECT_EQ(src.find("for (int ridx1"), std::string::npos) << src;
  auto out = run(s, {{"lc_x", host<float>(DType::Float32, {4}, {1.5f, -2.f, 0.25f, 3.f})}});
  EXPECT_EQ(values_of<float>(out.at("out")), (std::vector<float>{150.f, -200.f, 25.f, 300.f}));
}

TEST(LoopCollapse, rules_turn_a_gated_constant_into_unmul_and_cancel_it) {
  UOpGraph g;
  const UOp* zero = g.cnst_int(0);
  const UOp* n = g.cnst_int(50);
  const UOp* rng = g.make(UOps::RANGE, DType::Int32, {zero, n}, LoopArg{2, 0, true});
  const UOp* gidx = g.make(UOps::RANGE, DType::Int32, {zero, g.cnst_int(200)}, LoopArg{1, 0, false});
  const UOp* idx = g.neg(gidx);
  const UOp* cmp = g.alu(Op::CMPLT, {g.add(idx, g.mul(g.cnst_int(-4), rng)), g.cnst_int(-197)});
  const UOp* gated = g.alu(Op::WHERE, {cmp, g.cnst_int(1), zero});
  const UOp* unmul = constant_folder().rewrite(gated, g);
  ASSERT_TRUE(unmul);
  EXPECT_EQ(unmul->op, UOps::UNMUL);
  // not over a reduce loop, or a positive step: left alone, as tinygrad leaves it
  const UOp* outer =
      g.alu(Op::WHERE, {g.alu(Op::CMPLT, {g.add(idx, g.mul(g.cnst_int(-4), gidx)), g.cnst_int(-197)}),
                        g.cnst_int(1), zero});
  EXPECT_FALSE(constant_folder().rewrite(outer, g) && constant_folder().rewrite(outer, g)->op == UOps::UNMUL);
  // summed over the loop, the UNMUL's count cancels and no loop is left
  const UOp* acc = g.make(UOps::DEFINE_ACC, DType::Int32, {zero, rng}, AccArg{0, 0});
  const UOp* phi = g.make(UOps::PHI, DType::Int32, {acc, g.add(gated, acc)});
  const UOp* sink = graph_rewrite(g.make(UOps::SINK, std::nullopt, {phi}), constant_folder(), g);
  EXPECT_FALSE(graph_has(sink, UOps::UNMUL));
  EXPECT_FALSE(graph_has(sink, UOps::RANGE) && graph_has(sink, UOps::PHI));
  // without loop collapse the loop stays
  const UOp* kept = graph_rewrite(g.make(UOps::SINK, std::nullopt, {phi}), constant_folder(false), g);
  EXPECT_TRUE(graph_has(kept, UOps::PHI));
}

TEST(LoopCollapse, a_collapsed_value_not_summed_alone_keeps_its_loop) {
  // sum over r of where(-i - 4r < c, 1, 0) * y[r]: tinygrad 0.9.1 leaves an UNMUL no renderer
  // can write; tg lowers the kernel without loop collapse instead.
  UOpGraph g;
  const UOp* zero = g.cnst_int(0);
  const UOp* rng = g.make(UOps::RANGE, DType::Int32, {zero, g.cnst_int(50)}, LoopArg{2, 0, true});
  const UOp* gidx = g.make(UOps::RANGE, DType::Int32, {zero, g.cnst_int(200)}, LoopArg{1, 0, false});
  const UOp* cmp = g.alu(Op::CMPLT, {g.add(g.neg(gidx), g.mul(g.cnst_int(-4), rng)), g.cnst_int(-197)});
  const UOp* y = g.make(UOps::DEFINE_GLOBAL, DType::Int32, {}, GlobalArg{1, false});
  const UOp* val =
      g.mul(g.alu(Op::WHERE, {cmp, g.cnst_int(1), zero}), g.make(UOps::LOAD, DType::Int32, {y, rng}));
  const UOp* acc = g.make(UOps::DEFINE_ACC, DType::Int32, {zero, rng}, AccArg{0, 0});
  const UOp* phi = g.make(UOps::PHI, DType::Int32, {acc, g.add(val, acc)});
  const UOp* sink = g.make(UOps::SINK, std::nullopt, {phi});
  EXPECT_TRUE(graph_has(graph_rewrite(sink, constant_folder(), g), UOps::UNMUL));
  EXPECT_FALSE(graph_has(graph_rewrite(sink, constant_folder(false), g), UOps::UNMUL));
}
