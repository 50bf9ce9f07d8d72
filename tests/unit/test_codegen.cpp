#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "device/registry.h"
#include "test_codegen_util.h"

using namespace tg;
using namespace tg::testing;

namespace {

constexpr DType F32 = DType::Float32;
constexpr DType I32 = DType::Int32;

Schedule add_4x8() {
  auto st = st_of({4, 8});
  auto ast = store(0, F32, st, alu(Op::ADD, {load(1, F32, st), load(2, F32, st)}));
  return make_schedule({{"out", F32, {4, 8}, BufferRole::Output},
                        {"a", F32, {4, 8}, BufferRole::Input},
                        {"b", F32, {4, 8}, BufferRole::Input}},
                       {{{ast}, {0, 1, 2}}});
}

// out[i] = sum_j x[i, j] (axis 1) or out[j] = sum_i x[i, j] (axis 0) of a 4x8 input
Schedule sum_4x8(int axis, Op op = Op::SUM, DType dt = F32) {
  Shape out_shape = axis == 1 ? Shape{4, 1} : Shape{1, 8};
  auto ast = store(0, dt, st_of(out_shape), reduce(op, load(1, dt, st_of({4, 8})), {axis}));
  return make_schedule({{"out", dt, out_shape, BufferRole::Output}, {"x", dt, {4, 8}, BufferRole::Input}},
                       {{{ast}, {0, 1}}});
}

std::vector<float> run_f32(const Schedule& s, const std::map<std::string, HostBuffer>& in,
                           CodegenOptions o = {}) {
  return values_of<float>(run(s, in, o).at("out"));
}

HostBuffer iota_4x8() { return host(F32, {4, 8}, iota_values<float>(32)); }

} // namespace

TEST(Codegen, elementwise_add_of_two_4x8_buffers) {
  auto a = iota_values<float>(32), b = iota_values<float>(32, 100.f, 2.f);
  auto out = run(add_4x8(), {{"a", host(F32, {4, 8}, a)}, {"b", host(F32, {4, 8}, b)}});
  auto v = values_of<float>(out.at("out"));
  ASSERT_EQ(v.size(), 32u);
  for (size_t i = 0; i < 32; i++) EXPECT_FLOAT_EQ(v[i], a[i] + b[i]) << i;
  EXPECT_EQ(out.at("out").shape, (Shape{4, 8}));
}

TEST(Codegen, elementwise_add_without_optimizations_gives_the_same_values) {
  auto a = iota_values<float>(32), b = iota_values<float>(32, 1.f, 0.5f);
  auto v = run_f32(add_4x8(), {{"a", host(F32, {4, 8}, a)}, {"b", host(F32, {4, 8}, b)}}, {Optimizer::None});
  for (size_t i = 0; i < 32; i++) EXPECT_FLOAT_EQ(v[i], a[i] + b[i]) << i;
}

TEST(Codegen, sum_over_last_axis) {
  auto v = run_f32(sum_4x8(1), {{"x", iota_4x8()}});
  ASSERT_EQ(v.size(), 4u);
  for (int i = 0; i < 4; i++) EXPECT_FLOAT_EQ(v[size_t(i)], float(8 * 8 * i + 28)) << i;
}

TEST(Codegen, sum_over_first_axis) {
  auto v = run_f32(sum_4x8(0), {{"x", iota_4x8()}});
  ASSERT_EQ(v.size(), 8u);
  for (int j = 0; j < 8; j++) EXPECT_FLOAT_EQ(v[size_t(j)], float(4 * j + 48)) << j;
}

TEST(Codegen, sum_without_optimizations_loops_over_the_reduce_axis) {
  auto v = run_f32(sum_4x8(1), {{"x", iota_4x8()}}, {Optimizer::None});
  for (int i = 0; i < 4; i++) EXPECT_FLOAT_EQ(v[size_t(i)], float(64 * i + 28)) << i;
}

TEST(Codegen, max_reduce_over_negative_values) {
  std::vector<float> x(32);
  for (size_t i = 0; i < 32; i++) x[i] = -float(i) - 1.f;
  auto v = run_f32(sum_4x8(1, Op::REDUCE_MAX), {{"x", host(F32, {4, 8}, x)}});
  for (int i = 0; i < 4; i++) EXPECT_FLOAT_EQ(v[size_t(i)], -float(8 * i) - 1.f) << i;
}

