// NVRTC and CUDA driver wrappers. The NVRTC tests need libnvrtc (skipped without it); the driver
// tests check the clear error on machines without a driver or GPU, and run a kernel where there
// is one.
#include <cstdlib>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "device/cuda/cuda_api.h"
#include "util/error.h"

namespace tg {
namespace {

bool have_nvrtc(std::string& reason) {
  try {
    nvrtc_version();
    return true;
  } catch (const Error& e) {
    reason = e.what();
    return false;
  }
}

#define REQUIRE_NVRTC()                                                                                      \
  if (std::string reason_; !have_nvrtc(reason_)) GTEST_SKIP() << reason_;

// Like tinygrad's CUDA renderer output (extern "C", so the PTX entry keeps the name).
const char* kSource = R"(#define INFINITY (__int_as_float(0x7f800000))
extern "C" __global__ void __launch_bounds__(4) E_4(float* data0, const float* data1, const int n) {
  int lidx0 = threadIdx.x; /* 4 */
  int gidx0 = blockIdx.x; /* 2 */
  int i = gidx0*4+lidx0;
  data0[i] = data1[i]+(float)n;
}
)";

const char* kHalfSource = R"(#include <cuda_fp16.h>
extern "C" __global__ void E_h(half* data0, const half* data1) {
  int gidx0 = blockIdx.x;
  data0[gidx0] = data1[gidx0]*(half)2.0f;
}
)";

// tinygrad 0.9.1's CUDA renderer output (sm_89) for the first kernel of
// ((a @ b).relu().exp() + 1).sum(1) on 32x32 halfs: the fp16 header, vector structs, shared memory.
const char* kTinygradHalfSource = R"(#define INFINITY (__int_as_float(0x7f800000))
#define NAN (__int_as_float(0x7fffffff))
#include <cuda_fp16.h>
struct half4 { half x, y, z, w; }; __device__ half4 make_half4(half x, half y, half z, half w) { half4 r={x, y, z, w}; return r; }
struct half8 { half x, y, z, w, a, b, c, d; }; __device__ half8 make_half8(half x, half y, half z, half w, half a, half b, half c, half d) { half8 r={x, y, z, w, a, b, c, d}; return r; }
extern "C" __global__ void r_32_32_16_2(half* data0, const half* data1, const half* data2) {
  __shared__ float temp[16];
  int gidx1 = blockIdx.x; /* 32 */
  int lidx2 = threadIdx.x; /* 16 */
  int gidx0 = blockIdx.y; /* 32 */
  int alu0 = (gidx0*32);
  float acc0 = 0.0f;
  for (int ridx0 = 0; ridx0 < 2; ridx0++) {
    half val0 = data1[alu0+(lidx2*2)+ridx0];
    half val1 = data2[gidx1+(lidx2*64)+(ridx0*32)];
    acc0 = ((float)((val0*val1))+acc0);
  }
  temp[lidx2] = acc0;
  __syncthreads();
  if ((lidx2<1)) {
    float acc1 = 0.0f;
    for (int ridx1 = 0; ridx1 < 16; ridx1++) {
      float val2 = temp[ridx1];
      acc1 = (val2+acc1);
    }
    half alu1 = __hmax((half)(acc1),(half)(0.0));
    data0[alu0+gidx1] = (hexp2((alu1*(half)(1.4426950408889634)))+(half)(1.0));
  }
}
)";

TEST(NvrtcApi, VersionLooksLikeMajorMinor) {
  REQUIRE_NVRTC();
  std::string v = nvrtc_version();
  EXPECT_NE(v.find('.'), std::string::npos) << v;
}

