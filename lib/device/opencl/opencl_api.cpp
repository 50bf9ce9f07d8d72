#include "device/opencl/opencl_api.h"

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <fcntl.h>
#include <memory>
#include <unistd.h>

#include "runtime/compile_cache.h"
#include "util/error.h"

namespace tg {

// Every entry point used, resolved with dlsym: linking libOpenCL would make every tool need it.
// decltype(&f) only names the prototype from CL/cl.h; it does not reference the symbol.
struct OpenCLApi {
#define TG_CL_FUNCTIONS(X)                                                                                   \
  X(clGetPlatformIDs)                                                                                        \
  X(clGetPlatformInfo)                                                                                       \
  X(clGetDeviceIDs)                                                                                          \
  X(clGetDeviceInfo)                                                                                         \
  X(clCreateContext)                                                                                         \
  X(clCreateCommandQueue)                                                                                    \
  X(clCreateProgramWithSource)                                                                               \
  X(clCreateProgramWithBinary)                                                                               \
  X(clBuildProgram)                                                                                          \
  X(clGetProgramBuildInfo)                                                                                   \
  X(clGetProgramInfo)                                                                                        \
  X(clReleaseProgram)                                                                                        \
  X(clCreateKernel)                                                                                          \
  X(clReleaseKernel)                                                                                         \
  X(clSetKernelArg)                                                                                          \
  X(clEnqueueNDRangeKernel)                                                                                  \
  X(clCreateBuffer)                                                                                          \
  X(clReleaseMemObject)                                                                                      \
  X(clEnqueueFillBuffer)                                                                                     \
  X(clEnqueueWriteBuffer)                                                                                    \
  X(clEnqueueReadBuffer)                                                                                     \
  X(clFinish)
#define TG_CL_MEMBER(f) decltype(&::f) f = nullptr;
  TG_CL_FUNCTIONS(TG_CL_MEMBER)
#undef TG_CL_MEMBER
};

namespace {
// Standard error pointed at /dev/null while a driver compiles: an ICD's compiler may write its
// diagnostics there too, and tg reports them once, from the build log, as one line.
class QuietStderr {
public:
  QuietStderr() : saved_(::dup(STDERR_FILENO)) {
    int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ >= 0 && null >= 0) ::dup2(null, STDERR_FILENO);
    if (null >= 0) ::close(null);
  }
  ~QuietStderr() {
    if (saved_ < 0) return;
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
  }
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;

private:
  int saved_;
};
} // namespace

