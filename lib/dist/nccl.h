// dist layer, NCCL for CUDA programs spread over processes (tg-run --dist mpi with a CUDA
// program): buffers move from GPU to GPU instead of through host memory and MPI. libnccl is
// loaded with dlopen on first use, as NVRTC is (device/cuda/cuda_api.h), so tg builds and runs
// without it; the communicator's unique id goes from rank 0 to the others over the Transport
// (NCCL's own MPI bootstrap: ncclGetUniqueId, then a broadcast).
#pragma once
#include <string>
#include <vector>

#include "dist/transport.h"

namespace tg {

// NCCL's version, "2.28.9". Throws tg::Error("RuntimeError", "NCCL not found ...") when libnccl
// cannot be loaded: $TG_NCCL names the file; else libnccl.so.2 on the loader's path, then under
// /usr/local/cuda/lib64 and /usr/local/cuda/lib.
std::string nccl_version();

// The bytes of a fresh ncclUniqueId: NCCL's bootstrap, which needs no GPU (a CI check).
std::string nccl_unique_id();

// One communicator over every process of `transport`, on each process's CUDA device (its
// context current). Every process constructs it at the same point, as a collective.
class NcclComm {
public:
  explicit NcclComm(Transport& transport);
  ~NcclComm();
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;
  // Transport::Move with device pointers (CUdeviceptr values), all in one NCCL group: every
  // process lists its part of one common order. Returns when they are done.
  void exchange(const std::vector<Transport::Move>& moves);

private:
  void* comm_ = nullptr; // ncclComm_t
};

} // namespace tg
