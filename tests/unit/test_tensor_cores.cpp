// Tensor cores (the TC OptOp and WMMA): which kernels take them, the opts tinygrad 0.9.1 applies
// (hand-checked with CUDARenderer("sm_80"): apply_tensor_cores, then Linearizer.applied_opts),
// the checks that guard them, and the CUDA text. The whole kernels are compared with
// tinygrad's by the src layer (tests/diff/gpu_source.py, half_* cases).
#include <gtest/gtest.h>

#include "codegen/codegen.h"
#include "codegen/kernel.h"
#include "device/cuda/cuda_renderer.h"
#include "device/registry.h"
#include "schedule/schedule.h"
#include "script/trace.h"

using namespace tg;

namespace {

// the (one) reduce kernel of a script, for CUDA with (or without) its tensor core
Kernel reduce_kernel(const std::string& script, bool tensor_cores = true) {
  Schedule s = schedule_graph(trace_script(script, "t.tg"));
  RendererOpts opts = device_renderer("CUDA").opts();
  opts.tensor_cores.clear();
  if (tensor_cores) opts.tensor_cores.push_back(cuda_tensor_core());
  for (const ScheduleKernel& sk : s.kernels) {
    Kernel k(sk.ast, opts);
    if (k.reduceop()) return k;
  }
  throw std::runtime_error("no reduce kernel");
}

std::string half_matmul(int n, int k, int m, const std::string& dtype = "half") {
  return "a = input('a', (" + std::to_string(n) + ", " + std::to_string(k) + "), dtype=dtypes." + dtype +
         ")\nb = input('b', (" + std::to_string(k) + ", " + std::to_string(m) + "), dtype=dtypes." + dtype +
         ")\noutput('o', a @ b)\n";
}

std::string opts_text(const Kernel& k) {
  std::string out;
  for (const Opt& o : k.applied_opts) out += o.repr() + "\n";
  return out;
}

std::string opt_error(Kernel& k, const Opt& o) {
  try {
    k.apply_opt(o);
  } catch (const KernelOptError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(TensorCores, a_half_matmul_takes_tinygrads_tc_opts) {
  Kernel k = reduce_kernel(half_matmul(64, 64, 64));
  ASSERT_TRUE(k.apply_tensor_cores(1));
  EXPECT_EQ(opts_text(k), "Opt(op=OptOps.TC, axis=0, amt=0)\n"
                          "Opt(op=OptOps.UPCAST, axis=0, amt=4)\n"
                          "Opt(op=OptOps.UPCAST, axis=0, amt=4)\n"
                          "Opt(op=OptOps.LOCAL, axis=0, amt=2)\n");
  EXPECT_EQ(k.name(), "r_2_2_2_2_2_2_4_16_4_4_4");
  ASSERT_NE(k.tc(), nullptr);
  EXPECT_EQ(k.tc()->name(), "WMMA_8_16_16_half_float");

  Kernel wide = reduce_kernel(half_matmul(32, 256, 128));
  ASSERT_TRUE(wide.apply_tensor_cores(1));
  EXPECT_EQ(opts_text(wide), "Opt(op=OptOps.TC, axis=0, amt=0)\n"
                             "Opt(op=OptOps.UPCAST, axis=0, amt=2)\n"
                             "Opt(op=OptOps.UPCAST, axis=0, amt=4)\n"
                             "Opt(op=OptOps.LOCAL, axis=0, amt=4)\n");
}

TEST(TensorCores, the_cuda_kernel_runs_wmma_on_packed_halves) {
  Kernel k = reduce_kernel(half_matmul(64, 64, 64));
  ASSERT_TRUE(k.apply_tensor_cores(1));
  std::string src = lower_kernel(k, device_renderer("CUDA")).src;
  EXPECT_NE(
      src.find(
          "__device__ float4 __WMMA_8_16_16_half_float(half8 a, half4 b, float4 c) { int *a_pk = (int *) "
          "(&a), *b_pk = (int *) (&b);\nasm( \"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "),
      std::string::npos)
      << src;
  EXPECT_NE(src.find("    half8 cast0 = make_half8(val0,val1,val4,val5,val2,val3,val6,val7);\n"),
            std::string::npos)
      << src;
  EXPECT_NE(
      src.find(
          "    float4 wmma0 = __WMMA_8_16_16_half_float(cast0, cast4, make_float4(acc0,acc1,acc2,acc3));\n"),
      std::string::npos)
      << src;
  EXPECT_NE(src.find("    acc0 = wmma0.x;\n"), std::string::npos) << src;
  // 64 float accumulators per thread, no shared memory: the local aliases only shape indices
  EXPECT_NE(src.find("float acc63 = 0.0f;"), std::string::npos) << src;
  EXPECT_EQ(src.find("__shared__"), std::string::npos) << src;
}

TEST(TensorCores, only_half_matmuls_of_whole_tiles_on_targets_that_have_them) {
  Kernel no_tc = reduce_kernel(half_matmul(64, 64, 64), false);
  EXPECT_FALSE(no_tc.apply_tensor_cores(1));
  EXPECT_EQ(opt_error(no_tc, {OptOps::TC, 0, 0}), "must have tensor cores or TC=2");

  Kernel f32 = reduce_kernel(half_matmul(64, 64, 64, "float32"));
  EXPECT_FALSE(f32.apply_tensor_cores(1));
  EXPECT_TRUE(f32.applied_opts.empty());

  // 30 x 50 x 70 needs padding: only at TC_OPT=2, as in tinygrad
  Kernel odd = reduce_kernel(half_matmul(30, 50, 70));
  EXPECT_FALSE(odd.apply_tensor_cores(1, nullptr, 0, 0));
  EXPECT_EQ(opt_error(odd, {OptOps::TC, 0, 1}), "no tensor core available");
  Kernel padded = reduce_kernel(half_matmul(30, 50, 70));
  EXPECT_TRUE(padded.apply_tensor_cores(1, nullptr, 0, 2)) << opts_text(padded);

  // a sum that is not of a product
  Kernel sum = reduce_kernel("a = input('a', (64, 64), dtype=dtypes.half)\noutput('o', a.sum(1))\n");
  EXPECT_FALSE(sum.apply_tensor_cores(1));
}

TEST(TensorCores, tc_comes_first_and_keeps_its_locals_and_reduce) {
  Kernel late = reduce_kernel(half_matmul(64, 64, 64));
  late.apply_opt({OptOps::UPCAST, 0, 4});
  EXPECT_EQ(opt_error(late, {OptOps::TC, 0, 0}), "tensor core opts must be first");
  EXPECT_EQ(late.applied_opts.size(), 1u); // (a refused opt leaves the kernel as it was)

  Kernel k = reduce_kernel(half_matmul(64, 64, 64));
  k.apply_opt({OptOps::TC, 0, 0});
  const std::string before = opts_text(k);
  EXPECT_EQ(opt_error(k, {OptOps::GROUP, 0, 2}), "can't group with tensor cores");
  EXPECT_EQ(opt_error(k, {OptOps::UPCAST, k.global_dims(), 2}), "can't upcast TC locals");
  EXPECT_EQ(opts_text(k), before);
}

TEST(TensorCoreOptions, an_axis_removed_before_n_or_m_shifts_them) {
  TensorCoreOptions o;
  o.axes = {2, 4, 6};
  o.fix_axes(0);
  EXPECT_EQ(o.axes[0], 1);
  EXPECT_EQ(o.axes[1], 3);
  o.fix_axes(1); // N itself
  EXPECT_FALSE(o.axes_exist[0]);
  EXPECT_EQ(o.axes[1], 2);
  EXPECT_EQ(o.axes[2], 6); // (K is not tracked)
}