TEST(Codegen, int_max_reduce_starts_from_int_min) {
  std::vector<int32_t> x(32, std::numeric_limits<int32_t>::min());
  x[5] = std::numeric_limits<int32_t>::min() + 3;
  auto out = run(sum_4x8(1, Op::REDUCE_MAX, I32), {{"x", host(I32, {4, 8}, x)}});
  auto v = values_of<int32_t>(out.at("out"));
  EXPECT_EQ(v[0], std::numeric_limits<int32_t>::min() + 3);
  EXPECT_EQ(v[1], std::numeric_limits<int32_t>::min());
}

TEST(Codegen, large_reduce_is_unrolled_by_four_and_still_correct) {
  auto ast = store(0, F32, st_of({3, 1}), reduce(Op::SUM, load(1, F32, st_of({3, 100})), {1}));
  auto s = make_schedule({{"out", F32, {3, 1}, BufferRole::Output}, {"x", F32, {3, 100}, BufferRole::Input}},
                         {{{ast}, {0, 1}}});
  auto v = run_f32(s, {{"x", host(F32, {3, 100}, iota_values<float>(300))}});
  for (int i = 0; i < 3; i++) EXPECT_FLOAT_EQ(v[size_t(i)], float(100 * 100 * i + 4950)) << i;
}

TEST(Codegen, full_reduce_to_one_element) {
  auto ast = store(0, F32, st_of({1, 1}), reduce(Op::SUM, load(1, F32, st_of({4, 8})), {0, 1}));
  auto s = make_schedule({{"out", F32, {1, 1}, BufferRole::Output}, {"x", F32, {4, 8}, BufferRole::Input}},
                         {{{ast}, {0, 1}}});
  EXPECT_FLOAT_EQ(run_f32(s, {{"x", iota_4x8()}})[0], 496.f);
}

TEST(Codegen, permuted_load_transposes) {
  auto ast = store(0, F32, st_of({8, 4}), load(1, F32, st_of({4, 8}).permute({1, 0})));
  auto s = make_schedule({{"out", F32, {8, 4}, BufferRole::Output}, {"x", F32, {4, 8}, BufferRole::Input}},
                         {{{ast}, {0, 1}}});
  auto v = run_f32(s, {{"x", iota_4x8()}});
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 4; j++) EXPECT_FLOAT_EQ(v[size_t(i * 4 + j)], float(j * 8 + i)) << i << "," << j;
}

TEST(Codegen, padded_load_reads_zero_outside_the_valid_region) {
  auto ast = store(0, F32, st_of({6, 8}), load(1, F32, st_of({4, 8}).pad({{1, 1}, {0, 0}})));
  auto s = make_schedule({{"out", F32, {6, 8}, BufferRole::Output}, {"x", F32, {4, 8}, BufferRole::Input}},
                         {{{ast}, {0, 1}}});
  for (Optimizer opt : {Optimizer::Tinygrad, Optimizer::None, Optimizer::Tg}) {
    auto v = run_f32(s, {{"x", iota_4x8()}}, {opt});
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 8; j++)
        EXPECT_FLOAT_EQ(v[size_t(i * 8 + j)], (i == 0 || i == 5) ? 0.f : float((i - 1) * 8 + j))
            << i << "," << j;
  }
}

TEST(Codegen, padded_load_on_the_inner_axis_is_gated) {
  auto ast = store(0, F32, st_of({4, 11}),
                   alu(Op::ADD, {load(1, F32, st_of({4, 8}).pad({{0, 0}, {2, 1}})),
                                 cnst(Scalar::of_float(1), F32, st_of({4, 11}))}));
  auto s = make_schedule({{"out", F32, {4, 11}, BufferRole::Output}, {"x", F32, {4, 8}, BufferRole::Input}},
                         {{{ast}, {0, 1}}});
  for (Optimizer opt : {Optimizer::Tinygrad, Optimizer::None, Optimizer::Tg}) {
    auto v = run_f32(s, {{"x", iota_4x8()}}, {opt});
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 11; j++) {
        float want = (j < 2 || j >= 10) ? 1.f : float(i * 8 + j - 2) + 1.f;
        EXPECT_FLOAT_EQ(v[size_t(i * 11 + j)], want) << i << "," << j;
      }
  }
}

TEST(Codegen, shrunk_load_reads_an_offset_window) {
  auto ast = store(0, F32, st_of({2, 3}), load(1, F32, st_of({4, 8}).shrink({{1, 3}, {2, 5}})));
  auto s = make_schedule({{"out", F32, {2, 3}, BufferRole::Output}, {"x", F32, {4, 8}, BufferRole::Input}},
                         {{{ast}, {0, 1}}});
  auto v = run_f32(s, {{"x", iota_4x8()}});
  EXPECT_EQ(v, (std::vector<float>{10, 11, 12, 18, 19, 20}));
}

