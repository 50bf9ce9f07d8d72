// dist/nccl.h: NCCL loaded at run time. Without a GPU (CI) it must load and bootstrap a unique
// id; with one (scripts/gpu-check.sh runs Cuda*), a one-process communicator moves a buffer
// from GPU to GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "device/cuda/cuda_api.h"
#include "dist/nccl.h"
#include "util/error.h"

namespace tg {
namespace {

bool have_nccl(std::string& reason) {
  // ncclGetUniqueId leaves a bootstrap thread waiting for the ranks (NCCL's own, as Open MPI's
  // threads are in mpi.bats): not under make asan
  if (const char* asan = std::getenv("ASAN_OPTIONS"); asan && *asan) {
    reason = "NCCL's bootstrap thread does not run under ASan";
    return false;
  }
  try {
    nccl_version();
    return true;
  } catch (const Error& e) {
    reason = e.what();
    return false;
  }
}

// The transport of a run of one process: nothing to move.
class OneProcess : public Transport {
public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void send(const void*, size_t, int) override {}
  void recv(void*, size_t, int) override {}
  void allgather(const void* mine, size_t bytes, void* all) override { std::memcpy(all, mine, bytes); }
  void broadcast(void*, size_t, int) override {}
  [[noreturn]] void abort(int code) override { std::exit(code); }
};

TEST(Nccl, loads_names_its_version_and_bootstraps_without_a_gpu) {
  std::string reason;
  if (!have_nccl(reason)) GTEST_SKIP() << reason;
  std::string v = nccl_version();
  EXPECT_EQ(v.rfind("2.", 0), 0u) << v;
  EXPECT_EQ(std::count(v.begin(), v.end(), '.'), 2) << v;
  std::string a = nccl_unique_id(), b = nccl_unique_id();
  EXPECT_EQ(a.size(), 128u);
  EXPECT_NE(a, b); // each a fresh bootstrap
}

TEST(CudaNccl, a_one_process_communicator_moves_a_buffer_gpu_to_gpu) {
  std::string reason;
  if (!have_nccl(reason)) GTEST_SKIP() << reason;
  CudaContext* cuda = nullptr;
  try {
    cuda = &CudaContext::get();
  } catch (const Error& e) {
    GTEST_SKIP() << e.what();
  }
  OneProcess one;
  NcclComm comm(one);
  std::vector<float> x{1.5f, -2.f, 3.25f, 0.f}, y(4, 9.f);
  void* a = cuda->alloc(16);
  void* b = cuda->alloc(16);
  cuda->copyin(a, x.data(), 16);
  comm.exchange({{a, 16, 0, true}, {b, 16, 0, false}});
  cuda->copyout(y.data(), b, 16);
  EXPECT_EQ(x, y);
  cuda->free(a);
  cuda->free(b);
}

} // namespace
} // namespace tg