namespace {

const char* cl_error_name(cl_int code) {
  switch (code) {
#define TG_CL_ERR(e)                                                                                         \
  case e:                                                                                                    \
    return #e;
    TG_CL_ERR(CL_DEVICE_NOT_FOUND)
    TG_CL_ERR(CL_DEVICE_NOT_AVAILABLE)
    TG_CL_ERR(CL_COMPILER_NOT_AVAILABLE)
    TG_CL_ERR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    TG_CL_ERR(CL_OUT_OF_RESOURCES)
    TG_CL_ERR(CL_OUT_OF_HOST_MEMORY)
    TG_CL_ERR(CL_PROFILING_INFO_NOT_AVAILABLE)
    TG_CL_ERR(CL_MEM_COPY_OVERLAP)
    TG_CL_ERR(CL_IMAGE_FORMAT_MISMATCH)
    TG_CL_ERR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    TG_CL_ERR(CL_BUILD_PROGRAM_FAILURE)
    TG_CL_ERR(CL_MAP_FAILURE)
    TG_CL_ERR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    TG_CL_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    TG_CL_ERR(CL_COMPILE_PROGRAM_FAILURE)
    TG_CL_ERR(CL_LINKER_NOT_AVAILABLE)
    TG_CL_ERR(CL_LINK_PROGRAM_FAILURE)
    TG_CL_ERR(CL_DEVICE_PARTITION_FAILED)
    TG_CL_ERR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    TG_CL_ERR(CL_INVALID_VALUE)
    TG_CL_ERR(CL_INVALID_DEVICE_TYPE)
    TG_CL_ERR(CL_INVALID_PLATFORM)
    TG_CL_ERR(CL_INVALID_DEVICE)
    TG_CL_ERR(CL_INVALID_CONTEXT)
    TG_CL_ERR(CL_INVALID_QUEUE_PROPERTIES)
    TG_CL_ERR(CL_INVALID_COMMAND_QUEUE)
    TG_CL_ERR(CL_INVALID_HOST_PTR)
    TG_CL_ERR(CL_INVALID_MEM_OBJECT)
    TG_CL_ERR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    TG_CL_ERR(CL_INVALID_IMAGE_SIZE)
    TG_CL_ERR(CL_INVALID_SAMPLER)
    TG_CL_ERR(CL_INVALID_BINARY)
    TG_CL_ERR(CL_INVALID_BUILD_OPTIONS)
    TG_CL_ERR(CL_INVALID_PROGRAM)
    TG_CL_ERR(CL_INVALID_PROGRAM_EXECUTABLE)
    TG_CL_ERR(CL_INVALID_KERNEL_NAME)
    TG_CL_ERR(CL_INVALID_KERNEL_DEFINITION)
    TG_CL_ERR(CL_INVALID_KERNEL)
    TG_CL_ERR(CL_INVALID_ARG_INDEX)
    TG_CL_ERR(CL_INVALID_ARG_VALUE)
    TG_CL_ERR(CL_INVALID_ARG_SIZE)
    TG_CL_ERR(CL_INVALID_KERNEL_ARGS)
    TG_CL_ERR(CL_INVALID_WORK_DIMENSION)
    TG_CL_ERR(CL_INVALID_WORK_GROUP_SIZE)
    TG_CL_ERR(CL_INVALID_WORK_ITEM_SIZE)
    TG_CL_ERR(CL_INVALID_GLOBAL_OFFSET)
    TG_CL_ERR(CL_INVALID_EVENT_WAIT_LIST)
    TG_CL_ERR(CL_INVALID_EVENT)
    TG_CL_ERR(CL_INVALID_OPERATION)
    TG_CL_ERR(CL_INVALID_GL_OBJECT)
    TG_CL_ERR(CL_INVALID_BUFFER_SIZE)
    TG_CL_ERR(CL_INVALID_MIP_LEVEL)
    TG_CL_ERR(CL_INVALID_GLOBAL_WORK_SIZE)
    TG_CL_ERR(CL_INVALID_PROPERTY)
    TG_CL_ERR(CL_INVALID_IMAGE_DESCRIPTOR)
    TG_CL_ERR(CL_INVALID_COMPILER_OPTIONS)
    TG_CL_ERR(CL_INVALID_LINKER_OPTIONS)
    TG_CL_ERR(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef TG_CL_ERR
  case -1001:
    return "CL_PLATFORM_NOT_FOUND_KHR";
  default:
    return "unknown OpenCL error";
  }
}

// "GPU: clFoo failed[ for kernel k]: CL_NAME (-n)"
void check_cl(cl_int status, const char* function, const std::string& kernel = "") {
  if (status != CL_SUCCESS)
    fail("RuntimeError", std::string("GPU: ") + function + " failed" +
                             (kernel.empty() ? "" : " for kernel " + kernel) + ": " + cl_error_name(status) +
                             " (" + std::to_string(status) + ")");
}

// Loaded once per process and never unloaded: drivers keep threads and atexit handlers inside it.
const OpenCLApi& load_api() {
  static const OpenCLApi* api = [] {
    void* lib = nullptr;
    for (const char* name : {"libOpenCL.so.1", "libOpenCL.so"})
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!lib)
      fail("RuntimeError",
           "GPU: no OpenCL library (libOpenCL.so.1 not found; install an OpenCL ICD loader and "
           "driver, e.g. ocl-icd-libopencl1 pocl-opencl-icd)");
    auto* t = new OpenCLApi;
#define TG_CL_LOAD(f)                                                                                        \
  t->f = reinterpret_cast<decltype(&::f)>(dlsym(lib, #f));                                                   \
  if (!t->f) fail("RuntimeError", "GPU: libOpenCL has no " #f " (an OpenCL 1.2 ICD loader is required)");
    TG_CL_FUNCTIONS(TG_CL_LOAD)
#undef TG_CL_LOAD
    return t;
  }();
  return *api;
}

std::string platform_string(const OpenCLApi& cl, cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  check_cl(cl.clGetPlatformInfo(p, what, 0, nullptr, &n), "clGetPlatformInfo");
  std::string s(n, '\0');
  check_cl(cl.clGetPlatformInfo(p, what, n, s.data(), nullptr), "clGetPlatformInfo");
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string device_string(const OpenCLApi& cl, cl_device_id d, cl_device_info what) {
  size_t n = 0;
  check_cl(cl.clGetDeviceInfo(d, what, 0, nullptr, &n), "clGetDeviceInfo");
  std::string s(n, '\0');
  check_cl(cl.clGetDeviceInfo(d, what, n, s.data(), nullptr), "clGetDeviceInfo");
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string build_log(const OpenCLApi& cl, cl_program program, cl_device_id device) {
  size_t n = 0;
  if (cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) != CL_SUCCESS)
    return "";
  std::string s(n, '\0');
  if (cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, s.data(), nullptr) != CL_SUCCESS)
    return "";
  while (!s.empty() && (s.back() == '\0' || s.back() == '\n')) s.pop_back();
  return s;
}

struct DeviceChoice {
  cl_platform_id platform;
  cl_device_id device;
};

// GPUs first so a machine with both a GPU driver and PoCL uses the GPU (tinygrad prefers
// CL_DEVICE_TYPE_GPU too); platform order is the ICD loader's.
std::vector<DeviceChoice> list_devices(const OpenCLApi& cl) {
  cl_uint nplatforms = 0;
  cl_int status = cl.clGetPlatformIDs(0, nullptr, &nplatforms);
  if (status == -1001 /* CL_PLATFORM_NOT_FOUND_KHR: the loader found no ICD */ || nplatforms == 0)
    fail("RuntimeError", "GPU: no OpenCL platform found (install an OpenCL driver, e.g. pocl-opencl-icd)");
  check_cl(status, "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(nplatforms);
  check_cl(cl.clGetPlatformIDs(nplatforms, platforms.data(), nullptr), "clGetPlatformIDs");
  std::vector<DeviceChoice> gpus, others;
  for (cl_platform_id p : platforms) {
    cl_uint ndevices = 0;
    if (cl.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &ndevices) != CL_SUCCESS || ndevices == 0)
      continue;
    std::vector<cl_device_id> devices(ndevices);
    check_cl(cl.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, ndevices, devices.data(), nullptr), "clGetDeviceIDs");
    for (cl_device_id d : devices) {
      cl_device_type type = 0;
      check_cl(cl.clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, nullptr), "clGetDeviceInfo");
      ((type & CL_DEVICE_TYPE_GPU) ? gpus : others).push_back({p, d});
    }
  }
  gpus.insert(gpus.end(), others.begin(), others.end());
  if (gpus.empty())
    fail("RuntimeError",
         "GPU: no OpenCL device found (the OpenCL platforms list no devices; check the driver)");
  return gpus;
}

size_t chosen_index(size_t ndevices) {
  const char* env = std::getenv("TG_OPENCL_DEVICE");
  if (!env || !*env) return 0;
  char* end = nullptr;
  long n = std::strtol(env, &end, 10);
  if (*end != '\0' || n < 0 || size_t(n) >= ndevices)
    fail("RuntimeError", std::string("GPU: TG_OPENCL_DEVICE=") + env + " is not a device index (there are " +
                             std::to_string(ndevices) + " OpenCL devices: 0 to " +
                             std::to_string(ndevices - 1) + ")");
  return size_t(n);
}

} // namespace

OpenCLContext& OpenCLContext::get() {
  // Never destroyed: releasing OpenCL objects from exit-time destructors races the driver's own
  // teardown. A constructor that throws leaves it unset, so a later call tries again.
  static OpenCLContext* ctx = new OpenCLContext();
  return *ctx;
}

OpenCLContext::OpenCLContext() : api_(&load_api()) {
  const OpenCLApi& cl = *api_;
  std::vector<DeviceChoice> devices = list_devices(cl);
  DeviceChoice choice = devices[chosen_index(devices.size())];
  cl_device_id device = choice.device;
  cl_int status = CL_SUCCESS;
  cl_context context = cl.clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  check_cl(status, "clCreateContext");
  cl_command_queue queue = cl.clCreateCommandQueue(context, device, 0, &status);
  check_cl(status, "clCreateCommandQueue");
  device_ = device;
  context_ = context;
  queue_ = queue;
  identity_ = "OpenCL platform " + platform_string(cl, choice.platform, CL_PLATFORM_NAME) + " (" +
              platform_string(cl, choice.platform, CL_PLATFORM_VERSION) + "), device " +
              device_string(cl, device, CL_DEVICE_NAME) + ", driver " +
              device_string(cl, device, CL_DRIVER_VERSION);
}

std::string OpenCLContext::build(const std::string& source) const {
  const OpenCLApi& cl = *api_;
  cl_device_id device = static_cast<cl_device_id>(device_);
  const char* text = source.c_str();
  size_t length = source.size();
  cl_int status = CL_SUCCESS;
  cl_program program =
      cl.clCreateProgramWithSource(static_cast<cl_context>(context_), 1, &text, &length, &status);
  check_cl(status, "clCreateProgramWithSource");
  // Release the program on every path out, including the throws below.
  std::unique_ptr<_cl_program, decltype(cl.clReleaseProgram)> guard(program, cl.clReleaseProgram);
  {
    QuietStderr quiet; // PoCL's compiler prints "1 error generated." itself; the log has it all
    status = cl.clBuildProgram(program, 1, &device, nullptr, nullptr, nullptr);
  }
  if (status == CL_BUILD_PROGRAM_FAILURE)
    compile_failed("OpenCL build", "opencl", build_log(cl, program, device));
  check_cl(status, "clBuildProgram");
  size_t size = 0;
  check_cl(cl.clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr),
           "clGetProgramInfo");
  std::string binary(size, '\0');
  unsigned char* data = reinterpret_cast<unsigned char*>(binary.data());
  check_cl(cl.clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr),
           "clGetProgramInfo");
  return binary;
}