TEST(Codegen, expanded_load_broadcasts_a_row) {
  auto ast = store(0, F32, st_of({4, 8}), load(1, F32, st_of({1, 8}).expand({4, 8})));
  auto s = make_schedule({{"out", F32, {4, 8}, BufferRole::Output}, {"x", F32, {1, 8}, BufferRole::Input}},
                         {{{ast}, {0, 1}}});
  auto v = run_f32(s, {{"x", host(F32, {1, 8}, iota_values<float>(8))}});
  for (int i = 0; i < 32; i++) EXPECT_FLOAT_EQ(v[size_t(i)], float(i % 8)) << i;
}

TEST(Codegen, const_buffer_with_valid_is_zero_in_the_padding) {
  auto ast = store(0, F32, st_of({6}),
                   cnst(Scalar::of_float(2.5), F32, st_of({1}).reshape({1}).expand({4}).pad({{1, 1}})));
  auto s = make_schedule({{"out", F32, {6}, BufferRole::Output}}, {{{ast}, {0}}});
  EXPECT_EQ(run_f32(s, {}), (std::vector<float>{0, 2.5, 2.5, 2.5, 2.5, 0}));
}

TEST(Codegen, reduce_with_elementwise_epilogue) {
  // out[i, j] = exp2(x[i, j] - sum_k x[i, k]) * 0.5 with the sum in the same kernel
  auto full = st_of({4, 8});
  auto red = st_of({4, 1});
  auto sum = reduce(Op::SUM, load(1, F32, full), {1});
  auto ast =
      store(0, F32, red,
            alu(Op::MUL, {alu(Op::ADD, {sum, load(2, F32, red)}), cnst(Scalar::of_float(0.5), F32, red)}));
  auto s = make_schedule({{"out", F32, {4, 1}, BufferRole::Output},
                          {"x", F32, {4, 8}, BufferRole::Input},
                          {"b", F32, {4, 1}, BufferRole::Input}},
                         {{{ast}, {0, 1, 2}}});
  auto v = run_f32(s, {{"x", iota_4x8()}, {"b", host(F32, {4, 1}, std::vector<float>{1, 2, 3, 4})}});
  for (int i = 0; i < 4; i++) EXPECT_FLOAT_EQ(v[size_t(i)], (float(64 * i + 28) + float(i + 1)) * 0.5f) << i;
}

TEST(Codegen, two_kernels_chain_through_an_intermediate_buffer) {
  // t = x * 2 ; out = sum(t, axis=1)
  auto full = st_of({4, 8});
  auto k1 = store(0, F32, full, alu(Op::MUL, {load(1, F32, full), cnst(Scalar::of_float(2), F32, full)}));
  auto k2 = store(0, F32, st_of({4, 1}), reduce(Op::SUM, load(1, F32, full), {1}));
  auto s = make_schedule({{"out", F32, {4, 1}, BufferRole::Output},
                          {"x", F32, {4, 8}, BufferRole::Input},
                          {"", F32, {4, 8}, BufferRole::Intermediate}},
                         {{{k1}, {2, 1}}, {{k2}, {0, 2}}});
  auto v = run_f32(s, {{"x", iota_4x8()}});
  for (int i = 0; i < 4; i++) EXPECT_FLOAT_EQ(v[size_t(i)], 2.f * float(64 * i + 28)) << i;
}

TEST(Codegen, int_division_truncates_and_mod_is_c_remainder) {
  auto st = st_of({6});
  auto ast_div = store(0, I32, st, alu(Op::IDIV, {load(2, I32, st), load(3, I32, st)}));
  auto ast_mod = store(1, I32, st, alu(Op::MOD, {load(2, I32, st), load(3, I32, st)}));
  auto s = make_schedule({{"div", I32, {6}, BufferRole::Output},
                          {"mod", I32, {6}, BufferRole::Output},
                          {"a", I32, {6}, BufferRole::Input},
                          {"b", I32, {6}, BufferRole::Input}},
                         {{{ast_div, ast_mod}, {0, 1, 2, 3}}});
  auto out = run(s, {{"a", host(I32, {6}, std::vector<int32_t>{7, -7, 7, -7, 0, 9})},
                     {"b", host(I32, {6}, std::vector<int32_t>{2, 2, -2, -2, 3, 3})}});
  EXPECT_EQ(values_of<int32_t>(out.at("div")), (std::vector<int32_t>{3, -3, -3, 3, 0, 3}));
  EXPECT_EQ(values_of<int32_t>(out.at("mod")), (std::vector<int32_t>{1, -1, 1, -1, 0, 0}));
}

