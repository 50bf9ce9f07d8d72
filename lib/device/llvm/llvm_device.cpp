#include "device/llvm/llvm_device.h"

#include <fstream>
#include <sstream>

#include "device/host/host_program.h"
#include "device/llvm/llvm_jit.h"
#include "device/llvm/llvm_renderer.h"
#include "runtime/compile_cache.h"
#include "util/error.h"

namespace tg {

namespace {

RendererOpts llvm_opts() {
  RendererOpts o;
  o.device = "LLVM";
  o.splits_outer_loop = true;
  return o;
}

class LlvmRenderer : public Renderer {
public:
  LlvmRenderer() : Renderer(llvm_opts()) {}
  std::string render(const std::string& function_name, const std::vector<const UOp*>& uops) const override {
    return render_llvm_ir(function_name, uops);
  }
};

class LlvmCompiler : public Compiler {
public:
  std::string identity() const override {
    static const std::string id = llvm_target_identity();
    return id;
  }
  CompiledProgram compile(const Program& p) const override {
    if (p.kernels.empty()) return {};
    std::vector<std::pair<std::string, std::string>> kernels;
    std::string all;
    for (const ProgramKernel& k : p.kernels) {
      kernels.emplace_back(k.name, k.src);
      all += k.name + "\n" + k.src + "\n";
    }
    CompileCache cache("llvm", ".o");
    std::string key = CompileCache::key(identity(), all);
    if (auto hit = cache.lookup(key)) return {*hit, true};
    std::filesystem::path tmp = cache.temp_path(".o");
    write_file_atomic(tmp, compile_llvm_object(kernels));
    return {cache.insert(key, tmp), false};
  }
};

std::string read_file(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("RuntimeError", "cannot read " + path.string());
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

// The loaded object outlives the launchers HostProgram calls.
class LlvmProgram : public HostProgram {
public:
  LlvmProgram(const Program& p, std::unique_ptr<LlvmLoadedObject> object, std::vector<HostLauncher> launchers)
      : HostProgram(p, std::move(launchers)), object_(std::move(object)) {}

private:
  std::unique_ptr<LlvmLoadedObject> object_;
};

class LlvmDevice : public Device {
public:
  const std::string& name() const override { return renderer_.opts().device; }
  const Renderer& renderer() const override { return renderer_; }
  const Compiler& compiler() const override { return compiler_; }
  Allocator& allocator() override { return allocator_; }
  std::unique_ptr<LoadedProgram> load(const Program& p, const CompiledProgram& compiled) override {
    if (p.kernels.empty()) return std::make_unique<HostProgram>(p, std::vector<HostLauncher>{});
    auto object = std::make_unique<LlvmLoadedObject>(read_file(compiled.file));
    std::vector<HostLauncher> launchers;
    for (const ProgramKernel& k : p.kernels)
      launchers.push_back(reinterpret_cast<HostLauncher>(object->lookup(llvm_launcher_name(k.name))));
    return std::make_unique<LlvmProgram>(p, std::move(object), std::move(launchers));
  }

private:
  LlvmRenderer renderer_;
  LlvmCompiler compiler_;
  HostAllocator allocator_;
};

} // namespace

} // namespace tg

extern "C" tg::Device* tg_make_llvm_device() { return new tg::LlvmDevice(); }
