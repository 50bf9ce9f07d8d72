#include <gtest/gtest.h>

#include <cmath>

#include "codegen/linearizer.h"
#include "device/registry.h"
#include "render/cstyle.h"
#include "test_codegen_util.h"

using namespace tg;
using namespace tg::testing;

namespace {
constexpr DType F32 = DType::Float32;

const CStyleRenderer& clang() { return dynamic_cast<const CStyleRenderer&>(device_renderer("CLANG")); }
std::string render_c_const(const Scalar& v, DType dt) { return clang().render_const(v, dt); }
std::string c_type(DType dt, bool value = true) { return clang().render_dtype(dt, value); }

std::string src_of(const std::vector<LazyOpPtr>& ast, bool optimize = true) {
  return lower_kernel(ast, device_renderer("CLANG"), {optimize ? Optimizer::Tinygrad : Optimizer::None}).src;
}
} // namespace

TEST(RenderC, elementwise_kernel_matches_tinygrad_text) {
  auto st = st_of({4, 8});
  std::string src = src_of({store(0, F32, st, alu(Op::ADD, {load(1, F32, st), load(2, F32, st)}))});
  EXPECT_EQ(src, R"(#include <tgmath.h>
void E_8_4(float* restrict data0, const float* restrict data1, const float* restrict data2) {
  for (int ridx0 = 0; ridx0 < 8; ridx0++) {
    int alu0 = (ridx0*4);
    int alu1 = (alu0+1);
    int alu2 = (alu0+2);
    int alu3 = (alu0+3);
    float val0 = data1[alu1];
    float val1 = data1[alu2];
    float val2 = data1[alu3];
    float val3 = data1[alu0];
    float val4 = data2[alu1];
    float val5 = data2[alu2];
    float val6 = data2[alu3];
    float val7 = data2[alu0];
    data0[alu1] = (val0+val4);
    data0[alu2] = (val1+val5);
    data0[alu3] = (val2+val6);
    data0[alu0] = (val3+val7);
  }
}
)");
}

TEST(RenderC, reduce_kernel_has_accumulator_and_inner_loop) {
  std::string src =
      src_of({store(0, F32, st_of({3, 1}), reduce(Op::SUM, load(1, F32, st_of({3, 100})), {1}))});
  EXPECT_EQ(src, R"(#include <tgmath.h>
void r_3_25_4(float* restrict data0, const float* restrict data1) {
  for (int ridx0 = 0; ridx0 < 3; ridx0++) {
    float acc0 = 0.0f;
    for (int ridx1 = 0; ridx1 < 25; ridx1++) {
      int alu0 = ((ridx0*100)+(ridx1*4));
      float val0 = data1[alu0+1];
      float val1 = data1[alu0+2];
      float val2 = data1[alu0+3];
      float val3 = data1[alu0];
      acc0 = (val2+val1+val0+val3+acc0);
    }
    data0[ridx0] = acc0;
  }
}
)");
}

TEST(RenderC, padded_load_renders_a_gated_read) {
  std::string src =
      src_of({store(0, F32, st_of({4, 11}), load(1, F32, st_of({4, 8}).pad({{0, 0}, {2, 1}})))});
  EXPECT_NE(src.find("float val0 = (((1<ridx1)*(ridx1<10))?data1[(ridx0*8)+ridx1+(-2)]:0.0f);"),
            std::string::npos)
      << src;
}

TEST(RenderC, max_is_a_conditional_expression_never_inlined) {
  std::string src =
      src_of({store(0, F32, st_of({1, 8}), reduce(Op::REDUCE_MAX, load(1, F32, st_of({4, 8})), {0}))});
  EXPECT_NE(src.find("float alu0 = ((val3>(-INFINITY))?val3:(-INFINITY));"), std::string::npos) << src;
}

TEST(RenderC, signature_marks_inputs_const_and_uses_c_types) {
  auto st = st_of({4});
  std::string src = src_of(
      {store(0, DType::Bool, st,
             alu(Op::CMPLT, {cast(load(1, DType::UInt8, st), DType::Int64), load(2, DType::Int64, st)}))});
  EXPECT_NE(
      src.find("(_Bool* restrict data0, const unsigned char* restrict data1, const long* restrict data2)"),
      std::string::npos)
      << src;
}