TEST(Codegen, compare_produces_bool) {
  auto st = st_of({4});
  auto ast =
      store(0, DType::Bool, st, alu(Op::CMPLT, {load(1, F32, st), cnst(Scalar::of_float(2), F32, st)}));
  auto s = make_schedule({{"out", DType::Bool, {4}, BufferRole::Output}, {"x", F32, {4}, BufferRole::Input}},
                         {{{ast}, {0, 1}}});
  auto out = run(s, {{"x", host(F32, {4}, std::vector<float>{1, 2, 3, -1})}});
  EXPECT_EQ(values_of<uint8_t>(out.at("out")), (std::vector<uint8_t>{1, 0, 0, 1}));
}

TEST(Codegen, casts_between_float_int_and_bool) {
  auto st = st_of({5});
  auto x = load(3, F32, st);
  auto s = make_schedule({{"i", I32, {5}, BufferRole::Output},
                          {"b", DType::Bool, {5}, BufferRole::Output},
                          {"f", DType::Float64, {5}, BufferRole::Output},
                          {"x", F32, {5}, BufferRole::Input}},
                         {{{store(0, I32, st, cast(x, I32)), store(1, DType::Bool, st, cast(x, DType::Bool)),
                            store(2, DType::Float64, st, cast(cast(x, I32), DType::Float64))},
                           {0, 1, 2, 3}}});
  auto out = run(s, {{"x", host(F32, {5}, std::vector<float>{1.7f, -1.7f, 0.f, 0.25f, NAN})}});
  auto i = values_of<int32_t>(out.at("i"));
  EXPECT_EQ(std::vector<int32_t>(i.begin(), i.begin() + 4), (std::vector<int32_t>{1, -1, 0, 0}));
  EXPECT_EQ(values_of<uint8_t>(out.at("b")), (std::vector<uint8_t>{1, 1, 0, 1, 1}));
  auto f = values_of<double>(out.at("f"));
  EXPECT_EQ(std::vector<double>(f.begin(), f.begin() + 4), (std::vector<double>{1, -1, 0, 0}));
}

TEST(Codegen, where_selects_per_element) {
  auto st = st_of({4});
  auto cond = alu(Op::CMPLT, {load(1, F32, st), cnst(Scalar::of_float(0), F32, st)});
  auto ast = store(0, F32, st, alu(Op::WHERE, {cond, alu(Op::NEG, {load(1, F32, st)}), load(1, F32, st)}));
  auto s = make_schedule({{"out", F32, {4}, BufferRole::Output}, {"x", F32, {4}, BufferRole::Input}},
                         {{{ast}, {0, 1}}});
  EXPECT_EQ(run_f32(s, {{"x", host(F32, {4}, std::vector<float>{-1, 2, -3, 4})}}),
            (std::vector<float>{1, 2, 3, 4}));
}

TEST(Codegen, unary_math_matches_libm) {
  auto st = st_of({4});
  auto x = load(4, F32, st);
  auto s = make_schedule({{"exp2", F32, {4}, BufferRole::Output},
                          {"log2", F32, {4}, BufferRole::Output},
                          {"sqrt", F32, {4}, BufferRole::Output},
                          {"sin", F32, {4}, BufferRole::Output},
                          {"x", F32, {4}, BufferRole::Input}},
                         {{{store(0, F32, st, alu(Op::EXP2, {x})), store(1, F32, st, alu(Op::LOG2, {x})),
                            store(2, F32, st, alu(Op::SQRT, {x})), store(3, F32, st, alu(Op::SIN, {x}))},
                           {0, 1, 2, 3, 4}}});
  std::vector<float> in{0.5f, 1.f, 3.f, 10.f};
  auto out = run(s, {{"x", host(F32, {4}, in)}});
  for (size_t i = 0; i < 4; i++) {
    EXPECT_FLOAT_EQ(values_of<float>(out.at("exp2"))[i], std::exp2(in[i]));
    EXPECT_FLOAT_EQ(values_of<float>(out.at("log2"))[i], std::log2(in[i]));
    EXPECT_FLOAT_EQ(values_of<float>(out.at("sqrt"))[i], std::sqrt(in[i]));
    EXPECT_FLOAT_EQ(values_of<float>(out.at("sin"))[i], std::sin(in[i]));
  }
}

