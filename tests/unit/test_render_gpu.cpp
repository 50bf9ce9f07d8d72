// The OpenCL and CUDA renderers: work-item ids for the global dims (the last dim is x), the
// dialects' prefixes, and source identical to tinygrad 0.9.1's GPU device where tinygrad runs
// the same kernel (NOOPT=1, hand-checked with GPU=1 DEBUG=4 on PoCL).
#include <gtest/gtest.h>

#include "test_codegen_util.h"

using namespace tg;
using namespace tg::testing;

namespace {
constexpr DType F32 = DType::Float32;

LoweredKernel lower(const std::vector<LazyOpPtr>& ast, const std::string& device) {
  return lower_kernel(ast, device_renderer(device), {false});
}
} // namespace

TEST(RenderOpenCL, elementwise_kernel_matches_tinygrad_text) {
  auto st = st_of({4, 8});
  LoweredKernel k = lower({store(0, F32, st, alu(Op::ADD, {load(1, F32, st), load(2, F32, st)}))}, "GPU");
  EXPECT_EQ(
      k.src,
      R"(__kernel void E_32(__global float* data0, const __global float* data1, const __global float* data2) {
  int gidx0 = get_group_id(0); /* 32 */
  float val0 = data1[gidx0];
  float val1 = data2[gidx0];
  data0[gidx0] = (val0+val1);
}
)");
  EXPECT_EQ(k.global_size, (std::vector<int64_t>{32, 1, 1}));
  EXPECT_EQ(k.local_size, (std::vector<int64_t>{1, 1, 1}));
}

TEST(RenderOpenCL, two_global_dims_put_the_last_on_x) {
  // (a.permute(2, 0, 1) + 1) of a (3, 5, 7) tensor
  ShapeTracker in = st_of({3, 5, 7}).permute({2, 0, 1}).reshape({7, 15});
  auto ast = store(0, F32, st_of({7, 15}),
                   alu(Op::ADD, {load(1, F32, in), cnst(Scalar::of_float(1), F32, st_of({7, 15}))}));
  LoweredKernel k = lower({ast}, "GPU");
  EXPECT_EQ(k.src, R"(__kernel void E_7_15(__global float* data0, const __global float* data1) {
  int gidx1 = get_group_id(0); /* 15 */
  int gidx0 = get_group_id(1); /* 7 */
  float val0 = data1[gidx0+(gidx1*7)];
  data0[(gidx0*15)+gidx1] = (val0+1.0f);
}
)");
  EXPECT_EQ(k.global_size, (std::vector<int64_t>{15, 7, 1}));
}

TEST(RenderOpenCL, reduce_keeps_its_loop_inside_the_work_item) {
  auto ast = store(0, F32, st_of({4, 1}), reduce(Op::SUM, load(1, F32, st_of({4, 8})), {1}));
  EXPECT_EQ(lower({ast}, "GPU").src,
            R"(__kernel void r_4_8(__global float* data0, const __global float* data1) {
  int gidx0 = get_group_id(0); /* 4 */
  float acc0 = 0.0f;
  for (int ridx0 = 0; ridx0 < 8; ridx0++) {
    float val0 = data1[(gidx0*8)+ridx0];
    acc0 = (val0+acc0);
  }
  data0[gidx0] = acc0;
}
)");
}

TEST(RenderOpenCL, half_is_stored_as_half_and_computed_in_float) {
  auto st = st_of({4});
  std::string src = lower({store(0, DType::Float16, st,
                                 alu(Op::MUL, {load(1, DType::Float16, st), load(1, DType::Float16, st)}))},
                          "GPU")
                        .src;
  EXPECT_NE(src.find("__global half* data0"), std::string::npos) << src;
  EXPECT_NE(src.find("vload_half(0, data1+gidx0)"), std::string::npos) << src;
  EXPECT_NE(src.find("vstore_half("), std::string::npos) << src;
  EXPECT_NE(src.find("float tg_half_round(float f)"), std::string::npos) << src;
  EXPECT_EQ(src.find("cl_khr_fp16"), std::string::npos) << src;
}

TEST(RenderOpenCL, bool_buffers_are_uchar_and_int_min_stays_an_int) {
  auto st = st_of({4, 8});
  std::string b =
      lower({store(0, DType::Bool, st, alu(Op::CMPLT, {load(1, F32, st), load(2, F32, st)}))}, "GPU").src;
  EXPECT_NE(b.find("__global uchar* data0"), std::string::npos) << b;
  auto ast = store(0, DType::Int32, st_of({4, 1}),
                   reduce(Op::REDUCE_MAX, load(1, DType::Int32, st_of({4, 8})), {1}));
  std::string m = lower({ast}, "GPU").src;
  EXPECT_NE(m.find("int acc0 = (-2147483647-1);"), std::string::npos) << m;
}

TEST(RenderCUDA, kernels_are_extern_c_with_block_ids) {
  auto st = st_of({4, 8});
  std::string src =
      lower({store(0, F32, st, alu(Op::ADD, {load(1, F32, st), load(2, F32, st)}))}, "CUDA").src;
  EXPECT_EQ(src, R"(#define INFINITY (__int_as_float(0x7f800000))
#define NAN (__int_as_float(0x7fffffff))
extern "C" __global__ void E_32(float* data0, const float* data1, const float* data2) {
  int gidx0 = blockIdx.x; /* 32 */
  float val0 = data1[gidx0];
  float val1 = data2[gidx0];
  data0[gidx0] = (val0+val1);
}
)");
}

TEST(RenderCUDA, half_math_uses_cuda_fp16) {
  auto st = st_of({4});
  std::string src =
      lower({store(0, DType::Float16, st, alu(Op::SQRT, {load(1, DType::Float16, st)}))}, "CUDA").src;
  EXPECT_NE(src.find("#include <cuda_fp16.h>"), std::string::npos) << src;
  EXPECT_NE(src.find("hsqrt(val0)"), std::string::npos) << src;
}

TEST(LaunchDims, a_dim_too_big_for_cuda_y_is_split_across_axes) {
  // CUDA's y takes at most 65535 blocks: a transposed 70000 x 7 puts 7 on x and splits 70000
  ShapeTracker in = st_of({7, 70000}).permute({1, 0});
  auto ast = store(0, F32, st_of({70000, 7}), alu(Op::ADD, {load(1, F32, in), load(1, F32, in)}));
  LoweredKernel k = lower({ast}, "CUDA");
  EXPECT_EQ(k.global_size[0], 7);
  EXPECT_EQ(k.global_size[1] * k.global_size[2], 70000);
  EXPECT_LE(k.global_size[1], 65535);
}
