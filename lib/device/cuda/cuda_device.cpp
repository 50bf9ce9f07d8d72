#include "device/cuda/cuda_device.h"

#include <fstream>
#include <sstream>

#include "device/cuda/cuda_api.h"
#include "device/cuda/cuda_renderer.h"
#include "runtime/compile_cache.h"
#include "util/error.h"

namespace tg {

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("RuntimeError", "cannot read " + path.string());
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

// Every kernel of a program in one NVRTC compile (the renderer's prefixes are guarded or
// identical #defines, so the sources concatenate), PTX cached by source, NVRTC version and
// architecture.
class CudaCompiler : public Compiler {
public:
  std::string identity() const override { return "nvrtc " + nvrtc_version() + " " + arch(); }
  CompiledProgram compile(const Program& p) const override {
    if (p.kernels.empty()) return {};
    std::string source;
    for (const ProgramKernel& k : p.kernels) source += k.src + "\n";
    CompileCache cache("cuda", ".ptx");
    std::string key = CompileCache::key(identity(), source);
    if (auto hit = cache.lookup(key)) return {*hit, true};
    std::filesystem::path tmp = cache.temp_path(".ptx");
    write_file_atomic(tmp, nvrtc_compile(source, arch()));
    return {cache.insert(key, tmp), false};
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

class CudaLoaded : public LoadedProgram {
public:
  CudaLoaded(const Program& p, const std::string& ptx) {
    std::vector<std::string> names;
    for (const ProgramKernel& k : p.kernels) {
      names.push_back(k.name);
      nbufs_.push_back(k.bufs.size());
      nvars_.push_back(k.vars.size());
    }
    if (!names.empty()) module_ = std::make_unique<CudaModule>(ptx, names);
  }
  void launch(size_t i, void* const* bufs, const int32_t* vars, const LaunchDims& dims) override {
    module_->launch(i, bufs, nbufs_.at(i), vars, nvars_.at(i), dims.global, dims.local);
  }
  void synchronize() override { CudaContext::get().synchronize(); }

private:
  std::unique_ptr<CudaModule> module_;
  std::vector<size_t> nbufs_, nvars_;
};

class CudaDevice : public Device {
public:
  const std::string& name() const override { return renderer_.opts().device; }
  const Renderer& renderer() const override { return renderer_; }
  const Compiler& compiler() const override { return compiler_; }
  Allocator& allocator() override { return allocator_; }
  std::unique_ptr<LoadedProgram> load(const Program& p, const CompiledProgram& compiled) override {
    CudaContext::get(); // no driver or device: one clear error before anything else
    return std::make_unique<CudaLoaded>(p, p.kernels.empty() ? "" : read_file(compiled.file));
  }

private:
  CUDARenderer renderer_;
  CudaCompiler compiler_;
  CudaAllocator allocator_;
};

} // namespace

std::unique_ptr<Device> make_cuda_device() { return std::make_unique<CudaDevice>(); }

} // namespace tg