void* OpenCLContext::alloc(size_t bytes) {
  const OpenCLApi& cl = *api_;
  // OpenCL rejects 0-byte buffers; a 1-byte one is a valid handle that is never read.
  size_t size = std::max<size_t>(bytes, 1);
  // Past the device's largest allocation a driver may fail slowly or late (PoCL zero-fills 8 GB
  // before it says anything): refuse at once, with the limit.
  cl_ulong most = 0;
  if (cl.clGetDeviceInfo(static_cast<cl_device_id>(device_), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof most, &most,
                         nullptr) == CL_SUCCESS &&
      most > 0 && size > most)
    fail("RuntimeError", "OpenCL: a buffer of " + std::to_string(size) +
                             " bytes is larger than the device's " + "largest allocation (" +
                             std::to_string(most) + " bytes)");
  cl_int status = CL_SUCCESS;
  cl_mem mem =
      cl.clCreateBuffer(static_cast<cl_context>(context_), CL_MEM_READ_WRITE, size, nullptr, &status);
  check_cl(status, "clCreateBuffer");
  const cl_uchar zero = 0;
  // Queued, not waited for: the queue is in order, so every later use sees the zeros.
  status = cl.clEnqueueFillBuffer(static_cast<cl_command_queue>(queue_), mem, &zero, 1, 0, size, 0, nullptr,
                                  nullptr);
  if (status != CL_SUCCESS) {
    cl.clReleaseMemObject(mem);
    check_cl(status, "clEnqueueFillBuffer");
  }
  return mem;
}

