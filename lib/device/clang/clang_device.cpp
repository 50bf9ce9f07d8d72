// CLANG device (tinygrad's ops_clang.py): C through the clang executable into a shared object,
// dlopen'ed; kernels run on this CPU's threads.
#include "device/clang/clang_device.h"

#include <dlfcn.h>

#include "device/clang/clang_compiler.h"
#include "device/clang/clang_renderer.h"
#include "device/host/host_program.h"
#include "util/error.h"

namespace tg {

namespace {

class SharedObject : public HostProgram {
public:
  SharedObject(const Program& p, void* handle, std::vector<HostLauncher> launchers)
      : HostProgram(p, std::move(launchers)), handle_(handle) {}
  ~SharedObject() override {
    if (handle_) dlclose(handle_);
  }

private:
  void* handle_;
};

class ClangDevice : public Device {
public:
  const std::string& name() const override { return renderer_.opts().device; }
  const Renderer& renderer() const override { return renderer_; }
  const Compiler& compiler() const override { return compiler_; }
  Allocator& allocator() override { return allocator_; }

  std::unique_ptr<LoadedProgram> load(const Program& p, const CompiledProgram& compiled) override {
    if (p.kernels.empty()) return std::make_unique<HostProgram>(p, std::vector<HostLauncher>{});
    std::string library = compiled.file.string();
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) fail("RuntimeError", std::string("cannot load ") + library + ": " + dlerror());
    std::vector<HostLauncher> launchers;
    for (const ProgramKernel& k : p.kernels) {
      void* sym = dlsym(handle, ("tg_launch_" + k.name).c_str());
      if (!sym) {
        dlclose(handle);
        fail("RuntimeError", "kernel '" + k.name + "' missing from " + library);
      }
      launchers.push_back(reinterpret_cast<HostLauncher>(sym));
    }
    return std::make_unique<SharedObject>(p, handle, std::move(launchers));
  }

private:
  ClangRenderer renderer_;
  ClangCompiler compiler_;
  HostAllocator allocator_;
};

} // namespace

std::unique_ptr<Device> make_clang_device() { return std::make_unique<ClangDevice>(); }

} // namespace tg
