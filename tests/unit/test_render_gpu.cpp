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
  return lower_kernel(ast, device_renderer(device), {Optimizer::None});
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
  EXPECT_NE(m.find("int acc0 = -2147483647-1;"), std::string::npos) << m;
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

// ---- hand-coded optimizations with locals (tinygrad's default, GPU=1 DEBUG=4 on PoCL)

namespace {
LoweredKernel lower_opt(const std::vector<LazyOpPtr>& ast, const std::string& device = "GPU") {
  return lower_kernel(ast, device_renderer(device), {Optimizer::Tinygrad});
}
LazyOpPtr sum_of(const Shape& in, const Shape& out, Axes axes) {
  return store(0, F32, st_of(out), reduce(Op::SUM, load(1, F32, st_of(in)), std::move(axes)));
}
} // namespace

TEST(RenderOpenCLOpts, big_row_sum_is_grouped_into_local_memory) {
  // Tensor.empty(4, 4096).sum(axis=1): GROUPTOP 256, then the 256 partial sums in local memory
  LoweredKernel k = lower_opt({sum_of({4, 4096}, {4, 1}, {1})});
  EXPECT_EQ(k.src, R"(__kernel void r_4_256_16(__global float* data0, const __global float* data1) {
  __attribute__ ((aligned (16))) __local float temp[256];
  int gidx0 = get_group_id(0); /* 4 */
  int lidx1 = get_local_id(0); /* 256 */
  float acc0 = 0.0f;
  for (int ridx0 = 0; ridx0 < 16; ridx0++) {
    float val0 = data1[(gidx0*4096)+(lidx1*16)+ridx0];
    acc0 = (val0+acc0);
  }
  temp[lidx1] = acc0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if ((lidx1<1)) {
    float acc1 = 0.0f;
    for (int ridx1 = 0; ridx1 < 256; ridx1++) {
      float val1 = temp[ridx1];
      acc1 = (val1+acc1);
    }
    data0[gidx0] = acc1;
  }
}
)");
  EXPECT_EQ(k.applied_opts, (std::vector<Opt>{{OptOps::GROUPTOP, 0, 256}}));
  EXPECT_EQ(k.global_size, (std::vector<int64_t>{4, 1, 1}));
  EXPECT_EQ(k.local_size, (std::vector<int64_t>{256, 1, 1}));
}

TEST(RenderOpenCLOpts, full_sum_first_stage_matches_tinygrad_text) {
  // Tensor.empty(65536).sum(), tinygrad's first kernel: (256, 256) -> (256, 1)
  EXPECT_EQ(lower_opt({sum_of({256, 256}, {256, 1}, {1})}).src,
            R"(__kernel void r_256_16_16(__global float* data0, const __global float* data1) {
  __attribute__ ((aligned (16))) __local float temp[16];
  int gidx0 = get_group_id(0); /* 256 */
  int lidx1 = get_local_id(0); /* 16 */
  float acc0 = 0.0f;
  for (int ridx0 = 0; ridx0 < 16; ridx0++) {
    float val0 = data1[(gidx0*256)+(lidx1*16)+ridx0];
    acc0 = (val0+acc0);
  }
  temp[lidx1] = acc0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if ((lidx1<1)) {
    float acc1 = 0.0f;
    for (int ridx1 = 0; ridx1 < 16; ridx1++) {
      float val1 = temp[ridx1];
      acc1 = (val1+acc1);
    }
    data0[gidx0] = acc1;
  }
}
)");
}

