// Thin wrapper over the OpenCL C API for the GPU device (tinygrad's runtime/ops_gpu.py).
// libOpenCL is loaded with dlopen on first use, so the tools build and run on machines without
// OpenCL; only using the GPU device there throws a tg::Error. Handles are opaque (void*) so this
// header needs no OpenCL headers.
//
// Not fork-safe once opened (OpenCL drivers keep threads): open it in the process that runs the
// kernels, not before a fork.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace tg {

struct OpenCLApi; // the dlsym'd function table (opencl_api.cpp)

// The process's OpenCL device, context and in-order command queue.
class OpenCLContext {
public:
  // First use loads libOpenCL and opens the device: GPUs first (in platform order), then other
  // devices; $TG_OPENCL_DEVICE=N picks the N-th of that list. Thread-safe; throws
  // tg::Error("RuntimeError", ...) when there is no library, platform or device (and again on
  // every later call).
  static OpenCLContext& get();

  // Platform name and version, device name, driver version: the compile cache key's target.
  std::string device_identity() const { return identity_; }
  // Compiles OpenCL C source and returns the program binary (CL_PROGRAM_BINARIES); a build
  // failure throws tg::Error("RuntimeError", "OpenCL build failed: ...") with the build log.
  std::string build(const std::string& source) const;

  // A zero-filled cl_mem of `bytes` bytes (0 is allowed).
  void* alloc(size_t bytes);
  void free(void* buffer); // nullptr is a no-op
  // Blocking copies between host memory and the first `bytes` bytes of a buffer.
  void copyin(void* buffer, const void* host, size_t bytes);
  void copyout(void* host, const void* buffer, size_t bytes);
  // Waits for every command queued so far.
  void finish();

  // Used by OpenCLProgram.
  const OpenCLApi& api() const { return *api_; }
  void* context() const { return context_; }
  void* device() const { return device_; }
  void* queue() const { return queue_; }

  OpenCLContext(const OpenCLContext&) = delete;
  OpenCLContext& operator=(const OpenCLContext&) = delete;

private:
  OpenCLContext();
  const OpenCLApi* api_;
  void* device_ = nullptr;  // cl_device_id
  void* context_ = nullptr; // cl_context
  void* queue_ = nullptr;   // cl_command_queue
  std::string identity_;
};

// One cl_program built from a binary of OpenCLContext::build, with a cl_kernel per name.
class OpenCLProgram {
public:
  OpenCLProgram(const std::string& binary, const std::vector<std::string>& kernel_names);
  ~OpenCLProgram();
  OpenCLProgram(const OpenCLProgram&) = delete;
  OpenCLProgram& operator=(const OpenCLProgram&) = delete;

  // Enqueues kernel `kernel_index` (asynchronous; OpenCLContext::finish or copyout waits).
  // Arguments: the buffers (cl_mem from OpenCLContext::alloc), then the int vars. `global`
  // counts work-groups, as in tinygrad 0.9.1: the NDRange is global[i] * local[i] work-items.
  void launch(size_t kernel_index, void* const* bufs, size_t nbufs, const int32_t* vars, size_t nvars,
              const std::array<int64_t, 3>& global, const std::array<int64_t, 3>& local);

private:
  OpenCLContext& ctx_;
  void* program_ = nullptr;    // cl_program
  std::vector<void*> kernels_; // cl_kernel
  std::vector<std::string> names_;
  std::mutex launch_mutex_; // clSetKernelArg + enqueue must not interleave between threads
};

} // namespace tg
