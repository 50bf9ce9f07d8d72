// Thin wrappers over NVRTC (CUDA C++ -> PTX) and the CUDA driver API for the CUDA device
// (tinygrad's runtime/ops_cuda.py). Both libraries are loaded with dlopen on first use and their
// few prototypes are declared in cuda_api.cpp, so the tools build without the CUDA toolkit and
// run without a driver; only using what is missing throws a tg::Error.
//
// The driver is not fork-safe once initialized: open CudaContext (or call cuda_default_arch)
// in the process that runs the kernels, not before a fork.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tg {

// NVRTC's version, e.g. "13.0" (part of the compile cache key). Throws
// tg::Error("RuntimeError", "CUDA: NVRTC not found ...") when libnvrtc cannot be loaded:
// $TG_NVRTC names the library file; otherwise libnvrtc.so[.13|.12|.11.2] on the loader's path,
// then under /usr/local/cuda/lib64.
std::string nvrtc_version();

// Compiles CUDA C++ (tinygrad's CUDA renderer output) for `arch` ("sm_80") and returns PTX, with
// tinygrad's CUDACompiler options (--gpu-architecture, the CUDA include directory for
// cuda_fp16.h, --minimal from NVRTC 12.4). A compile error throws
// tg::Error("RuntimeError", "CUDA: nvrtc compile failed: ...") with the compiler log.
std::string nvrtc_compile(const std::string& source, const std::string& arch);

// The architecture to compile for: $TG_CUDA_ARCH when set ("sm_XY"), else the CUDA device's
// when a driver and device are present, else "sm_80" (compile-only machines).
std::string cuda_default_arch();

// The process's CUDA device (its primary context) and memory. Handles are CUdeviceptr values
// cast to void*.
class CudaContext {
public:
  // First use loads libcuda.so.1 and opens device 0, or $TG_CUDA_DEVICE=N. Thread-safe; throws
  // tg::Error("RuntimeError", "CUDA: no CUDA driver ...") / ("CUDA: no CUDA device ...") when
  // there is none (and again on every later call).
  static CudaContext& get();

  std::string arch() const { return arch_; } // "sm_XY" from the compute capability
  std::string device_name() const { return name_; }

  void* alloc(size_t bytes); // zero-filled; 0 bytes allowed
  void free(void* buffer);   // nullptr is a no-op
  // Blocking copies (copyout waits for the kernels queued before it).
  void copyin(void* buffer, const void* host, size_t bytes);
  void copyout(void* host, const void* buffer, size_t bytes);
  void synchronize();

  // Makes the context current on the calling thread (every member does this first).
  void make_current() const;

  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;

private:
  CudaContext();
  void* context_ = nullptr; // CUcontext
  std::string arch_, name_;
};

// A PTX module loaded on the device with a CUfunction per name.
class CudaModule {
public:
  // A module the driver cannot load (e.g. PTX for a newer architecture or ISA) throws with the
  // driver's JIT log.
  CudaModule(const std::string& ptx, const std::vector<std::string>& names);
  ~CudaModule();
  CudaModule(const CudaModule&) = delete;
  CudaModule& operator=(const CudaModule&) = delete;

  // Launches function `i` on the default stream (asynchronous) with grid = global and
  // block = local, as tinygrad 0.9.1; arguments: the buffers, then the int vars. The counts
  // must match the kernel's parameters (the driver cannot check them).
  void launch(size_t i, void* const* bufs, size_t nbufs, const int32_t* vars, size_t nvars,
              const std::array<int64_t, 3>& global, const std::array<int64_t, 3>& local);

private:
  CudaContext& ctx_;
  void* module_ = nullptr;       // CUmodule
  std::vector<void*> functions_; // CUfunction
  std::vector<std::string> names_;
};

} // namespace tg
