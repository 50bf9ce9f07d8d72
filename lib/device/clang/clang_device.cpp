// CLANG device (tinygrad's ops_clang.py): C through the clang executable into a shared object,
// dlopen'ed; kernels run on this CPU's threads.
#include "device/clang/clang_device.h"

#include "device/clang/clang_compiler.h"
#include "device/clang/clang_renderer.h"
#include "device/device_parts.h"
#include "device/host/host_program.h"
#include "util/error.h"

namespace tg {

namespace {

class ClangDevice : public DeviceParts<ClangRenderer, ClangCompiler, HostAllocator> {
public:
  std::unique_ptr<LoadedProgram> load(const Program& p, const CompiledProgram& compiled) override {
    return load_shared_object(p, compiled.file);
  }
};

} // namespace

std::unique_ptr<Device> make_clang_device() { return std::make_unique<ClangDevice>(); }

} // namespace tg
