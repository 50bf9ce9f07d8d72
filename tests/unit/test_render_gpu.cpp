// The OpenCL and CUDA renderers: work-item ids for the global dims (the last dim is x), the
// dialects' prefixes, and source identical to tinygrad 0.9.1's GPU device where tinygrad runs
// the same kernel (NOOPT=1, hand-checked with GPU=1 DEBUG=4 on PoCL).
#include <gtest/gtest.h>

#include "codegen/codegen.h"
#include "device/registry.h"
#include "schedule/schedule.h"
#include "script/trace.h"
#include "test_codegen_util.h"

using namespace tg;
using namespace tg::testing;

namespace {
constexpr DType F32 = DType::Float32;

LoweredKernel lower(const std::vector<LazyOpPtr>& ast, const std::string& device) {
  return lower_kernel(ast, device_renderer(device), {Optimizer::None});
}
// a script's kernels with tinygrad's hand-coded opts on `device`, sources joined
std::string tinygrad_opts_src(const std::string& script, const std::string& device) {
  Schedule s = schedule_graph(trace_script(script, "t.tg"));
  std::string out;
  for (const ScheduleKernel& k : s.kernels)
    out += lower_kernel(k.ast, device_renderer(device), {Optimizer::Tinygrad}).src;
  return out;
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
  EXPECT_EQ(k.global_size, (Shape{32, 1, 1}));
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
  EXPECT_EQ(k.global_size, (Shape{15, 7, 1}));
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
  EXPECT_EQ(k.global_size, (Shape{4, 1, 1}));
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
  EXPECT_EQ(k.global_size, (Shape{1, 1, 1}));
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
  EXPECT_EQ(k.global_size, (Shape{10, 10, 1}));
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
  EXPECT_EQ(k.global_size, (Shape{16, 1, 1}));
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

// float4 (tinygrad's supports_float4): 2 or 4 upcast elements consecutive in memory at an
// aligned index load and store as one vector, accumulators are vectors updated whole. Texts
// from tinygrad 0.9.1 GPU=1 DEBUG=4 on PoCL for the same programs.
TEST(RenderOpenCLFloat4, elementwise_loads_and_stores_float4) {
  EXPECT_EQ(
      tinygrad_opts_src("a = input('a', (64, 64))\nb = input('b', (64, 64))\noutput('o', a + b)", "GPU"),
      R"(__kernel void E_32_32_4(__global float* data0, const __global float* data1, const __global float* data2) {
  int gidx0 = get_group_id(0); /* 32 */
  int lidx1 = get_local_id(0); /* 32 */
  int alu0 = ((gidx0*128)+(lidx1*4));
  float4 val0 = (float4)(*((__global float4*)(data1+alu0)));
  float4 val1 = (float4)(*((__global float4*)(data2+alu0)));
  *((__global float4*)(data0+alu0)) = (float4)((val0.x+val1.x),(val0.y+val1.y),(val0.z+val1.z),(val0.w+val1.w));
}
)");
}

TEST(RenderOpenCLFloat4, matmul_accumulates_float4_vectors) {
  EXPECT_EQ(
      tinygrad_opts_src("a = input('a', (64, 64))\nb = input('b', (64, 64))\noutput('o', a @ b)", "GPU"),
      R"(__kernel void r_2_8_16_16_4_4_4(__global float* data0, const __global float* data1, const __global float* data2) {
  int gidx0 = get_group_id(0); /* 2 */
  int lidx1 = get_local_id(0); /* 8 */
  int lidx2 = get_local_id(1); /* 16 */
  int alu0 = (lidx2*4);
  int alu1 = ((gidx0*2048)+(lidx1*256));
  int alu2 = (alu1+alu0);
  float4 acc0 = (float4)(0.0,0.0,0.0,0.0);
  float4 acc1 = (float4)(0.0,0.0,0.0,0.0);
  float4 acc2 = (float4)(0.0,0.0,0.0,0.0);
  float4 acc3 = (float4)(0.0,0.0,0.0,0.0);
  for (int ridx0 = 0; ridx0 < 16; ridx0++) {
    int alu3 = (alu1+(ridx0*4));
    int alu4 = (alu0+(ridx0*256));
    float4 val0 = (float4)(*((__global float4*)(data1+alu3)));
    float4 val1 = (float4)(*((__global float4*)(data1+alu3+64)));
    float4 val2 = (float4)(*((__global float4*)(data1+alu3+128)));
    float4 val3 = (float4)(*((__global float4*)(data1+alu3+192)));
    float4 val4 = (float4)(*((__global float4*)(data2+alu4)));
    float4 val5 = (float4)(*((__global float4*)(data2+alu4+64)));
    float4 val6 = (float4)(*((__global float4*)(data2+alu4+128)));
    float4 val7 = (float4)(*((__global float4*)(data2+alu4+192)));
    acc0 = (float4)(((val0.w*val7.x)+(val0.z*val6.x)+(val0.y*val5.x)+(val0.x*val4.x)+acc0.x),((val0.w*val7.y)+(val0.z*val6.y)+(val0.y*val5.y)+(val0.x*val4.y)+acc0.y),((val0.w*val7.z)+(val0.z*val6.z)+(val0.y*val5.z)+(val0.x*val4.z)+acc0.z),((val0.w*val7.w)+(val0.z*val6.w)+(val0.y*val5.w)+(val0.x*val4.w)+acc0.w));
    acc1 = (float4)(((val1.w*val7.x)+(val1.z*val6.x)+(val1.y*val5.x)+(val1.x*val4.x)+acc1.x),((val1.w*val7.y)+(val1.z*val6.y)+(val1.y*val5.y)+(val1.x*val4.y)+acc1.y),((val1.w*val7.z)+(val1.z*val6.z)+(val1.y*val5.z)+(val1.x*val4.z)+acc1.z),((val1.w*val7.w)+(val1.z*val6.w)+(val1.y*val5.w)+(val1.x*val4.w)+acc1.w));
    acc2 = (float4)(((val2.w*val7.x)+(val2.z*val6.x)+(val2.y*val5.x)+(val2.x*val4.x)+acc2.x),((val2.w*val7.y)+(val2.z*val6.y)+(val2.y*val5.y)+(val2.x*val4.y)+acc2.y),((val2.w*val7.z)+(val2.z*val6.z)+(val2.y*val5.z)+(val2.x*val4.z)+acc2.z),((val2.w*val7.w)+(val2.z*val6.w)+(val2.y*val5.w)+(val2.x*val4.w)+acc2.w));
    acc3 = (float4)(((val3.w*val7.x)+(val3.z*val6.x)+(val3.y*val5.x)+(val3.x*val4.x)+acc3.x),((val3.w*val7.y)+(val3.z*val6.y)+(val3.y*val5.y)+(val3.x*val4.y)+acc3.y),((val3.w*val7.z)+(val3.z*val6.z)+(val3.y*val5.z)+(val3.x*val4.z)+acc3.z),((val3.w*val7.w)+(val3.z*val6.w)+(val3.y*val5.w)+(val3.x*val4.w)+acc3.w));
  }
  *((__global float4*)(data0+alu2)) = acc0;
  *((__global float4*)(data0+alu2+64)) = acc1;
  *((__global float4*)(data0+alu2+128)) = acc2;
  *((__global float4*)(data0+alu2+192)) = acc3;
}
)");
}