TEST(RenderOpenCLOpts, full_sum_second_stage_has_no_reduce_loop_before_the_barrier) {
  // Tensor.empty(65536).sum(), tinygrad's second kernel: 256 -> 1, one value per work-item
  LoweredKernel k = lower_opt({sum_of({256}, {1}, {0})});
  EXPECT_EQ(k.src, R"(__kernel void r_256(__global float* data0, const __global float* data1) {
  __attribute__ ((aligned (16))) __local float temp[256];
  int lidx0 = get_local_id(0); /* 256 */
  float val0 = data1[lidx0];
  temp[lidx0] = val0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if ((lidx0<1)) {
    float acc0 = 0.0f;
    for (int ridx0 = 0; ridx0 < 256; ridx0++) {
      float val1 = temp[ridx0];
      acc0 = (val1+acc0);
    }
    data0[0] = acc0;
  }
}
)");
  EXPECT_EQ(k.global_size, (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(k.local_size, (std::vector<int64_t>{256, 1, 1}));
}

TEST(RenderOpenCLOpts, column_sum_groups_the_strided_reduce) {
  // Tensor.empty(64, 64).sum(axis=0)
  ShapeTracker in = st_of({64, 64}).permute({1, 0});
  LoweredKernel k = lower_opt({store(0, F32, st_of({64, 1}), reduce(Op::SUM, load(1, F32, in), {1}))});
  EXPECT_EQ(k.src, R"(__kernel void r_64_16_4(__global float* data0, const __global float* data1) {
  __attribute__ ((aligned (16))) __local float temp[16];
  int gidx0 = get_group_id(0); /* 64 */
  int lidx1 = get_local_id(0); /* 16 */
  float acc0 = 0.0f;
  for (int ridx0 = 0; ridx0 < 4; ridx0++) {
    float val0 = data1[gidx0+(lidx1*256)+(ridx0*64)];
    acc0 = (val0+acc0);
  }
  temp[lidx1] = acc0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if ((lidx1<1)) {
    float acc1 = 0.0f;
    for (int ridx1 = 0; ridx1 < 16; ridx1++) {
      float val1 = temp[ridx1];
      acc1 = (val1+acc1);
    }
    data0[gidx0] = acc1;
  }
}
)");
}

TEST(RenderOpenCLOpts, elementwise_dims_get_local_sizes) {
  // (Tensor.empty(30, 30).permute(1, 0) + 1): no upcast (30 % 4 != 0), LOCAL 3 on both axes
  ShapeTracker in = st_of({30, 30}).permute({1, 0});
  auto out = st_of({30, 30});
  LoweredKernel k =
      lower_opt({store(0, F32, out, alu(Op::ADD, {load(1, F32, in), cnst(Scalar::of_float(1), F32, out)}))});
  EXPECT_EQ(k.src, R"(__kernel void E_10_10_3_3(__global float* data0, const __global float* data1) {
  int gidx1 = get_group_id(0); /* 10 */
  int lidx2 = get_local_id(0); /* 3 */
  int gidx0 = get_group_id(1); /* 10 */
  int lidx3 = get_local_id(1); /* 3 */
  float val0 = data1[(gidx0*3)+(gidx1*90)+lidx2+(lidx3*30)];
  data0[(gidx0*90)+(gidx1*3)+(lidx2*30)+lidx3] = (val0+1.0f);
}
)");
  EXPECT_EQ(k.applied_opts, (std::vector<Opt>{{OptOps::LOCAL, 0, 3}, {OptOps::LOCAL, 1, 3}}));
  EXPECT_EQ(k.global_size, (std::vector<int64_t>{10, 10, 1}));
  EXPECT_EQ(k.local_size, (std::vector<int64_t>{3, 3, 1}));
}

TEST(RenderOpenCLOpts, int_sum_groups_too) {
  auto ast =
      store(0, DType::Int32, st_of({4, 1}), reduce(Op::SUM, load(1, DType::Int32, st_of({4, 4096})), {1}));
  std::string src = lower_opt({ast}).src;
  EXPECT_NE(src.find("__attribute__ ((aligned (16))) __local int temp[256];"), std::string::npos) << src;
  EXPECT_NE(src.find("    int acc1 = 0;\n    for (int ridx1 = 0; ridx1 < 256; ridx1++) {"), std::string::npos)
      << src;
}

