#include "device/cuda/cuda_api.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <memory>

#include "runtime/compile_cache.h"
#include "util/error.h"
#include "util/shared_library.h"

namespace tg {

namespace {

// The few NVRTC and driver API types and prototypes used, declared here (as in nvrtc.h and
// cuda.h, whose ABI is stable) so the build does not need the CUDA toolkit.
using nvrtcResult = int;
using nvrtcProgram = struct _nvrtcProgram*;
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

struct NvrtcApi {
  nvrtcResult (*nvrtcVersion)(int*, int*);
  const char* (*nvrtcGetErrorString)(nvrtcResult);
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                    const char* const*);
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram*);
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char* const*);
  nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram, size_t*);
  nvrtcResult (*nvrtcGetPTX)(nvrtcProgram, char*);
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t*);
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char*);
  int major = 0, minor = 0;
  std::vector<std::string> options; // every compile's options but the architecture
};

struct DriverApi {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuGetErrorName)(CUresult, const char**);
  CUresult (*cuGetErrorString)(CUresult, const char**);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc_v2)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree_v2)(CUdeviceptr);
  CUresult (*cuMemsetD8_v2)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH_v2)(void*, CUdeviceptr, size_t);
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void**, void**);
  CUresult init_status = CUDA_SUCCESS; // cuInit's, kept so every get() reports it
};

template <class F> void resolve(void* lib, F& fn, const char* name, const std::string& what) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn) fail("RuntimeError", "CUDA: " + what + " has no " + name + " (too old?)");
}
#define TG_RESOLVE(lib, table, f, what) resolve(lib, (table).f, #f, what)

// The directory holding cuda_fp16.h, which tinygrad's half kernels include: next to the loaded
// NVRTC first (its toolkit), then the usual places (the list tinygrad passes as -I).
std::string cuda_include_dir(void* nvrtc_symbol) {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  Dl_info info{};
  if (dladdr(nvrtc_symbol, &info) && info.dli_fname) {
    std::error_code ec;
    fs::path lib = fs::canonical(info.dli_fname, ec);
    if (!ec) candidates.push_back(lib.parent_path().parent_path() / "include");
  }
  if (const char* cuda_path = std::getenv("CUDA_PATH")) candidates.push_back(fs::path(cuda_path) / "include");
  for (const char* dir : {"/usr/local/cuda/include", "/opt/cuda/include", "/usr/include"})
    candidates.push_back(dir);
  for (const fs::path& dir : candidates) {
    std::error_code ec;
    if (fs::exists(dir / "cuda_fp16.h", ec)) return dir.string();
  }
  return "";
}