TEST(RenderCUDAFloat4, vectors_are_made_with_make_float4_and_shared_memory_is_not_cast) {
  std::string src =
      tinygrad_opts_src("a = input('a', (64, 64))\nb = input('b', (64, 64))\noutput('o', a @ b)", "CUDA");
  EXPECT_NE(src.find("float4 acc0 = make_float4(0.0,0.0,0.0,0.0);"), std::string::npos) << src;
  EXPECT_NE(src.find("float4 val0 = (float4)(*((float4*)(data1+alu3)));"), std::string::npos) << src;
  EXPECT_NE(src.find("*((float4*)(data0+alu2)) = acc0;"), std::string::npos) << src;
  // half stays scalar: tg's GPU devices compute half as float and store it lane by lane
  std::string half = tinygrad_opts_src(
      "a = input('a', (64, 64), dtype=dtypes.half)\noutput('o', (a + 1).cast(dtypes.half))", "GPU");
  EXPECT_EQ(half.find("4 val"), std::string::npos) << half;
}

TEST(RenderOpenCLFloat4, a_float4_accumulator_of_an_unrolled_reduce_folds_away) {
  // no reduce loop is left: each output is the unrolled sum itself (its accumulator's initial
  // value, a CAST of lanes, folds lane by lane; four outputs must not share one variable)
  EXPECT_EQ(
      tinygrad_opts_src("a = input('a', (2, 16, 14, 14))\nb = input('b', (32, 16, 1, 1))\n"
                        "output('o', a.conv2d(b).relu())",
                        "GPU"),
      R"(__kernel void r_49_2_8_4_4_16(__global float* data0, const __global float* data1, const __global float* data2) {
  int gidx0 = get_group_id(0); /* 49 */
  int lidx1 = get_local_id(0); /* 2 */
  int lidx2 = get_local_id(1); /* 8 */
  int alu0 = (gidx0*4);
  int alu1 = (lidx2*64);
  int alu2 = (alu0+(lidx1*3136));
  int alu3 = (alu0+(lidx1*6272)+(lidx2*784));
  float val0 = data2[alu1];
  float val1 = data2[alu1+1];
  float val2 = data2[alu1+2];
  float val3 = data2[alu1+3];
  float val4 = data2[alu1+4];
  float val5 = data2[alu1+5];
  float val6 = data2[alu1+6];
  float val7 = data2[alu1+7];
  float val8 = data2[alu1+8];
  float val9 = data2[alu1+9];
  float val10 = data2[alu1+10];
  float val11 = data2[alu1+11];
  float val12 = data2[alu1+12];
  float val13 = data2[alu1+13];
  float val14 = data2[alu1+14];
  float val15 = data2[alu1+15];
  float val16 = data2[alu1+16];
  float val17 = data2[alu1+17];
  float val18 = data2[alu1+18];
  float val19 = data2[alu1+19];
  float val20 = data2[alu1+20];
  float val21 = data2[alu1+21];
  float val22 = data2[alu1+22];
  float val23 = data2[alu1+23];
  float val24 = data2[alu1+24];
  float val25 = data2[alu1+25];
  float val26 = data2[alu1+26];
  float val27 = data2[alu1+27];
  float val28 = data2[alu1+28];
  float val29 = data2[alu1+29];
  float val30 = data2[alu1+30];
  float val31 = data2[alu1+31];
  float val32 = data2[alu1+32];
  float val33 = data2[alu1+33];
  float val34 = data2[alu1+34];
  float val35 = data2[alu1+35];
  float val36 = data2[alu1+36];
  float val37 = data2[alu1+37];
  float val38 = data2[alu1+38];
  float val39 = data2[alu1+39];
  float val40 = data2[alu1+40];
  float val41 = data2[alu1+41];
  float val42 = data2[alu1+42];
  float val43 = data2[alu1+43];
  float val44 = data2[alu1+44];
  float val45 = data2[alu1+45];
  float val46 = data2[alu1+46];
  float val47 = data2[alu1+47];
  float val48 = data2[alu1+48];
  float val49 = data2[alu1+49];
  float val50 = data2[alu1+50];
  float val51 = data2[alu1+51];
  float val52 = data2[alu1+52];
  float val53 = data2[alu1+53];
  float val54 = data2[alu1+54];
  float val55 = data2[alu1+55];
  float val56 = data2[alu1+56];
  float val57 = data2[alu1+57];
  float val58 = data2[alu1+58];
  float val59 = data2[alu1+59];
  float val60 = data2[alu1+60];
  float val61 = data2[alu1+61];
  float val62 = data2[alu1+62];
  float val63 = data2[alu1+63];
  float4 val64 = (float4)(*((__global float4*)(data1+alu2)));
  float4 val65 = (float4)(*((__global float4*)(data1+alu2+196)));
  float4 val66 = (float4)(*((__global float4*)(data1+alu2+392)));
  float4 val67 = (float4)(*((__global float4*)(data1+alu2+588)));
  float4 val68 = (float4)(*((__global float4*)(data1+alu2+784)));
  float4 val69 = (float4)(*((__global float4*)(data1+alu2+980)));
  float4 val70 = (float4)(*((__global float4*)(data1+alu2+1176)));
  float4 val71 = (float4)(*((__global float4*)(data1+alu2+1372)));
  float4 val72 = (float4)(*((__global float4*)(data1+alu2+1568)));
  float4 val73 = (float4)(*((__global float4*)(data1+alu2+1764)));
  float4 val74 = (float4)(*((__global float4*)(data1+alu2+1960)));
  float4 val75 = (float4)(*((__global float4*)(data1+alu2+2156)));
  float4 val76 = (float4)(*((__global float4*)(data1+alu2+2352)));
  float4 val77 = (float4)(*((__global float4*)(data1+alu2+2548)));
  float4 val78 = (float4)(*((__global float4*)(data1+alu2+2744)));
  float4 val79 = (float4)(*((__global float4*)(data1+alu2+2940)));
  float alu4 = max(((val79.x*val15)+(val78.x*val14)+(val77.x*val13)+(val76.x*val12)+(val75.x*val11)+(val74.x*val10)+(val73.x*val9)+(val72.x*val8)+(val71.x*val7)+(val70.x*val6)+(val69.x*val5)+(val68.x*val4)+(val67.x*val3)+(val66.x*val2)+(val65.x*val1)+(val64.x*val0)),0.0f);
  float alu5 = max(((val79.x*val31)+(val78.x*val30)+(val77.x*val29)+(val76.x*val28)+(val75.x*val27)+(val74.x*val26)+(val73.x*val25)+(val72.x*val24)+(val71.x*val23)+(val70.x*val22)+(val69.x*val21)+(val68.x*val20)+(val67.x*val19)+(val66.x*val18)+(val65.x*val17)+(val64.x*val16)),0.0f);
  float alu6 = max(((val79.x*val47)+(val78.x*val46)+(val77.x*val45)+(val76.x*val44)+(val75.x*val43)+(val74.x*val42)+(val73.x*val41)+(val72.x*val40)+(val71.x*val39)+(val70.x*val38)+(val69.x*val37)+(val68.x*val36)+(val67.x*val35)+(val66.x*val34)+(val65.x*val33)+(val64.x*val32)),0.0f);
  float alu7 = max(((val79.x*val63)+(val78.x*val62)+(val77.x*val61)+(val76.x*val60)+(val75.x*val59)+(val74.x*val58)+(val73.x*val57)+(val72.x*val56)+(val71.x*val55)+(val70.x*val54)+(val69.x*val53)+(val68.x*val52)+(val67.x*val51)+(val66.x*val50)+(val65.x*val49)+(val64.x*val48)),0.0f);
  float alu8 = max(((val79.y*val15)+(val78.y*val14)+(val77.y*val13)+(val76.y*val12)+(val75.y*val11)+(val74.y*val10)+(val73.y*val9)+(val72.y*val8)+(val71.y*val7)+(val70.y*val6)+(val69.y*val5)+(val68.y*val4)+(val67.y*val3)+(val66.y*val2)+(val65.y*val1)+(val64.y*val0)),0.0f);
  float alu9 = max(((val79.y*val31)+(val78.y*val30)+(val77.y*val29)+(val76.y*val28)+(val75.y*val27)+(val74.y*val26)+(val73.y*val25)+(val72.y*val24)+(val71.y*val23)+(val70.y*val22)+(val69.y*val21)+(val68.y*val20)+(val67.y*val19)+(val66.y*val18)+(val65.y*val17)+(val64.y*val16)),0.0f);
  float alu10 = max(((val79.y*val47)+(val78.y*val46)+(val77.y*val45)+(val76.y*val44)+(val75.y*val43)+(val74.y*val42)+(val73.y*val41)+(val72.y*val40)+(val71.y*val39)+(val70.y*val38)+(val69.y*val37)+(val68.y*val36)+(val67.y*val35)+(val66.y*val34)+(val65.y*val33)+(val64.y*val32)),0.0f);
  float alu11 = max(((val79.y*val63)+(val78.y*val62)+(val77.y*val61)+(val76.y*val60)+(val75.y*val59)+(val74.y*val58)+(val73.y*val57)+(val72.y*val56)+(val71.y*val55)+(val70.y*val54)+(val69.y*val53)+(val68.y*val52)+(val67.y*val51)+(val66.y*val50)+(val65.y*val49)+(val64.y*val48)),0.0f);
  float alu12 = max(((val79.z*val15)+(val78.z*val14)+(val77.z*val13)+(val76.z*val12)+(val75.z*val11)+(val74.z*val10)+(val73.z*val9)+(val72.z*val8)+(val71.z*val7)+(val70.z*val6)+(val69.z*val5)+(val68.z*val4)+(val67.z*val3)+(val66.z*val2)+(val65.z*val1)+(val64.z*val0)),0.0f);
  float alu13 = max(((val79.z*val31)+(val78.z*val30)+(val77.z*val29)+(val76.z*val28)+(val75.z*val27)+(val74.z*val26)+(val73.z*val25)+(val72.z*val24)+(val71.z*val23)+(val70.z*val22)+(val69.z*val21)+(val68.z*val20)+(val67.z*val19)+(val66.z*val18)+(val65.z*val17)+(val64.z*val16)),0.0f);
  float alu14 = max(((val79.z*val47)+(val78.z*val46)+(val77.z*val45)+(val76.z*val44)+(val75.z*val43)+(val74.z*val42)+(val73.z*val41)+(val72.z*val40)+(val71.z*val39)+(val70.z*val38)+(val69.z*val37)+(val68.z*val36)+(val67.z*val35)+(val66.z*val34)+(val65.z*val33)+(val64.z*val32)),0.0f);
  float alu15 = max(((val79.z*val63)+(val78.z*val62)+(val77.z*val61)+(val76.z*val60)+(val75.z*val59)+(val74.z*val58)+(val73.z*val57)+(val72.z*val56)+(val71.z*val55)+(val70.z*val54)+(val69.z*val53)+(val68.z*val52)+(val67.z*val51)+(val66.z*val50)+(val65.z*val49)+(val64.z*val48)),0.0f);
  float alu16 = max(((val79.w*val15)+(val78.w*val14)+(val77.w*val13)+(val76.w*val12)+(val75.w*val11)+(val74.w*val10)+(val73.w*val9)+(val72.w*val8)+(val71.w*val7)+(val70.w*val6)+(val69.w*val5)+(val68.w*val4)+(val67.w*val3)+(val66.w*val2)+(val65.w*val1)+(val64.w*val0)),0.0f);
  float alu17 = max(((val79.w*val31)+(val78.w*val30)+(val77.w*val29)+(val76.w*val28)+(val75.w*val27)+(val74.w*val26)+(val73.w*val25)+(val72.w*val24)+(val71.w*val23)+(val70.w*val22)+(val69.w*val21)+(val68.w*val20)+(val67.w*val19)+(val66.w*val18)+(val65.w*val17)+(val64.w*val16)),0.0f);
  float alu18 = max(((val79.w*val47)+(val78.w*val46)+(val77.w*val45)+(val76.w*val44)+(val75.w*val43)+(val74.w*val42)+(val73.w*val41)+(val72.w*val40)+(val71.w*val39)+(val70.w*val38)+(val69.w*val37)+(val68.w*val36)+(val67.w*val35)+(val66.w*val34)+(val65.w*val33)+(val64.w*val32)),0.0f);
  float alu19 = max(((val79.w*val63)+(val78.w*val62)+(val77.w*val61)+(val76.w*val60)+(val75.w*val59)+(val74.w*val58)+(val73.w*val57)+(val72.w*val56)+(val71.w*val55)+(val70.w*val54)+(val69.w*val53)+(val68.w*val52)+(val67.w*val51)+(val66.w*val50)+(val65.w*val49)+(val64.w*val48)),0.0f);
  *((__global float4*)(data0+alu3)) = (float4)(alu4,alu8,alu12,alu16);
  *((__global float4*)(data0+alu3+196)) = (float4)(alu5,alu9,alu13,alu17);
  *((__global float4*)(data0+alu3+392)) = (float4)(alu6,alu10,alu14,alu18);
  *((__global float4*)(data0+alu3+588)) = (float4)(alu7,alu11,alu15,alu19);
}
)");
}