TEST(Codegen, recip_and_max_keep_tinygrad_semantics) {
  auto st = st_of({3});
  auto x = load(2, F32, st);
  auto s = make_schedule({{"recip", F32, {3}, BufferRole::Output},
                          {"relu", F32, {3}, BufferRole::Output},
                          {"x", F32, {3}, BufferRole::Input}},
                         {{{store(0, F32, st, alu(Op::RECIP, {x})),
                            store(1, F32, st, alu(Op::MAX, {x, cnst(Scalar::of_float(0), F32, st)}))},
                           {0, 1, 2}}});
  auto out = run(s, {{"x", host(F32, {3}, std::vector<float>{4.f, 0.f, -2.f})}});
  auto r = values_of<float>(out.at("recip"));
  EXPECT_FLOAT_EQ(r[0], 0.25f);
  EXPECT_TRUE(std::isinf(r[1]) && r[1] > 0);
  EXPECT_EQ(values_of<float>(out.at("relu")), (std::vector<float>{4, 0, 0}));
}

TEST(Codegen, half_and_bfloat16_round_trip_through_float) {
  auto st = st_of({3});
  auto s = make_schedule({{"h", DType::Float16, {3}, BufferRole::Output},
                          {"bf", DType::BFloat16, {3}, BufferRole::Output},
                          {"x", F32, {3}, BufferRole::Input}},
                         {{{store(0, DType::Float16, st,
                                  alu(Op::ADD, {cast(load(2, F32, st), DType::Float16),
                                                cnst(Scalar::of_float(1), DType::Float16, st)})),
                            store(1, DType::BFloat16, st,
                                  alu(Op::MUL, {cast(load(2, F32, st), DType::BFloat16),
                                                cnst(Scalar::of_float(2), DType::BFloat16, st)}))},
                           {0, 1, 2}}});
  auto out = run(s, {{"x", host(F32, {3}, std::vector<float>{1.5f, -2.f, 1.00390625f})}});
  auto h = values_of<uint16_t>(out.at("h"));
  EXPECT_FLOAT_EQ(half_to_float(h[0]), 2.5f);
  EXPECT_FLOAT_EQ(half_to_float(h[1]), -1.f);
  auto bf = values_of<uint16_t>(out.at("bf"));
  EXPECT_FLOAT_EQ(bf16_to_float(bf[0]), 3.f);
  EXPECT_FLOAT_EQ(bf16_to_float(bf[1]), -4.f);
  EXPECT_FLOAT_EQ(bf16_to_float(bf[2]), 2.f); // 1.00390625 rounds to 1 in bfloat16
}

TEST(Codegen, int64_and_uint8_arithmetic_wraps_like_c) {
  auto st = st_of({2});
  auto s = make_schedule(
      {{"l", DType::Int64, {2}, BufferRole::Output},
       {"u", DType::UInt8, {2}, BufferRole::Output},
       {"a", DType::Int64, {2}, BufferRole::Input},
       {"b", DType::UInt8, {2}, BufferRole::Input}},
      {{{store(0, DType::Int64, st,
               alu(Op::MUL, {load(2, DType::Int64, st), cnst(Scalar::of_int(3), DType::Int64, st)})),
         store(1, DType::UInt8, st,
               alu(Op::ADD, {load(3, DType::UInt8, st), cnst(Scalar::of_int(10), DType::UInt8, st)}))},
        {0, 1, 2, 3}}});
  auto out = run(s, {{"a", host(DType::Int64, {2}, std::vector<int64_t>{int64_t(1) << 40, -5})},
                     {"b", host(DType::UInt8, {2}, std::vector<uint8_t>{250, 1})}});
  EXPECT_EQ(values_of<int64_t>(out.at("l")), (std::vector<int64_t>{int64_t(3) << 40, -15}));
  EXPECT_EQ(values_of<uint8_t>(out.at("u")), (std::vector<uint8_t>{4, 11}));
}

TEST(Codegen, kernel_names_follow_tinygrad) {
  // (tg's optimizer gives other shapes, so other names: these are tinygrad's opts)
  EXPECT_EQ(lower_kernel(add_4x8().kernels[0].ast, device_renderer("CLANG"), {Optimizer::Tinygrad}).name,
            "E_8_4");
  EXPECT_EQ(lower_kernel(add_4x8().kernels[0].ast, device_renderer("CLANG"), {Optimizer::None}).name, "E_32");
  EXPECT_EQ(lower_kernel(sum_4x8(1).kernels[0].ast, device_renderer("CLANG"), {Optimizer::Tinygrad}).name,
            "r_4_8");
  auto copy = store(0, F32, st_of({6, 8}), load(1, F32, st_of({4, 8}).pad({{1, 1}, {0, 0}})));
  EXPECT_EQ(lower_kernel({copy}, device_renderer("CLANG"), {Optimizer::Tinygrad}).name, "C_8_6");
}

