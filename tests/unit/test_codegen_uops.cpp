#include <gtest/gtest.h>

#include "codegen/kernel.h"
#include "codegen/uops.h"
#include "device/registry.h"
#include "test_codegen_util.h"

using namespace tg;
using namespace tg::testing;

namespace {
const UOp* rewrite(const UOp* u, UOpGraph& g) { return graph_rewrite(u, constant_folder(), g); }
const UOp* var(UOpGraph& g, DType dt = DType::Int32) {
  return g.make(UOps::DEFINE_VAR, dt, {}, VarArg{"x", 0, 10});
}
} // namespace

TEST(UOps, identical_uops_are_one_node) {
  UOpGraph g;
  const UOp* a = g.add(var(g), g.cnst_int(3));
  const UOp* b = g.add(var(g), g.cnst_int(3));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, g.add(var(g), g.cnst_int(4)));
}

TEST(UOps, constants_of_different_dtype_are_different_nodes) {
  UOpGraph g;
  EXPECT_NE(g.cnst(DType::Int32, Scalar::of_int(1)), g.cnst(DType::Float32, Scalar::of_int(1)));
  EXPECT_EQ(g.cnst(DType::Float32, Scalar::of_int(1))->value().kind, Scalar::Kind::Float);
}

TEST(UOps, compares_produce_bool) {
  UOpGraph g;
  EXPECT_EQ(g.alu(Op::CMPLT, {var(g), g.cnst_int(2)})->dtype, DType::Bool);
  EXPECT_EQ(g.alu(Op::ADD, {var(g), g.cnst_int(2)})->dtype, DType::Int32);
}

TEST(UOpRewrite, constant_alu_folds) {
  UOpGraph g;
  EXPECT_EQ(rewrite(g.mul(g.add(g.cnst_int(2), g.cnst_int(3)), g.cnst_int(4)), g), g.cnst_int(20));
}

TEST(UOpRewrite, int_folding_wraps_to_the_dtype) {
  UOpGraph g;
  const UOp* a = g.cnst(DType::UInt8, Scalar::of_int(250));
  const UOp* r = rewrite(g.add(a, g.cnst(DType::UInt8, Scalar::of_int(10))), g);
  EXPECT_EQ(r, g.cnst(DType::UInt8, Scalar::of_int(4)));
}

TEST(UOpRewrite, division_by_zero_is_not_folded) {
  UOpGraph g;
  const UOp* d = g.alu(Op::IDIV, {g.cnst_int(1), g.cnst_int(0)});
  EXPECT_EQ(rewrite(d, g)->op, UOps::ALU);
}

TEST(UOpRewrite, x_times_one_and_x_plus_zero_are_x) {
  UOpGraph g;
  const UOp* x = var(g);
  EXPECT_EQ(rewrite(g.mul(x, g.cnst_int(1)), g), x);
  EXPECT_EQ(rewrite(g.mul(g.cnst_int(1), x), g), x);
  EXPECT_EQ(rewrite(g.add(x, g.cnst_int(0)), g), x);
  EXPECT_EQ(rewrite(g.add(g.mul(x, g.cnst_int(1)), g.cnst_int(0)), g), x);
}

TEST(UOpRewrite, int_times_zero_is_zero_but_float_is_kept) {
  UOpGraph g;
  EXPECT_EQ(rewrite(g.mul(var(g), g.cnst_int(0)), g), g.cnst_int(0));
  const UOp* f = g.make(UOps::DEFINE_VAR, DType::Float32, {}, VarArg{"f", 0, 0});
  const UOp* m = g.mul(f, g.cnst(DType::Float32, Scalar::of_float(0)));
  EXPECT_EQ(rewrite(m, g), m);
}

TEST(UOpRewrite, chained_int_constants_merge) {
  UOpGraph g;
  const UOp* x = var(g);
  EXPECT_EQ(rewrite(g.add(g.add(x, g.cnst_int(2)), g.cnst_int(3)), g), g.add(x, g.cnst_int(5)));
  EXPECT_EQ(rewrite(g.mul(g.mul(x, g.cnst_int(2)), g.cnst_int(3)), g), g.mul(x, g.cnst_int(6)));
}

TEST(UOpRewrite, where_with_constant_gate_picks_a_side) {
  UOpGraph g;
  const UOp* a = var(g);
  const UOp* b = g.make(UOps::DEFINE_VAR, DType::Int32, {}, VarArg{"y", 0, 10});
  EXPECT_EQ(rewrite(g.alu(Op::WHERE, {g.cnst(DType::Bool, Scalar::of_bool(true)), a, b}), g), a);
  EXPECT_EQ(rewrite(g.alu(Op::WHERE, {g.cnst(DType::Bool, Scalar::of_bool(false)), a, b}), g), b);
}

TEST(UOpRewrite, cast_of_constant_folds_like_c) {
  UOpGraph g;
  EXPECT_EQ(rewrite(g.cast(g.cnst(DType::Float32, Scalar::of_float(-2.7)), DType::Int32), g), g.cnst_int(-2));
  EXPECT_EQ(rewrite(g.cast(g.cnst(DType::Int32, Scalar::of_int(300)), DType::UInt8), g),
            g.cnst(DType::UInt8, Scalar::of_int(44)));
}

TEST(UOpRewrite, rules_are_listed_with_descriptions) {
  bool found = false;
  for (const RewriteRule& r : constant_folder().rules()) found |= r.description == "x*1 -> x";
  EXPECT_TRUE(found);
}

