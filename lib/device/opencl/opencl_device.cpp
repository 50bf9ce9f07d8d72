#include "device/opencl/opencl_device.h"

#include "device/device_parts.h"
#include "device/opencl/opencl_api.h"
#include "device/opencl/opencl_renderer.h"

namespace tg {

namespace {

// Every kernel of a program in one OpenCL program: built by the driver, its binary cached by
// the source and the device's identity (a build needs the device, as in tinygrad).
class OpenCLCompiler : public Compiler {
public:
  std::string identity() const override { return "opencl\n" + OpenCLContext::get().device_identity(); }
  CompiledProgram compile(const Program& p) const override {
    return compile_as_one_source(p, "opencl", ".bin", identity(), [](const std::string& source) {
      return OpenCLContext::get().build(source);
    });
  }
};

class OpenCLAllocator : public Allocator {
public:
  void* alloc(size_t bytes) override { return OpenCLContext::get().alloc(bytes); }
  void free(void* buffer) override { OpenCLContext::get().free(buffer); }
  void copyin(void* buffer, const void* host, size_t bytes) override {
    OpenCLContext::get().copyin(buffer, host, bytes);
  }
  void copyout(void* host, const void* buffer, size_t bytes) override {
    OpenCLContext::get().copyout(host, buffer, bytes);
  }
};

class OpenCLDevice : public DeviceParts<OpenCLRenderer, OpenCLCompiler, OpenCLAllocator> {
public:
  std::unique_ptr<LoadedProgram> load(const Program& p, const CompiledProgram& compiled) override {
    return std::make_unique<ModuleProgram<OpenCLProgram>>(p, read_compiled(compiled),
                                                          [] { OpenCLContext::get().finish(); });
  }
};

} // namespace

std::unique_ptr<Device> make_opencl_device() { return std::make_unique<OpenCLDevice>(); }

} // namespace tg
