#include "device/llvm/llvm_device.h"

#include "device/device_parts.h"
#include "device/host/host_program.h"
#include "device/llvm/llvm_plugin.h"
#include "device/plugin.h"
#include "runtime/compile_cache.h"
#include "runtime/host_cpu.h"
#include "util/error.h"
#include "util/parallel.h"

namespace tg {

namespace {

const LlvmPlugin& plugin() {
  static const LlvmPlugin* p =
      reinterpret_cast<const LlvmPlugin* (*)()>(load_plugin_entry("LLVM", "tg-llvm", "tg_llvm_plugin"))();
  return *p;
}

RendererOpts llvm_opts() {
  RendererOpts o;
  o.device = "LLVM";
  o.splits_outer_loop = true;
  o.vector_lanes = host_vector_floats();  // <N x float> vectors
  o.vector_lane_ranges = true;            // llvm.masked.load
  o.vector_masks = true;                  // <N x i1> compares and selects
  o.vector_math = true;                   // fdiv and exp2 on vectors (log2: llvm.log2, lane by lane)
  o.unroll_window = 7;                    // llvm.loop.unroll.full, as CLANG's #pragma GCC unroll
  o.pack_panel_bytes = host_pack_bytes(); // allocas in the entry block
  return o;
}

class LlvmRenderer : public Renderer {
public:
  LlvmRenderer() : Renderer(llvm_opts()) {}
  std::string render(const std::string& function_name, const std::vector<const UOp*>& uops) const override {
    return plugin().render(function_name, uops, opts().unroll_window);
  }
};

class LlvmCompiler : public Compiler {
public:
  // LLVM's version (fixed at build time) and the host CPU: what the O2, host-CPU object depends on.
  std::string identity() const override { return "llvm " TG_LLVM_VERSION " O2 host\n" + host_cpu_identity(); }
  CompiledProgram compile(const Program& p) const override {
    if (p.kernels.empty()) return {};
    // distinct kernels, in groups compiled on as many threads
    KernelGroups g = group_kernels(p, "@", "(", host_threads(), 64 * 1024);
    LlvmBuild build;
    build.groups.resize(g.groups.size());
    build.launchers.resize(g.groups.size());
    std::string all;
    for (size_t i = 0; i < g.groups.size(); ++i)
      for (size_t n : g.groups[i]) {
        build.groups[i].emplace_back(p.kernels[n].name, p.kernels[n].src);
        all += p.kernels[n].name + "\n" + p.kernels[n].src + "\n";
      }
    for (size_t n = 0; n < p.kernels.size(); ++n) {
      build.launchers[g.group_of[n]].emplace_back(p.kernels[n].name, p.kernels[g.function_of[n]].name);
      all += p.kernels[n].name + " -> " + p.kernels[g.function_of[n]].name + "\n";
    }
    CompileCache cache("llvm", ".so");
    std::string key = CompileCache::key(identity(), all);
    if (auto hit = cache.lookup(key)) return {*hit, true};
    std::filesystem::path tmp = cache.temp_path(".so");
    try {
      plugin().build(build, tmp);
    } catch (...) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      throw;
    }
    return {cache.insert(key, tmp), false};
  }
};

class LlvmDevice : public DeviceParts<LlvmRenderer, LlvmCompiler, HostAllocator> {
public:
  std::unique_ptr<LoadedProgram> load(const Program& p, const CompiledProgram& compiled) override {
    return load_shared_object(p, compiled.file);
  }
};

} // namespace

std::unique_ptr<Device> make_llvm_device() { return std::make_unique<LlvmDevice>(); }

} // namespace tg