void OpenCLContext::free(void* buffer) {
  if (buffer) check_cl(api_->clReleaseMemObject(static_cast<cl_mem>(buffer)), "clReleaseMemObject");
}

void OpenCLContext::copyin(void* buffer, const void* host, size_t bytes) {
  if (bytes == 0) return;
  check_cl(api_->clEnqueueWriteBuffer(static_cast<cl_command_queue>(queue_), static_cast<cl_mem>(buffer),
                                      CL_TRUE, 0, bytes, host, 0, nullptr, nullptr),
           "clEnqueueWriteBuffer");
}

void OpenCLContext::copyout(void* host, const void* buffer, size_t bytes) {
  if (bytes == 0) return;
  check_cl(api_->clEnqueueReadBuffer(static_cast<cl_command_queue>(queue_),
                                     static_cast<cl_mem>(const_cast<void*>(buffer)), CL_TRUE, 0, bytes, host,
                                     0, nullptr, nullptr),
           "clEnqueueReadBuffer");
}

void OpenCLContext::finish() { check_cl(api_->clFinish(static_cast<cl_command_queue>(queue_)), "clFinish"); }

OpenCLProgram::OpenCLProgram(const std::string& binary, const std::vector<std::string>& kernel_names)
    : ctx_(OpenCLContext::get()), names_(kernel_names) {
  const OpenCLApi& cl = ctx_.api();
  cl_device_id device = static_cast<cl_device_id>(ctx_.device());
  const unsigned char* data = reinterpret_cast<const unsigned char*>(binary.data());
  size_t size = binary.size();
  cl_int binary_status = CL_SUCCESS, status = CL_SUCCESS;
  cl_program program = cl.clCreateProgramWithBinary(static_cast<cl_context>(ctx_.context()), 1, &device,
                                                    &size, &data, &binary_status, &status);
  check_cl(status, "clCreateProgramWithBinary");
  program_ = program;
  try {
    check_cl(binary_status, "clCreateProgramWithBinary");
    // Needed even for a binary: the program is not executable until built (macOS insists too).
    {
      QuietStderr quiet;
      status = cl.clBuildProgram(program, 1, &device, nullptr, nullptr, nullptr);
    }
    if (status == CL_BUILD_PROGRAM_FAILURE)
      compile_failed("OpenCL build of a program binary", "opencl", build_log(cl, program, device));
    check_cl(status, "clBuildProgram");
    for (const std::string& name : kernel_names) {
      cl_kernel k = cl.clCreateKernel(program, name.c_str(), &status);
      if (status == CL_INVALID_KERNEL_NAME)
        fail("RuntimeError", "GPU: the OpenCL program has no kernel named " + name);
      check_cl(status, "clCreateKernel");
      kernels_.push_back(k);
    }
  } catch (...) {
    for (void* k : kernels_) cl.clReleaseKernel(static_cast<cl_kernel>(k));
    cl.clReleaseProgram(program);
    throw;
  }
}

