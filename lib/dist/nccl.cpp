#include "dist/nccl.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

#include "device/cuda/cuda_api.h"
#include "util/error.h"
#include "util/shared_library.h"

namespace tg {

namespace {

// The few NCCL entry points tg uses, declared here so that tg builds without nccl.h.
constexpr size_t kUniqueIdBytes = 128; // NCCL_UNIQUE_ID_BYTES
struct UniqueId {
  char internal[kUniqueIdBytes];
};
constexpr int kUint8 = 1; // ncclUint8

struct NcclApi {
  int (*ncclGetVersion)(int*);
  int (*ncclGetUniqueId)(UniqueId*);
  int (*ncclCommInitRank)(void**, int, UniqueId, int);
  int (*ncclCommDestroy)(void*);
  int (*ncclGroupStart)();
  int (*ncclGroupEnd)();
  int (*ncclSend)(const void*, size_t, int, int, void*, void*);
  int (*ncclRecv)(void*, size_t, int, int, void*, void*);
  const char* (*ncclGetErrorString)(int);
};

template <class F> void resolve(void* lib, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) fail("RuntimeError", std::string("NCCL: libnccl has no ") + name + " (too old a version?)");
}

// Loaded once per process and never unloaded.
const NcclApi& nccl() {
  static const NcclApi* api = [] {
    std::string error;
    void* lib = open_shared_library(
        "TG_NCCL", library_names({"", "/usr/local/cuda/lib64/", "/usr/local/cuda/lib/"}, {"libnccl.so.2"}),
        error);
    if (!lib) {
      const char* env = std::getenv("TG_NCCL");
      if (env && *env) fail("RuntimeError", std::string("NCCL: cannot load TG_NCCL=") + env + ": " + error);
      fail("RuntimeError",
           "NCCL not found (libnccl.so.2; install NCCL, or set TG_NCCL=/path/to/libnccl.so.2)");
    }
    auto* t = new NcclApi;
    resolve(lib, t->ncclGetVersion, "ncclGetVersion");
    resolve(lib, t->ncclGetUniqueId, "ncclGetUniqueId");
    resolve(lib, t->ncclCommInitRank, "ncclCommInitRank");
    resolve(lib, t->ncclCommDestroy, "ncclCommDestroy");
    resolve(lib, t->ncclGroupStart, "ncclGroupStart");
    resolve(lib, t->ncclGroupEnd, "ncclGroupEnd");
    resolve(lib, t->ncclSend, "ncclSend");
    resolve(lib, t->ncclRecv, "ncclRecv");
    resolve(lib, t->ncclGetErrorString, "ncclGetErrorString");
    return t;
  }();
  return *api;
}

void check(int rc, const char* what) {
  if (rc != 0)
    fail("RuntimeError", std::string("NCCL: ") + what + " failed: " + nccl().ncclGetErrorString(rc));
}

} // namespace

std::string nccl_version() {
  int v = 0;
  check(nccl().ncclGetVersion(&v), "ncclGetVersion");
  // NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch from 2.9 on
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

std::string nccl_unique_id() {
  UniqueId id;
  check(nccl().ncclGetUniqueId(&id), "ncclGetUniqueId");
  return std::string(id.internal, kUniqueIdBytes);
}

NcclComm::NcclComm(Transport& transport) {
  CudaContext::get().make_current();
  UniqueId id{};
  if (transport.rank() == 0) check(nccl().ncclGetUniqueId(&id), "ncclGetUniqueId");
  transport.broadcast(&id, sizeof id, 0);
  check(nccl().ncclCommInitRank(&comm_, transport.size(), id, transport.rank()), "ncclCommInitRank");
}

NcclComm::~NcclComm() {
  if (comm_) nccl().ncclCommDestroy(comm_);
}

void NcclComm::exchange(const std::vector<Transport::Move>& moves) {
  CudaContext& cuda = CudaContext::get();
  cuda.synchronize(); // the kernels that wrote what is sent (NCCL runs on the default stream)
  check(nccl().ncclGroupStart(), "ncclGroupStart");
  for (const Transport::Move& m : moves) {
    int rc = m.send ? nccl().ncclSend(m.data, m.bytes, kUint8, m.peer, comm_, nullptr)
                    : nccl().ncclRecv(m.data, m.bytes, kUint8, m.peer, comm_, nullptr);
    if (rc != 0) {
      nccl().ncclGroupEnd();
      check(rc, m.send ? "ncclSend" : "ncclRecv");
    }
  }
  check(nccl().ncclGroupEnd(), "ncclGroupEnd");
  cuda.synchronize();
}

} // namespace tg
