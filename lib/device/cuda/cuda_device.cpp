#include "device/cuda/cuda_device.h"

#include "device/cuda/cuda_api.h"
#include "device/cuda/cuda_renderer.h"
#include "device/device_parts.h"

namespace tg {

namespace {

// Every kernel of a program in one NVRTC compile, PTX cached by source, NVRTC version and
// architecture.
class CudaCompiler : public Compiler {
public:
  std::string identity() const override { return "nvrtc " + nvrtc_version() + " " + arch(); }
  CompiledProgram compile(const Program& p) const override {
    return compile_as_one_source(p, "cuda", ".ptx", identity(),
                                 [&](const std::string& source) { return nvrtc_compile(source, arch()); });
  }

private:
  const std::string& arch() const {
    if (arch_.empty()) arch_ = cuda_default_arch();
    return arch_;
  }
  mutable std::string arch_;
};

class CudaAllocator : public Allocator {
public:
  void* alloc(size_t bytes) override { return CudaContext::get().alloc(bytes); }
  void free(void* buffer) override { CudaContext::get().free(buffer); }
  void copyin(void* buffer, const void* host, size_t bytes) override {
    CudaContext::get().copyin(buffer, host, bytes);
  }
  void copyout(void* host, const void* buffer, size_t bytes) override {
    CudaContext::get().copyout(host, buffer, bytes);
  }
};

class CudaDevice : public DeviceParts<CUDARenderer, CudaCompiler, CudaAllocator> {
public:
  std::unique_ptr<LoadedProgram> load(const Program& p, const CompiledProgram& compiled) override {
    CudaContext::get(); // no driver or device: one clear error before anything else
    return std::make_unique<ModuleProgram<CudaModule>>(p, read_compiled(compiled),
                                                       [] { CudaContext::get().synchronize(); });
  }
};

} // namespace

std::unique_ptr<Device> make_cuda_device() { return std::make_unique<CudaDevice>(); }

} // namespace tg
