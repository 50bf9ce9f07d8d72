// device layer, the parts devices share: a Device made of its three components, a compiler
// that builds a program's kernels as one source, and a loaded program that is one driver
// module (OpenCL program, CUDA module) with a function per kernel.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "device/device.h"

namespace tg {

// A device whose renderer, compiler and allocator are members; it implements load().
template <class R, class C, class A> class DeviceParts : public Device {
public:
  const std::string& name() const override { return renderer_.opts().device; }
  const Renderer& renderer() const override { return renderer_; }
  const Compiler& compiler() const override { return compiler_; }
  Allocator& allocator() override { return allocator_; }

protected:
  R renderer_;
  C compiler_;
  A allocator_;
};

// Every distinct kernel's source, concatenated (renderers guard their helpers, so kernels
// share one translation unit; kernels that differ only in name are compiled once), built by `build` into one
// file in the compile cache under `kind`/`ext`, keyed by `identity` and the source. An empty program builds
// nothing.
CompiledProgram compile_as_one_source(const Program& p, const std::string& kind, const std::string& ext,
                                      const std::string& identity,
                                      const std::function<std::string(const std::string& source)>& build);

// Kernels that differ only in their function's name (a ResNet repeats its blocks: 292 kernels,
// 110 distinct) are compiled once, and the distinct ones are split into up to `most` groups of
// about equal source size, to be compiled at once. The name is found in a source as
// `before + name + after` ("void E_4(", "@E_4(").
struct KernelGroups {
  std::vector<size_t> function_of;         // per kernel: the kernel whose function it runs
  std::vector<size_t> group_of;            // per kernel: the group that holds that function
  std::vector<std::vector<size_t>> groups; // distinct kernels, in program order within a group
};
KernelGroups group_kernels(const Program& p, const std::string& before, const std::string& after, int most,
                           size_t min_group_bytes);

// The bytes of a compiled program's file (empty for an empty program).
std::string read_compiled(const CompiledProgram& c);

// A driver module holding every kernel of a program: Module(binary, names) and
// Module::launch(i, bufs, nbufs, vars, nvars, global, local), as OpenCLProgram and CudaModule.
template <class Module> class ModuleProgram : public LoadedProgram {
public:
  ModuleProgram(const Program& p, const std::string& binary, std::function<void()> synchronize)
      : synchronize_(std::move(synchronize)) {
    std::vector<std::string> names; // the function each kernel runs (twins share one)
    KernelGroups g = group_kernels(p, "void ", "(", 1, 1);
    for (size_t i = 0; i < p.kernels.size(); ++i) {
      const ProgramKernel& k = p.kernels[i];
      names.push_back(p.kernels[g.function_of[i]].name);
      nbufs_.push_back(k.bufs.size());
      nvars_.push_back(k.vars.size());
    }
    if (!names.empty()) module_ = std::make_unique<Module>(binary, names);
  }
  void launch(size_t i, void* const* bufs, const int32_t* vars, const LaunchDims& dims) override {
    module_->launch(i, bufs, nbufs_.at(i), vars, nvars_.at(i), dims.global, dims.local);
  }
  void synchronize() override { synchronize_(); }

private:
  std::unique_ptr<Module> module_;
  std::vector<size_t> nbufs_, nvars_;
  std::function<void()> synchronize_;
};

} // namespace tg