TEST(RenderOpenCLOpts, matvec_uses_group_local_and_upcast) {
  // Tensor.empty(1, 1024) @ Tensor.empty(1024, 256): tinygrad's MV heuristic (its source differs
  // from tg's only where tinygrad uses float4 accumulators and loads)
  ShapeTracker x = st_of({1, 1, 1024}).expand({1, 256, 1024});
  ShapeTracker w = st_of({1024, 256}).permute({1, 0}).reshape({1, 256, 1024});
  auto ast = store(0, F32, st_of({1, 256, 1}),
                   reduce(Op::SUM, alu(Op::MUL, {load(1, F32, x), load(2, F32, w)}), {2}));
  LoweredKernel k = lower_opt({ast});
  EXPECT_EQ(k.name, "r_16_4_8_128_4");
  EXPECT_EQ(k.applied_opts,
            (std::vector<Opt>{{OptOps::GROUP, 0, 8}, {OptOps::LOCAL, 0, 4}, {OptOps::UPCAST, 0, 4}}));
  EXPECT_EQ(k.global_size, (std::vector<int64_t>{16, 1, 1}));
  EXPECT_EQ(k.local_size, (std::vector<int64_t>{4, 8, 1}));
  EXPECT_NE(k.src.find("__local float temp[128];"), std::string::npos) << k.src;
  EXPECT_NE(k.src.find("  if ((lidx2<1)) {\n"), std::string::npos) << k.src;
}

TEST(RenderCUDAOpts, grouped_reduce_uses_shared_memory_and_syncthreads) {
  std::string src = lower_opt({sum_of({4, 4096}, {4, 1}, {1})}, "CUDA").src;
  EXPECT_NE(src.find("  __shared__ float temp[256];\n  int gidx0 = blockIdx.x; /* 4 */\n  int lidx1 = "
                     "threadIdx.x; /* 256 */"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("  temp[lidx1] = acc0;\n  __syncthreads();\n  if ((lidx1<1)) {"), std::string::npos)
      << src;
}

TEST(KernelOpts, locals_and_groups_need_a_target_with_local_memory) {
  auto ast = sum_of({8, 16}, {8, 1}, {1});
  Kernel k({ast}, device_renderer("CLANG").opts());
  auto message = [&](const Opt& opt) {
    try {
      k.apply_opt(opt);
    } catch (const KernelOptError& e) {
      return std::string(e.what());
    }
    return std::string("applied");
  };
  EXPECT_NE(message({OptOps::LOCAL, 0, 2}).find("target does not support local"), std::string::npos);
  EXPECT_NE(message({OptOps::GROUP, 0, 4}).find("target does not support local or shared mem"),
            std::string::npos);
  EXPECT_NE(message({OptOps::GROUPTOP, 0, 4}).find("target does not support local or shared mem"),
            std::string::npos);
  EXPECT_NE(message({OptOps::NOLOCALS, std::nullopt, std::nullopt}).find("NOLOCALS is meaningless"),
            std::string::npos);
  EXPECT_TRUE(k.applied_opts.empty());
  EXPECT_EQ(k.full_shape(), (Shape{8, 16}));

  Kernel gpu({ast}, device_renderer("GPU").opts());
  gpu.apply_opt({OptOps::GROUPTOP, 0, 4});
  EXPECT_EQ(gpu.group_for_reduces, 1);
  EXPECT_EQ(gpu.full_shape(), (Shape{8, 4, 4}));
  gpu.apply_opt({OptOps::LOCAL, 0, 2});
  EXPECT_EQ(gpu.local_dims, 1);
  EXPECT_EQ(gpu.full_shape(), (Shape{4, 2, 4, 4}));
  EXPECT_THROW(gpu.apply_opt({OptOps::NOLOCALS, std::nullopt, std::nullopt}),
               KernelOptError); // locals already in use
  // a second group of 16 needs 16 * 4 bytes * the first group of 4096 > 32 KiB of local memory
  Kernel big({sum_of({8, 65536}, {8, 1}, {1})}, device_renderer("GPU").opts());
  big.apply_opt({OptOps::GROUP, 0, 4096});
  EXPECT_THROW(big.apply_opt({OptOps::GROUP, 0, 16}), KernelOptError);
}
