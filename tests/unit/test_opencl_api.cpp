// OpenCL wrapper against whatever OpenCL driver is installed (PoCL on the CPU in CI); skipped
// only where there is no OpenCL platform at all.
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "device/opencl/opencl_api.h"
#include "util/error.h"

namespace tg {
namespace {

// The context, or nullptr and the reason when the machine has no OpenCL library, platform or
// device; any other failure to open it is a test failure.
OpenCLContext* context_or_reason(std::string& reason) {
  try {
    return &OpenCLContext::get();
  } catch (const Error& e) {
    reason = e.what();
    if (reason.rfind("GPU: no OpenCL", 0) != 0) throw;
    return nullptr;
  }
}

#define REQUIRE_OPENCL(ctx)                                                                                  \
  std::string reason_;                                                                                       \
  OpenCLContext* ctx = context_or_reason(reason_);                                                           \
  if (!ctx) GTEST_SKIP() << reason_;

// Output like tinygrad's OpenCL renderer: the grid counts work-groups (get_group_id) and the
// work-group size is local (get_local_id).
const char* kSource = R"(
__kernel void E_4(__global float* data0, const __global float* data1) {
  int gidx0 = get_group_id(0); /* 4 */
  data0[gidx0] = data1[gidx0]+1.0f;
}
__kernel void E_2d(__global int* data0, const int n) {
  int gidx0 = get_group_id(0); int gidx1 = get_group_id(1);
  int lidx0 = get_local_id(0); int lidx1 = get_local_id(1);
  int x = gidx0*get_local_size(0)+lidx0; int y = gidx1*get_local_size(1)+lidx1;
  data0[y*get_global_size(0)+x] = y*1000+x+n;
}
)";

std::vector<float> run_e4(OpenCLContext& ctx, const std::string& binary, const std::vector<float>& in) {
  OpenCLProgram prg(binary, {"E_4", "E_2d"});
  size_t bytes = in.size() * sizeof(float);
  void* out = ctx.alloc(bytes);
  void* src = ctx.alloc(bytes);
  ctx.copyin(src, in.data(), bytes);
  void* bufs[] = {out, src};
  prg.launch(0, bufs, 2, nullptr, 0, {int64_t(in.size()), 1, 1}, {1, 1, 1});
  std::vector<float> result(in.size());
  ctx.copyout(result.data(), out, bytes);
  ctx.free(out);
  ctx.free(src);
  return result;
}

TEST(OpenCLApi, IdentityNamesPlatformAndDevice) {
  REQUIRE_OPENCL(ctx);
  std::string id = ctx->device_identity();
  EXPECT_NE(id.find("OpenCL platform"), std::string::npos) << id;
  EXPECT_NE(id.find("driver"), std::string::npos) << id;
}

TEST(OpenCLApi, BuildAllocCopyLaunch) {
  REQUIRE_OPENCL(ctx);
  std::string binary = ctx->build(kSource);
  EXPECT_FALSE(binary.empty());
  std::vector<float> result = run_e4(*ctx, binary, {1.f, 2.f, 3.f, 4.f});
  EXPECT_EQ(result, (std::vector<float>{2.f, 3.f, 4.f, 5.f}));
}

TEST(OpenCLApi, AllocIsZeroFilledAndSizeZeroWorks) {
  REQUIRE_OPENCL(ctx);
  void* empty = ctx->alloc(0);
  EXPECT_NE(empty, nullptr);
  ctx->copyin(empty, nullptr, 0);
  ctx->copyout(nullptr, empty, 0);
  ctx->free(empty);
  ctx->free(nullptr);
  std::vector<uint8_t> host(1 << 16, 0xAB);
  void* buf = ctx->alloc(host.size());
  ctx->copyout(host.data(), buf, host.size());
  EXPECT_EQ(host, std::vector<uint8_t>(host.size(), 0));
  ctx->free(buf);
}

TEST(OpenCLApi, TwoDimensionalGridWithLocalSizeAndVar) {
  REQUIRE_OPENCL(ctx);
  OpenCLProgram prg(ctx->build(kSource), {"E_4", "E_2d"});
  // 3x2 work-groups of 4x2 items: a 12x4 NDRange.
  const int w = 12, h = 4;
  void* out = ctx->alloc(w * h * sizeof(int32_t));
  void* bufs[] = {out};
  int32_t n = 7;
  prg.launch(1, bufs, 1, &n, 1, {3, 2, 1}, {4, 2, 1});
  std::vector<int32_t> result(w * h);
  ctx->copyout(result.data(), out, result.size() * sizeof(int32_t));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) EXPECT_EQ(result[y * w + x], y * 1000 + x + 7) << x << "," << y;
  ctx->free(out);
}