OpenCLProgram::~OpenCLProgram() {
  const OpenCLApi& cl = ctx_.api();
  for (void* k : kernels_) cl.clReleaseKernel(static_cast<cl_kernel>(k));
  cl.clReleaseProgram(static_cast<cl_program>(program_));
}

void OpenCLProgram::launch(size_t kernel_index, void* const* bufs, size_t nbufs, const int32_t* vars,
                           size_t nvars, const std::array<int64_t, 3>& global,
                           const std::array<int64_t, 3>& local) {
  if (kernel_index >= kernels_.size())
    fail("RuntimeError", "GPU: kernel index " + std::to_string(kernel_index) +
                             " out of range (the program has " + std::to_string(kernels_.size()) +
                             " kernels)");
  const OpenCLApi& cl = ctx_.api();
  cl_kernel kernel = static_cast<cl_kernel>(kernels_[kernel_index]);
  size_t global_items[3], local_items[3];
  for (int i = 0; i < 3; i++) {
    if (global[i] < 1 || local[i] < 1)
      fail("RuntimeError",
           "GPU: launch of " + names_[kernel_index] + " with a grid or work-group size below 1");
    global_items[i] = size_t(global[i]) * size_t(local[i]);
    local_items[i] = size_t(local[i]);
  }
  std::lock_guard<std::mutex> lock(launch_mutex_);
  cl_uint arg = 0;
  for (size_t i = 0; i < nbufs; i++, arg++) {
    cl_mem mem = static_cast<cl_mem>(bufs[i]);
    check_cl(cl.clSetKernelArg(kernel, arg, sizeof mem, &mem), "clSetKernelArg", names_[kernel_index]);
  }
  for (size_t i = 0; i < nvars; i++, arg++)
    check_cl(cl.clSetKernelArg(kernel, arg, sizeof(int32_t), &vars[i]), "clSetKernelArg",
             names_[kernel_index]);
  check_cl(cl.clEnqueueNDRangeKernel(static_cast<cl_command_queue>(ctx_.queue()), kernel, 3, nullptr,
                                     global_items, local_items, 0, nullptr, nullptr),
           "clEnqueueNDRangeKernel", names_[kernel_index]);
}

} // namespace tg
