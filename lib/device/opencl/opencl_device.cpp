#include "device/opencl/opencl_device.h"

#include <fstream>
#include <sstream>

#include "device/opencl/opencl_api.h"
#include "device/opencl/opencl_renderer.h"
#include "runtime/compile_cache.h"
#include "util/error.h"

namespace tg {

namespace {

std::string program_source(const Program& p) {
  std::string src;
  for (const ProgramKernel& k : p.kernels) src += k.src + "\n";
  return src;
}

std::vector<std::string> kernel_names(const Program& p) {
  std::vector<std::string> names;
  for (const ProgramKernel& k : p.kernels) names.push_back(k.name);
  return names;
}

std::string read_binary(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("RuntimeError", "cannot read " + path.string());
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

// Every kernel of a program in one OpenCL program: built by the driver, its binary cached by
// the source and the device's identity (a build needs the device, as in tinygrad).
class OpenCLCompiler : public Compiler {
public:
  std::string identity() const override { return "opencl\n" + OpenCLContext::get().device_identity(); }
  CompiledProgram compile(const Program& p) const override {
    if (p.kernels.empty()) return {};
    CompileCache cache("opencl", ".bin");
    std::string source = program_source(p);
    std::string key = CompileCache::key(identity(), source);
    if (auto hit = cache.lookup(key)) return {*hit, true};
    std::filesystem::path tmp = cache.temp_path(".bin");
    write_file_atomic(tmp, OpenCLContext::get().build(source));
    return {cache.insert(key, tmp), false};
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

class OpenCLLoaded : public LoadedProgram {
public:
  OpenCLLoaded(const Program& p, const std::string& binary) {
    for (const ProgramKernel& k : p.kernels) {
      nbufs_.push_back(k.bufs.size());
      nvars_.push_back(k.vars.size());
    }
    if (!p.kernels.empty()) program_ = std::make_unique<OpenCLProgram>(binary, kernel_names(p));
  }
  void launch(size_t i, void* const* bufs, const int32_t* vars, const LaunchDims& dims) override {
    program_->launch(i, bufs, nbufs_.at(i), vars, nvars_.at(i), dims.global, dims.local);
  }
  void synchronize() override { OpenCLContext::get().finish(); }

private:
  std::unique_ptr<OpenCLProgram> program_;
  std::vector<size_t> nbufs_, nvars_;
};

class OpenCLDevice : public Device {
public:
  const std::string& name() const override { return renderer_.opts().device; }
  const Renderer& renderer() const override { return renderer_; }
  const Compiler& compiler() const override { return compiler_; }
  Allocator& allocator() override { return allocator_; }
  std::unique_ptr<LoadedProgram> load(const Program& p, const CompiledProgram& compiled) override {
    return std::make_unique<OpenCLLoaded>(p, p.kernels.empty() ? "" : read_binary(compiled.file));
  }

private:
  OpenCLRenderer renderer_;
  OpenCLCompiler compiler_;
  OpenCLAllocator allocator_;
};

} // namespace

std::unique_ptr<Device> make_opencl_device() { return std::make_unique<OpenCLDevice>(); }

} // namespace tg