TEST(NvrtcApi, CompilesToPtx) {
  REQUIRE_NVRTC();
  std::string ptx = nvrtc_compile(kSource, "sm_80");
  EXPECT_NE(ptx.find(".entry E_4"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".target sm_80"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find('\0'), std::string::npos); // no terminator inside the text
}

TEST(NvrtcApi, CompilesHalfKernelsWithCudaFp16) {
  REQUIRE_NVRTC();
  std::string ptx = nvrtc_compile(kHalfSource, "sm_80");
  EXPECT_NE(ptx.find(".entry E_h"), std::string::npos) << ptx;
}

TEST(NvrtcApi, CompilesTinygradHalfKernel) {
  REQUIRE_NVRTC();
  std::string ptx = nvrtc_compile(kTinygradHalfSource, "sm_89");
  EXPECT_NE(ptx.find(".entry r_32_32_16_2"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".shared"), std::string::npos) << ptx;
}

TEST(NvrtcApi, CompileErrorCarriesTheLog) {
  REQUIRE_NVRTC();
  try {
    nvrtc_compile("extern \"C\" __global__ void broken(float* a) { a[0] = undeclared_name; }", "sm_80");
    FAIL() << "expected a compile error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "RuntimeError");
    std::string msg = e.what();
    EXPECT_NE(msg.find("nvrtc compile failed"), std::string::npos) << msg;
    EXPECT_NE(msg.find("undeclared_name"), std::string::npos) << msg;
  }
}

TEST(NvrtcApi, BadArchitectureIsAnError) {
  REQUIRE_NVRTC();
  EXPECT_THROW(nvrtc_compile(kSource, "sm_1"), Error);
}

// Without a driver or a GPU: a tg::Error naming what is missing, every time (never a crash).
// With one: a real kernel round trip.
TEST(CudaApi, ContextOrClearError) {
  CudaContext* ctx = nullptr;
  for (int attempt = 0; attempt < 2; attempt++) {
    try {
      ctx = &CudaContext::get();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), "RuntimeError");
      std::string msg = e.what();
      EXPECT_TRUE(msg.rfind("CUDA: no CUDA driver", 0) == 0 || msg.rfind("CUDA: no CUDA device", 0) == 0)
          << msg;
    }
  }
  if (!ctx) return;
  std::string reason;
  if (!have_nvrtc(reason)) GTEST_SKIP() << reason;
  EXPECT_EQ(ctx->arch().rfind("sm_", 0), 0u) << ctx->arch();
  CudaModule mod(nvrtc_compile(kSource, ctx->arch()), {"E_4"});
  std::vector<float> in{1, 2, 3, 4, 5, 6, 7, 8}, out(8);
  void* dst = ctx->alloc(out.size() * sizeof(float));
  void* src = ctx->alloc(in.size() * sizeof(float));
  ctx->copyout(out.data(), dst, out.size() * sizeof(float));
  EXPECT_EQ(out, std::vector<float>(8, 0.f)); // zero-filled
  ctx->copyin(src, in.data(), in.size() * sizeof(float));
  void* bufs[] = {dst, src};
  int32_t n = 10;
  mod.launch(0, bufs, 2, &n, 1, {2, 1, 1}, {4, 1, 1});
  ctx->copyout(out.data(), dst, out.size() * sizeof(float));
  for (size_t i = 0; i < in.size(); i++) EXPECT_EQ(out[i], in[i] + 10.f);
  ctx->synchronize();
  ctx->free(dst);
  ctx->free(src);
  void* empty = ctx->alloc(0);
  ctx->free(empty);
  EXPECT_THROW(CudaModule(".version 1.0 garbage", {"E_4"}), Error);
}

TEST(CudaApi, DefaultArch) {
  const char* saved = std::getenv("TG_CUDA_ARCH");
  std::string keep = saved ? saved : "";
  setenv("TG_CUDA_ARCH", "sm_90", 1);
  EXPECT_EQ(cuda_default_arch(), "sm_90");
  setenv("TG_CUDA_ARCH", "gfx90a", 1);
  EXPECT_THROW(cuda_default_arch(), Error);
  unsetenv("TG_CUDA_ARCH");
  std::string arch = cuda_default_arch(); // the device's, or sm_80 without one
  EXPECT_EQ(arch.rfind("sm_", 0), 0u) << arch;
  try {
    EXPECT_EQ(arch, CudaContext::get().arch());
  } catch (const Error&) {
    EXPECT_EQ(arch, "sm_80");
  }
  if (saved) setenv("TG_CUDA_ARCH", keep.c_str(), 1);
}

} // namespace
} // namespace tg