TEST(Codegen, repeated_kernel_names_get_a_suffix) {
  auto s = add_4x8();
  s.kernels.push_back(s.kernels[0]);
  Program p = codegen_schedule(s, device_renderer("CLANG"), {Optimizer::Tinygrad});
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[0].name, "E_8_4");
  EXPECT_EQ(p.kernels[1].name, "E_8_4n1");
  EXPECT_NE(p.kernels[1].src.find("void E_8_4n1("), std::string::npos);
}

TEST(Codegen, program_carries_buffers_and_kernel_bufs) {
  Program p = codegen_schedule(add_4x8(), device_renderer("CLANG"));
  EXPECT_EQ(p.device, "CLANG");
  EXPECT_EQ(p.buffers.size(), 3u);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].bufs, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(p.inputs.size(), 2u);
  EXPECT_EQ(p.outputs[0].name, "out");
}

TEST(Codegen, unknown_device_is_a_runtime_error) {
  try {
    device_renderer("METAL");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "RuntimeError");
    EXPECT_EQ(std::string(e.what()).rfind("unknown device 'METAL' (known: CLANG", 0), 0u) << e.what();
  }
}

TEST(Codegen, two_view_shapetracker_load) {
  // a transposed 4x8 flattened to 32 cannot be one view
  auto x_st = st_of({4, 8}).permute({1, 0}).reshape({32});
  auto ast = store(0, F32, st_of({32}), load(1, F32, x_st));
  auto s = make_schedule({{"out", F32, {32}, BufferRole::Output}, {"x", F32, {4, 8}, BufferRole::Input}},
                         {{{ast}, {0, 1}}});
  for (Optimizer opt : {Optimizer::Tinygrad, Optimizer::None, Optimizer::Tg}) {
    auto v = run_f32(s, {{"x", iota_4x8()}}, {opt});
    for (int n = 0; n < 32; n++) EXPECT_FLOAT_EQ(v[size_t(n)], float((n % 4) * 8 + n / 4)) << n;
  }
}

TEST(Codegen, padded_then_reshaped_load) {
  auto x_st = st_of({4, 8}).pad({{1, 1}, {0, 0}}).reshape({3, 16});
  auto ast = store(0, F32, st_of({3, 16}), load(1, F32, x_st));
  auto s = make_schedule({{"out", F32, {3, 16}, BufferRole::Output}, {"x", F32, {4, 8}, BufferRole::Input}},
                         {{{ast}, {0, 1}}});
  auto v = run_f32(s, {{"x", iota_4x8()}});
  for (int n = 0; n < 48; n++) EXPECT_FLOAT_EQ(v[size_t(n)], (n < 8 || n >= 40) ? 0.f : float(n - 8)) << n;
}

TEST(Codegen, two_independent_reduces_in_one_kernel) {
  auto full = st_of({4, 8});
  auto x = load(1, F32, full);
  auto ast =
      store(0, F32, st_of({4, 1}), alu(Op::ADD, {reduce(Op::SUM, x, {1}), reduce(Op::REDUCE_MAX, x, {1})}));
  auto s = make_schedule({{"out", F32, {4, 1}, BufferRole::Output}, {"x", F32, {4, 8}, BufferRole::Input}},
                         {{{ast}, {0, 1}}});
  for (Optimizer opt : {Optimizer::Tinygrad, Optimizer::None, Optimizer::Tg}) {
    auto v = run_f32(s, {{"x", iota_4x8()}}, {opt});
    for (int i = 0; i < 4; i++) EXPECT_FLOAT_EQ(v[size_t(i)], float(64 * i + 28) + float(8 * i + 7)) << i;
  }
}

TEST(Codegen, reduce_of_an_expression_using_an_earlier_reduce) {
  // out[i] = sum_j (x[i, j] - max_k x[i, k])
  auto full = st_of({4, 8});
  auto mx = reduce(Op::REDUCE_MAX, load(1, F32, full), {1});
  auto mx_expanded = mx; // the reduce result broadcast along the reduce axis inside the second reduce
  auto diff = alu(Op::ADD, {load(1, F32, full), alu(Op::NEG, {mx_expanded})});
  auto ast = store(0, F32, st_of({4, 1}), reduce(Op::SUM, diff, {1}));
  auto s = make_schedule({{"out", F32, {4, 1}, BufferRole::Output}, {"x", F32, {4, 8}, BufferRole::Input}},
                         {{{ast}, {0, 1}}});
  for (Optimizer opt : {Optimizer::Tinygrad, Optimizer::None, Optimizer::Tg}) {
    auto v = run_f32(s, {{"x", iota_4x8()}}, {opt});
    for (int i = 0; i < 4; i++) EXPECT_FLOAT_EQ(v[size_t(i)], -28.f) << i;
  }
}