TEST(RenderC, half_uses_fp16_storage_and_bfloat16_uses_helpers) {
  auto st = st_of({4});
  std::string h = src_of(
      {store(0, DType::Float16, st,
             alu(Op::MUL, {load(1, DType::Float16, st), cnst(Scalar::of_float(2), DType::Float16, st)}))});
  EXPECT_NE(h.find("__fp16* restrict data0"), std::string::npos) << h;
  EXPECT_NE(h.find("(__fp16)(2.0)"), std::string::npos) << h;
  std::string bf = src_of({store(
      0, DType::BFloat16, st, alu(Op::ADD, {load(1, DType::BFloat16, st), load(1, DType::BFloat16, st)}))});
  EXPECT_NE(bf.find("unsigned short* restrict data0"), std::string::npos) << bf;
  EXPECT_NE(bf.find("tg_bf16_to_float(data1["), std::string::npos) << bf;
  EXPECT_NE(bf.find("tg_float_to_bf16("), std::string::npos) << bf;
}

TEST(RenderC, constants_are_exact_for_special_values) {
  EXPECT_EQ(render_c_const(Scalar::of_float(INFINITY), F32), "INFINITY");
  EXPECT_EQ(render_c_const(Scalar::of_float(-INFINITY), F32), "(-INFINITY)");
  EXPECT_EQ(render_c_const(Scalar::of_float(NAN), F32), "(NAN)");
  EXPECT_EQ(render_c_const(Scalar::of_float(1.0), F32), "1.0f");
  EXPECT_EQ(render_c_const(Scalar::of_float(0.1), F32), "0.1f");
  EXPECT_EQ(render_c_const(Scalar::of_float(1.4426950408889634), F32), "1.4426950408889634f");
  EXPECT_EQ(render_c_const(Scalar::of_float(0.5), DType::Float64), "(double)(0.5)");
  EXPECT_EQ(render_c_const(Scalar::of_float(INFINITY), DType::Float64), "(double)(INFINITY)");
  EXPECT_EQ(render_c_const(Scalar::of_int(-1), DType::Int32), "(-1)");
  EXPECT_EQ(render_c_const(Scalar::of_int(7), DType::Int32), "7");
  EXPECT_EQ(render_c_const(Scalar::of_bool(true), DType::Bool), "1");
  EXPECT_EQ(render_c_const(Scalar::of_int(-1), DType::UInt64), "(unsigned long)(18446744073709551615ull)");
  EXPECT_EQ(render_c_const(Scalar::of_int(INT64_MIN), DType::Int64), "((long)((-9223372036854775807ll-1)))");
  EXPECT_EQ(render_c_const(Scalar::of_int(5), DType::UInt8), "(unsigned char)(5)");
}

TEST(RenderC, bitcast_goes_through_builtin_bit_cast) {
  auto st = st_of({2});
  std::string src =
      src_of({store(0, DType::Int32, st, LazyOp::make(Op::BITCAST, {load(1, F32, st)}, DType::Int32))});
  EXPECT_NE(src.find("float precast0 = val"), std::string::npos) << src;
  EXPECT_NE(src.find("__builtin_bit_cast(int, precast0)"), std::string::npos) << src;
}

TEST(RenderC, c_types_for_every_dtype) {
  EXPECT_EQ(c_type(DType::Bool), "_Bool");
  EXPECT_EQ(c_type(DType::Int8), "signed char");
  EXPECT_EQ(c_type(DType::UInt64), "unsigned long");
  EXPECT_EQ(c_type(DType::Float16), "__fp16");
  EXPECT_EQ(c_type(DType::BFloat16), "float");
  EXPECT_EQ(c_type(DType::BFloat16, false), "unsigned short");
  EXPECT_EQ(c_type(DType::Float64), "double");
}

TEST(RenderC, accumulator_starts_from_an_unparenthesised_constant_as_tinygrad) {
  std::string f =
      src_of({store(0, F32, st_of({4, 1}), reduce(Op::REDUCE_MAX, load(1, F32, st_of({4, 100})), {1}))});
  EXPECT_NE(f.find("float acc0 = -INFINITY;"), std::string::npos) << f;
  std::string i = src_of({store(0, DType::Int32, st_of({4, 1}),
                                reduce(Op::REDUCE_MAX, load(1, DType::Int32, st_of({4, 100})), {1}))});
  EXPECT_NE(i.find("int acc0 = -2147483648;"), std::string::npos) << i;
}