TEST(UOpLinearize, loop_body_sits_between_range_and_endrange) {
  auto st = st_of({4, 8});
  std::string text = lower_kernel({store(0, DType::Float32, st_of({4, 1}),
                                         reduce(Op::SUM, load(1, DType::Float32, st), {1}))},
                                  device_renderer("CLANG"), {Optimizer::None})
                         .uops;
  auto range = text.find("UOps.RANGE"), end = text.rfind("UOps.ENDRANGE"),
       store_pos = text.find("UOps.STORE");
  ASSERT_NE(range, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  EXPECT_LT(range, store_pos);
  EXPECT_LT(store_pos, end);
  EXPECT_NE(text.find("UOps.DEFINE_ACC"), std::string::npos);
  EXPECT_NE(text.find("UOps.PHI"), std::string::npos);
}

TEST(UOpLinearize, rewrite_stage_is_observable) {
  auto st = st_of({4});
  auto lk = lower_kernel(
      {store(0, DType::Float32, st,
             alu(Op::MUL, {load(1, DType::Float32, st), cnst(Scalar::of_float(1), DType::Float32, st)}))},
      device_renderer("CLANG"));
  EXPECT_NE(lk.uops_before_rewrite, lk.uops);
  EXPECT_NE(lk.uops_before_rewrite.find("BinaryOps.MUL"), std::string::npos);
}

TEST(KernelOpts, kernel_dims_are_merged_and_reduce_moved_last) {
  auto ast = store(0, DType::Float32, st_of({1, 8, 1}),
                   reduce(Op::SUM, load(1, DType::Float32, st_of({4, 8, 2})), {0, 2}));
  Kernel k({ast});
  EXPECT_EQ(k.full_shape(), (Shape{8, 4, 2}));
  EXPECT_EQ(k.output_shape(), (Shape{8, 1, 1}));
  EXPECT_EQ(k.first_reduce(), 1);
  Kernel flat({store(0, DType::Float32, st_of({2, 3, 4}), load(1, DType::Float32, st_of({2, 3, 4})))});
  EXPECT_EQ(flat.full_shape(), (Shape{24}));
}

TEST(KernelOpts, upcast_and_unroll_split_axes) {
  auto ast =
      store(0, DType::Float32, st_of({8, 1}), reduce(Op::SUM, load(1, DType::Float32, st_of({8, 16})), {1}));
  Kernel k({ast});
  k.apply_opt({OptOps::UPCAST, 0, 4});
  EXPECT_EQ(k.full_shape(), (Shape{2, 16, 4}));
  EXPECT_EQ(k.upcasted, 1);
  k.apply_opt({OptOps::UNROLL, 0, 4});
  EXPECT_EQ(k.full_shape(), (Shape{2, 4, 4, 4}));
  EXPECT_EQ(k.upcasted, 2);
  EXPECT_EQ(k.applied_opts.size(), 2u);
}

TEST(KernelOpts, invalid_opts_throw_and_leave_the_kernel_unchanged) {
  auto ast =
      store(0, DType::Float32, st_of({8, 1}), reduce(Op::SUM, load(1, DType::Float32, st_of({8, 16})), {1}));
  Kernel k({ast});
  EXPECT_THROW(k.apply_opt({OptOps::UPCAST, 0, 3}), KernelOptError); // 8 % 3 != 0
  EXPECT_THROW(k.apply_opt({OptOps::UPCAST, 1, 4}), KernelOptError); // reduce axis
  EXPECT_THROW(k.apply_opt({OptOps::LOCAL, 0, 2}), KernelOptError);  // no locals on CLANG
  EXPECT_EQ(k.full_shape(), (Shape{8, 16}));
  EXPECT_TRUE(k.applied_opts.empty());
}

TEST(KernelOpts, padto_pads_the_reduce_axis_and_the_sum_is_unchanged) {
  auto ast =
      store(0, DType::Float32, st_of({3, 1}), reduce(Op::SUM, load(1, DType::Float32, st_of({3, 7})), {1}));
  Kernel k({ast});
  k.apply_opt({OptOps::PADTO, 1, 8});
  EXPECT_EQ(k.full_shape(), (Shape{3, 8}));
  LoweredKernel lk = lower_kernel(k, device_renderer("CLANG"));
  Program p;
  p.device = "CLANG";
  p.buffers = {BufferInfo{0, DType::Float32, 3, BufferRole::Output, "out", {}},
               BufferInfo{1, DType::Float32, 21, BufferRole::Input, "x", {}}};
  p.inputs = {NamedBuffer{"x", 1, {3, 7}, DType::Float32}};
  p.outputs = {NamedBuffer{"out", 0, {3, 1}, DType::Float32}};
  p.kernels = {ProgramKernel{lk.name, lk.src, {0, 1}, {12, 84}, lk.vars}};
  auto out = run_program(p, {{"x", host(DType::Float32, {3, 7}, iota_values<float>(21))}});
  EXPECT_EQ(values_of<float>(out.at("out")), (std::vector<float>{21, 70, 119}));
}

TEST(KernelOpts, padto_refuses_an_unsafe_reduce) {
  auto x = load(1, DType::Float32, st_of({3, 7}));
  auto ast = store(0, DType::Float32, st_of({3, 1}), reduce(Op::SUM, alu(Op::EXP2, {x}), {1}));
  Kernel k({ast});
  EXPECT_THROW(k.apply_opt({OptOps::PADTO, 1, 8}), KernelOptError);
}