TEST(Codegen, matmul_4x8_by_8x16) {
  auto a = ShapeTracker{{View::create({4, 16, 8}, Shape{8, 0, 1})}};
  auto b = ShapeTracker{{View::create({4, 16, 8}, Shape{0, 1, 16})}};
  auto ast = store(0, F32, st_of({4, 16, 1}),
                   reduce(Op::SUM, alu(Op::MUL, {load(1, F32, a), load(2, F32, b)}), {2}));
  auto s = make_schedule({{"out", F32, {4, 16, 1}, BufferRole::Output},
                          {"a", F32, {4, 8}, BufferRole::Input},
                          {"b", F32, {8, 16}, BufferRole::Input}},
                         {{{ast}, {0, 1, 2}}});
  auto av = iota_values<float>(32), bv = iota_values<float>(128, 0.f, 0.5f);
  auto v = run_f32(s, {{"a", host(F32, {4, 8}, av)}, {"b", host(F32, {8, 16}, bv)}});
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 16; j++) {
      float want = 0;
      for (int k = 0; k < 8; k++) want += av[size_t(i * 8 + k)] * bv[size_t(k * 16 + j)];
      EXPECT_FLOAT_EQ(v[size_t(i * 16 + j)], want) << i << "," << j;
    }
}

TEST(Codegen, big_elementwise_kernel_gets_upcast_and_stays_correct) {
  // 64x64 with a broadcast row: the heuristic upcasts the broadcast axis
  auto full = st_of({64, 64});
  auto row = st_of({1, 64}).expand({64, 64});
  auto ast = store(0, F32, full, alu(Op::MUL, {load(1, F32, full), load(2, F32, row)}));
  auto s = make_schedule({{"out", F32, {64, 64}, BufferRole::Output},
                          {"x", F32, {64, 64}, BufferRole::Input},
                          {"r", F32, {1, 64}, BufferRole::Input}},
                         {{{ast}, {0, 1, 2}}});
  auto xv = iota_values<float>(4096), rv = iota_values<float>(64, 1.f);
  auto v = run_f32(s, {{"x", host(F32, {64, 64}, xv)}, {"r", host(F32, {1, 64}, rv)}});
  for (int n = 0; n < 4096; n++) EXPECT_FLOAT_EQ(v[size_t(n)], xv[size_t(n)] * rv[size_t(n % 64)]) << n;
}

TEST(Codegen, scalar_kernel_without_any_loop) {
  auto ast = store(0, F32, st_of({}),
                   alu(Op::MUL, {load(1, F32, st_of({})), cnst(Scalar::of_float(3), F32, st_of({}))}));
  auto s = make_schedule({{"out", F32, {}, BufferRole::Output}, {"x", F32, {}, BufferRole::Input}},
                         {{{ast}, {0, 1}}});
  EXPECT_EQ(run_f32(s, {{"x", host(F32, {}, std::vector<float>{2.5f})}}), (std::vector<float>{7.5f}));
  EXPECT_EQ(lower_kernel({ast}, device_renderer("CLANG")).src.find("for ("), std::string::npos);
}

TEST(Codegen, load_entirely_in_padding_becomes_zero_and_keeps_the_parameter) {
  auto x_st = st_of({4, 8}).pad({{2, 0}, {0, 0}}).shrink({{0, 2}, {0, 8}});
  auto ast = store(0, F32, st_of({2, 8}),
                   alu(Op::ADD, {load(1, F32, x_st), cnst(Scalar::of_float(1), F32, st_of({2, 8}))}));
  auto s = make_schedule({{"out", F32, {2, 8}, BufferRole::Output}, {"x", F32, {4, 8}, BufferRole::Input}},
                         {{{ast}, {0, 1}}});
  auto v = run_f32(s, {{"x", iota_4x8()}});
  for (float f : v) EXPECT_EQ(f, 1.f);
  EXPECT_NE(lower_kernel({ast}, device_renderer("CLANG")).src.find("const float* restrict data1"),
            std::string::npos);
}