// tinygrad 0.9.1's OpenCL renderer output for ((a @ b).relu().exp() + 1).sum(1) on 32x32 floats
// (hand-coded optimizations): local memory, barriers, 16-wide work-groups, a 2-D grid.
const char* kTinygradSource =
    R"(__kernel void r_32_32_16_2(__global float* data0, const __global float* data1, const __global float* data2) {
  __attribute__ ((aligned (16))) __local float temp[16];
  int gidx1 = get_group_id(0); /* 32 */
  int lidx2 = get_local_id(0); /* 16 */
  int gidx0 = get_group_id(1); /* 32 */
  int alu0 = (gidx0*32);
  float acc0 = 0.0f;
  for (int ridx0 = 0; ridx0 < 2; ridx0++) {
    float val0 = data1[alu0+(lidx2*2)+ridx0];
    float val1 = data2[gidx1+(lidx2*64)+(ridx0*32)];
    acc0 = ((val0*val1)+acc0);
  }
  temp[lidx2] = acc0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if ((lidx2<1)) {
    float acc1 = 0.0f;
    for (int ridx1 = 0; ridx1 < 16; ridx1++) {
      float val2 = temp[ridx1];
      acc1 = (val2+acc1);
    }
    float alu1 = max(acc1,0.0f);
    data0[alu0+gidx1] = (exp2((alu1*1.4426950408889634f))+1.0f);
  }
}
__kernel void r_32_16_2(__global float* data0, const __global float* data1) {
  __attribute__ ((aligned (16))) __local float temp[16];
  int gidx0 = get_group_id(0); /* 32 */
  int lidx1 = get_local_id(0); /* 16 */
  float acc0 = 0.0f;
  for (int ridx0 = 0; ridx0 < 2; ridx0++) {
    float val0 = data1[(gidx0*32)+(lidx1*2)+ridx0];
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
)";

TEST(OpenCLApi, TinygradMatmulReduceKernels) {
  REQUIRE_OPENCL(ctx);
  OpenCLProgram prg(ctx->build(kTinygradSource), {"r_32_32_16_2", "r_32_16_2"});
  const int n = 32;
  std::vector<float> a(n * n), b(n * n);
  for (int i = 0; i < n * n; i++) a[i] = float(i % 7) * 0.01f, b[i] = float(i % 5) * 0.02f;
  size_t bytes = n * n * sizeof(float);
  void* da = ctx->alloc(bytes);
  void* db = ctx->alloc(bytes);
  void* mid = ctx->alloc(bytes);
  void* out = ctx->alloc(n * sizeof(float));
  ctx->copyin(da, a.data(), bytes);
  ctx->copyin(db, b.data(), bytes);
  void* bufs0[] = {mid, da, db};
  prg.launch(0, bufs0, 3, nullptr, 0, {32, 32, 1}, {16, 1, 1});
  void* bufs1[] = {out, mid};
  prg.launch(1, bufs1, 2, nullptr, 0, {32, 1, 1}, {16, 1, 1});
  std::vector<float> result(n);
  ctx->copyout(result.data(), out, n * sizeof(float));
  for (int i = 0; i < n; i++) {
    double expect = 0;
    for (int j = 0; j < n; j++) {
      double dot = 0;
      for (int k = 0; k < n; k++) dot += double(a[i * n + k]) * b[k * n + j];
      expect += std::exp(std::max(dot, 0.0)) + 1;
    }
    EXPECT_NEAR(result[i], expect, 1e-4 * expect) << i;
  }
  for (void* buf : {da, db, mid, out}) ctx->free(buf);
}

TEST(OpenCLApi, BuildErrorCarriesTheLog) {
  REQUIRE_OPENCL(ctx);
  try {
    ctx->build("__kernel void broken(__global float* a) { a[0] = undeclared_name; }");
    FAIL() << "expected a build error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "RuntimeError");
    std::string msg = e.what();
    EXPECT_NE(msg.find("OpenCL build failed"), std::string::npos) << msg;
    EXPECT_NE(msg.find("undeclared_name"), std::string::npos) << msg;
  }
}

TEST(OpenCLApi, UnknownKernelNameAndBadIndex) {
  REQUIRE_OPENCL(ctx);
  std::string binary = ctx->build(kSource);
  try {
    OpenCLProgram prg(binary, {"nope"});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no kernel named nope"), std::string::npos) << e.what();
  }
  OpenCLProgram prg(binary, {"E_4"});
  EXPECT_THROW(prg.launch(1, nullptr, 0, nullptr, 0, {1, 1, 1}, {1, 1, 1}), Error);
}

TEST(OpenCLApi, LaunchErrorNamesFunctionAndCode) {
  REQUIRE_OPENCL(ctx);
  OpenCLProgram prg(ctx->build(kSource), {"E_4"});
  // Arguments left unset: the driver refuses the launch.
  try {
    prg.launch(0, nullptr, 0, nullptr, 0, {1, 1, 1}, {1, 1, 1});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("clEnqueueNDRangeKernel failed for kernel E_4: CL_INVALID_KERNEL_ARGS"),
              std::string::npos)
        << msg;
  }
}

TEST(OpenCLApi, ConcurrentLaunchesFromThreads) {
  REQUIRE_OPENCL(ctx);
  std::string binary = ctx->build(kSource);
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; t++)
    threads.emplace_back([&, t] {
      std::vector<float> in(64);
      std::iota(in.begin(), in.end(), float(t * 100));
      std::vector<float> out = run_e4(*ctx, binary, in);
      bool good = true;
      for (size_t i = 0; i < in.size(); i++) good &= out[i] == in[i] + 1.f;
      ok[t] = good;
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(ok, std::vector<int>(4, 1));
}

} // namespace
} // namespace tg