// Loaded once per process and never unloaded.
const NvrtcApi& load_nvrtc() {
  static const NvrtcApi* api = [] {
    std::string error;
    void* lib = open_shared_library(
        "TG_NVRTC",
        library_names({"", "/usr/local/cuda/lib64/"},
                      {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"}),
        error);
    if (!lib) {
      const char* env = std::getenv("TG_NVRTC");
      if (env && *env)
        fail("RuntimeError", std::string("CUDA: cannot load NVRTC from TG_NVRTC=") + env + ": " + error);
      fail("RuntimeError", "CUDA: NVRTC not found (libnvrtc.so; install the CUDA toolkit's NVRTC, or set "
                           "TG_NVRTC=/path/to/libnvrtc.so)");
    }
    auto* t = new NvrtcApi;
    const std::string what = "libnvrtc";
    TG_RESOLVE(lib, *t, nvrtcVersion, what);
    TG_RESOLVE(lib, *t, nvrtcGetErrorString, what);
    TG_RESOLVE(lib, *t, nvrtcCreateProgram, what);
    TG_RESOLVE(lib, *t, nvrtcDestroyProgram, what);
    TG_RESOLVE(lib, *t, nvrtcCompileProgram, what);
    TG_RESOLVE(lib, *t, nvrtcGetPTXSize, what);
    TG_RESOLVE(lib, *t, nvrtcGetPTX, what);
    TG_RESOLVE(lib, *t, nvrtcGetProgramLogSize, what);
    TG_RESOLVE(lib, *t, nvrtcGetProgramLog, what);
    if (t->nvrtcVersion(&t->major, &t->minor) != 0) fail("RuntimeError", "CUDA: nvrtcVersion failed");
    std::string include = cuda_include_dir(reinterpret_cast<void*>(t->nvrtcVersion));
    if (!include.empty()) t->options.push_back("-I" + include);
    // tinygrad's CUDACompiler: --minimal skips NVRTC's implicit headers (faster compiles).
    if (std::make_pair(t->major, t->minor) >= std::make_pair(12, 4)) t->options.push_back("--minimal");
    return t;
  }();
  return *api;
}

void check_nvrtc(const NvrtcApi& api, nvrtcResult status, const char* function) {
  if (status != 0)
    fail("RuntimeError", std::string("CUDA: ") + function + " failed: " + api.nvrtcGetErrorString(status) +
                             " (" + std::to_string(status) + ")");
}

// Loaded and initialized once per process (cuInit's failure included), never unloaded.
const DriverApi& load_driver() {
  static const DriverApi* api = [] {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      fail("RuntimeError", "CUDA: no CUDA driver (libcuda.so.1 not found; install the NVIDIA driver, or use "
                           "another device)");
    auto* t = new DriverApi;
    const std::string what = "libcuda.so.1";
    TG_RESOLVE(lib, *t, cuInit, what);
    TG_RESOLVE(lib, *t, cuGetErrorName, what);
    TG_RESOLVE(lib, *t, cuGetErrorString, what);
    TG_RESOLVE(lib, *t, cuDeviceGetCount, what);
    TG_RESOLVE(lib, *t, cuDeviceGet, what);
    TG_RESOLVE(lib, *t, cuDeviceGetAttribute, what);
    TG_RESOLVE(lib, *t, cuDeviceGetName, what);
    TG_RESOLVE(lib, *t, cuDevicePrimaryCtxRetain, what);
    TG_RESOLVE(lib, *t, cuCtxSetCurrent, what);
    TG_RESOLVE(lib, *t, cuCtxSynchronize, what);
    TG_RESOLVE(lib, *t, cuMemAlloc_v2, what);
    TG_RESOLVE(lib, *t, cuMemFree_v2, what);
    TG_RESOLVE(lib, *t, cuMemsetD8_v2, what);
    TG_RESOLVE(lib, *t, cuMemcpyHtoD_v2, what);
    TG_RESOLVE(lib, *t, cuMemcpyDtoH_v2, what);
    TG_RESOLVE(lib, *t, cuModuleLoadDataEx, what);
    TG_RESOLVE(lib, *t, cuModuleUnload, what);
    TG_RESOLVE(lib, *t, cuModuleGetFunction, what);
    TG_RESOLVE(lib, *t, cuLaunchKernel, what);
    t->init_status = t->cuInit(0);
    return t;
  }();
  return *api;
}

std::string cu_error(const DriverApi& api, CUresult status) {
  const char* name = nullptr;
  const char* text = nullptr;
  api.cuGetErrorName(status, &name);
  api.cuGetErrorString(status, &text);
  return std::string(name ? name : "CUDA_ERROR_" + std::to_string(status)) +
         (text ? std::string(": ") + text : "");
}

void check_cu(const DriverApi& api, CUresult status, const char* function, const std::string& kernel = "") {
  if (status != CUDA_SUCCESS)
    fail("RuntimeError", std::string("CUDA: ") + function + " failed" +
                             (kernel.empty() ? "" : " for kernel " + kernel) + ": " + cu_error(api, status));
}

// The driver with cuInit done, and the device $TG_CUDA_DEVICE (default 0); throws the
// no-driver / no-device errors.
CUdevice open_device(const DriverApi& api) {
  if (api.init_status == CUDA_ERROR_NO_DEVICE)
    fail("RuntimeError", "CUDA: no CUDA device (the driver found no NVIDIA GPU)");
  check_cu(api, api.init_status, "cuInit");
  int count = 0;
  check_cu(api, api.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0) fail("RuntimeError", "CUDA: no CUDA device (the driver found no NVIDIA GPU)");
  int index = 0;
  if (const char* env = std::getenv("TG_CUDA_DEVICE"); env && *env) {
    char* end = nullptr;
    long n = std::strtol(env, &end, 10);
    if (*end != '\0' || n < 0 || n >= count)
      fail("RuntimeError", std::string("CUDA: TG_CUDA_DEVICE=") + env + " is not a device index (there are " +
                               std::to_string(count) + " CUDA devices: 0 to " + std::to_string(count - 1) +
                               ")");
    index = int(n);
  }
  CUdevice device = 0;
  check_cu(api, api.cuDeviceGet(&device, index), "cuDeviceGet");
  return device;
}

std::string device_arch(const DriverApi& api, CUdevice device) {
  int major = 0, minor = 0;
  check_cu(api, api.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
           "cuDeviceGetAttribute");
  check_cu(api, api.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
           "cuDeviceGetAttribute");
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

CUdeviceptr to_ptr(const void* handle) { return CUdeviceptr(reinterpret_cast<uintptr_t>(handle)); }

} // namespace

std::string nvrtc_version() {
  const NvrtcApi& api = load_nvrtc();
  return std::to_string(api.major) + "." + std::to_string(api.minor);
}

std::string nvrtc_compile(const std::string& source, const std::string& arch) {
  const NvrtcApi& api = load_nvrtc();
  nvrtcProgram prog = nullptr;
  check_nvrtc(api, api.nvrtcCreateProgram(&prog, source.c_str(), "<null>", 0, nullptr, nullptr),
              "nvrtcCreateProgram");
  // Destroy the program on every path out, including the throws below.
  auto destroy = [&api](nvrtcProgram* p) { api.nvrtcDestroyProgram(p); };
  std::unique_ptr<nvrtcProgram, decltype(destroy)> guard(&prog, destroy);
  std::vector<std::string> options{"--gpu-architecture=" + arch};
  options.insert(options.end(), api.options.begin(), api.options.end());
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  nvrtcResult status = api.nvrtcCompileProgram(prog, int(argv.size()), argv.data());
  if (status != 0) {
    size_t size = 0;
    std::string log;
    if (api.nvrtcGetProgramLogSize(prog, &size) == 0 && size > 0) {
      log.resize(size);
      if (api.nvrtcGetProgramLog(prog, log.data()) != 0) log.clear();
    }
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    if (log.empty()) log = api.nvrtcGetErrorString(status);
    compile_failed("CUDA: nvrtc compile", "cuda", log);
  }
  size_t size = 0;
  check_nvrtc(api, api.nvrtcGetPTXSize(prog, &size), "nvrtcGetPTXSize");
  std::string ptx(size, '\0');
  check_nvrtc(api, api.nvrtcGetPTX(prog, ptx.data()), "nvrtcGetPTX");
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back(); // the size counts the terminator
  return ptx;
}

std::string cuda_default_arch() {
  if (const char* env = std::getenv("TG_CUDA_ARCH"); env && *env) {
    std::string arch = env;
    bool ok =
        arch.size() > 3 && arch.rfind("sm_", 0) == 0 &&
        std::all_of(arch.begin() + 3, arch.end(), [](char c) { return std::isalnum((unsigned char)c); });
    if (!ok) fail("RuntimeError", "CUDA: TG_CUDA_ARCH=" + arch + " is not an architecture like sm_80");
    return arch;
  }
  // Compile-only machines (no driver or no device) get a common default; the device is probed
  // without creating a context.
  try {
    const DriverApi& api = load_driver();
    return device_arch(api, open_device(api));
  } catch (const Error&) {
    return "sm_80";
  }
}

CudaContext& CudaContext::get() {
  // Never destroyed: the driver tears down its contexts at exit itself. A constructor that
  // throws leaves it unset, so a later call tries again.
  static CudaContext* ctx = new CudaContext();
  return *ctx;
}

CudaContext::CudaContext() {
  const DriverApi& api = load_driver();
  CUdevice device = open_device(api);
  arch_ = device_arch(api, device);
  char name[256] = {};
  check_cu(api, api.cuDeviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
  name_ = name;
  // The primary context: the one the CUDA runtime and other libraries in the process share.
  CUcontext ctx = nullptr;
  check_cu(api, api.cuDevicePrimaryCtxRetain(&ctx, device), "cuDevicePrimaryCtxRetain");
  context_ = ctx;
}

void CudaContext::make_current() const {
  const DriverApi& api = load_driver();
  check_cu(api, api.cuCtxSetCurrent(static_cast<CUcontext>(context_)), "cuCtxSetCurrent");
}

void* CudaContext::alloc(size_t bytes) {
  const DriverApi& api = load_driver();
  make_current();
  // The driver rejects 0-byte allocations; a 1-byte one is a valid handle that is never read.
  size_t size = std::max<size_t>(bytes, 1);
  CUdeviceptr ptr = 0;
  check_cu(api, api.cuMemAlloc_v2(&ptr, size), "cuMemAlloc");
  // On the default stream, ahead of every later copy and launch.
  if (CUresult status = api.cuMemsetD8_v2(ptr, 0, size); status != CUDA_SUCCESS) {
    api.cuMemFree_v2(ptr);
    check_cu(api, status, "cuMemsetD8");
  }
  return reinterpret_cast<void*>(uintptr_t(ptr));
}

void CudaContext::free(void* buffer) {
  if (!buffer) return;
  const DriverApi& api = load_driver();
  make_current();
  check_cu(api, api.cuMemFree_v2(to_ptr(buffer)), "cuMemFree");
}

void CudaContext::copyin(void* buffer, const void* host, size_t bytes) {
  if (bytes == 0) return;
  const DriverApi& api = load_driver();
  make_current();
  check_cu(api, api.cuMemcpyHtoD_v2(to_ptr(buffer), host, bytes), "cuMemcpyHtoD");
}

void CudaContext::copyout(void* host, const void* buffer, size_t bytes) {
  if (bytes == 0) return;
  const DriverApi& api = load_driver();
  make_current();
  check_cu(api, api.cuMemcpyDtoH_v2(host, to_ptr(buffer), bytes), "cuMemcpyDtoH");
}

void CudaContext::synchronize() {
  const DriverApi& api = load_driver();
  make_current();
  check_cu(api, api.cuCtxSynchronize(), "cuCtxSynchronize");
}

CudaModule::CudaModule(const std::string& ptx, const std::vector<std::string>& names)
    : ctx_(CudaContext::get()), names_(names) {
  const DriverApi& api = load_driver();
  ctx_.make_current();
  std::string log(8192, '\0');
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log.data(), reinterpret_cast<void*>(uintptr_t(log.size()))};
  CUmodule module = nullptr;
  CUresult status = api.cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values);
  if (status != CUDA_SUCCESS) {
    log.resize(log.find('\0'));
    fail("RuntimeError",
         "CUDA: cuModuleLoadData failed: " + cu_error(api, status) + (log.empty() ? "" : "\n" + log));
  }
  module_ = module;
  for (const std::string& name : names) {
    CUfunction f = nullptr;
    status = api.cuModuleGetFunction(&f, module, name.c_str());
    if (status != CUDA_SUCCESS) {
      api.cuModuleUnload(module);
      if (status == 500 /* CUDA_ERROR_NOT_FOUND */)
        fail("RuntimeError", "CUDA: the module has no kernel named " + name);
      check_cu(api, status, "cuModuleGetFunction");
    }
    functions_.push_back(f);
  }
}

CudaModule::~CudaModule() {
  const DriverApi& api = load_driver();
  try {
    ctx_.make_current();
  } catch (const Error&) { // a destructor must not throw; the unload then fails quietly too
  }
  api.cuModuleUnload(static_cast<CUmodule>(module_));
}

void CudaModule::launch(size_t i, void* const* bufs, size_t nbufs, const int32_t* vars, size_t nvars,
                        const std::array<int64_t, 3>& global, const std::array<int64_t, 3>& local) {
  if (i >= functions_.size())
    fail("RuntimeError", "CUDA: kernel index " + std::to_string(i) + " out of range (the module has " +
                             std::to_string(functions_.size()) + " kernels)");
  for (int d = 0; d < 3; d++)
    if (global[d] < 1 || local[d] < 1 || global[d] > UINT_MAX || local[d] > UINT_MAX)
      fail("RuntimeError", "CUDA: launch of " + names_[i] + " with a grid or block size out of range");
  const DriverApi& api = load_driver();
  ctx_.make_current();
  // cuLaunchKernel takes a pointer to each argument's value.
  std::vector<CUdeviceptr> ptrs(nbufs);
  std::vector<void*> args;
  for (size_t b = 0; b < nbufs; b++) {
    ptrs[b] = to_ptr(bufs[b]);
    args.push_back(&ptrs[b]);
  }
  for (size_t v = 0; v < nvars; v++) args.push_back(const_cast<int32_t*>(&vars[v]));
  check_cu(api,
           api.cuLaunchKernel(static_cast<CUfunction>(functions_[i]), unsigned(global[0]),
                              unsigned(global[1]), unsigned(global[2]), unsigned(local[0]),
                              unsigned(local[1]), unsigned(local[2]), 0, nullptr, args.data(), nullptr),
           "cuLaunchKernel", names_[i]);
}

} // namespace tg