TEST(Codegen, kernel_reading_and_writing_the_same_buffer) {
  // x += 1 as tinygrad schedules an assign: the load reads MemBuffer 0, the store target
  auto st = st_of({5});
  auto ast = store(0, F32, st, alu(Op::ADD, {load(0, F32, st), cnst(Scalar::of_float(1), F32, st)}));
  Program p = codegen_schedule(make_schedule({{"x", F32, {5}, BufferRole::Input}}, {{{ast}, {0}}}),
                               device_renderer("CLANG"));
  p.outputs = {NamedBuffer{"y", 0, {5}, F32}};
  EXPECT_NE(p.kernels[0].src.find("(float* restrict data0)"), std::string::npos) << p.kernels[0].src;
  auto out = run_program(p, {{"x", host(F32, {5}, iota_values<float>(5))}});
  EXPECT_EQ(values_of<float>(out.at("y")), (std::vector<float>{1, 2, 3, 4, 5}));
}

namespace {
// 40 rounds of a = a + b; b = b * a over two uint32 loads: a DAG of ~80 ALU nodes whose
// every value is used twice, so any pass that walks it as a tree (or a renderer that inlines
// shared values) does ~2^40 work. uint32 wraps, so the values are defined.
constexpr int kDeepRounds = 40;
LazyOpPtr deep_shared_dag(const ShapeTracker& st, DType dt) {
  LazyOpPtr a = load(1, dt, st), b = load(2, dt, st);
  for (int i = 0; i < kDeepRounds; i++) {
    a = alu(Op::ADD, {a, b});
    b = alu(Op::MUL, {b, a});
  }
  return alu(Op::ADD, {a, b});
}
uint32_t deep_shared_value(uint32_t a, uint32_t b) {
  for (int i = 0; i < kDeepRounds; i++) {
    a = a + b;
    b = b * a;
  }
  return a + b;
}
} // namespace

TEST(Codegen, deep_dag_with_shared_subexpressions_lowers_in_linear_time) {
  constexpr DType U32 = DType::UInt32;
  auto st = st_of({4, 8});
  auto ast = store(0, U32, st, deep_shared_dag(st, U32));
  for (bool optimize : {false, true}) {
    LoweredKernel lk = lower_kernel({ast}, device_renderer("CLANG"),
                                    CodegenOptions{optimize ? Optimizer::Tinygrad : Optimizer::None});
    // each shared value is a variable: the source grows with the number of nodes (x4 upcast)
    EXPECT_LT(lk.src.size(), 40000u) << lk.src;
    EXPECT_NE(lk.src.find("unsigned int alu"), std::string::npos) << lk.src;
  }
  auto s = make_schedule({{"out", U32, {4, 8}, BufferRole::Output},
                          {"a", U32, {4, 8}, BufferRole::Input},
                          {"b", U32, {4, 8}, BufferRole::Input}},
                         {{{ast}, {0, 1, 2}}});
  auto a = iota_values<uint32_t>(32, 1u, 3u), b = iota_values<uint32_t>(32, 7u, 5u);
  auto v = values_of<uint32_t>(run(s, {{"a", host(U32, {4, 8}, a)}, {"b", host(U32, {4, 8}, b)}}).at("out"));
  ASSERT_EQ(v.size(), 32u);
  for (size_t i = 0; i < 32; i++) EXPECT_EQ(v[i], deep_shared_value(a[i], b[i])) << i;
}

TEST(Codegen, deep_shared_dag_inside_a_reduce_lowers_in_linear_time) {
  constexpr DType U32 = DType::UInt32;
  auto st = st_of({4, 8});
  auto ast = store(0, U32, st_of({4, 1}), reduce(Op::SUM, deep_shared_dag(st, U32), {1}));
  auto s = make_schedule({{"out", U32, {4, 1}, BufferRole::Output},
                          {"a", U32, {4, 8}, BufferRole::Input},
                          {"b", U32, {4, 8}, BufferRole::Input}},
                         {{{ast}, {0, 1, 2}}});
  auto a = iota_values<uint32_t>(32, 2u, 1u), b = iota_values<uint32_t>(32, 5u, 11u);
  auto v = values_of<uint32_t>(run(s, {{"a", host(U32, {4, 8}, a)}, {"b", host(U32, {4, 8}, b)}}).at("out"));
  ASSERT_EQ(v.size(), 4u);
  for (size_t i = 0; i < 4; i++) {
    uint32_t want = 0;
    for (size_t j = 0; j < 8; j++) want += deep_shared_value(a[i * 8 + j], b[i * 8 + j]);
    EXPECT_EQ(v[i], want) << i;
  }
}
