// LLVM device, the plugin's interface: what needs libLLVM (rendering IR, compiling and linking
// it) lives in libtg-llvm.so (lib/device/llvm/plugin/), loaded on the first render or cold
// compile; a warm run loads the cached shared object with no LLVM in the process.
#pragma once
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "codegen/uops.h"

namespace tg {

// A program to build: its distinct kernels in groups compiled at once, each group with the
// launchers of the kernels that run its functions (kernel name, function name).
struct LlvmBuild {
  std::vector<std::vector<std::pair<std::string, std::string>>> groups; // (function name, IR)
  std::vector<std::vector<std::pair<std::string, std::string>>> launchers;
};

struct LlvmPlugin {
  // One kernel's IR module as text (render_llvm_ir).
  std::string (*render)(const std::string& function_name, const std::vector<const UOp*>& uops,
                        int unroll_window);
  // A program's kernels, with their launchers, as one shared object at `out`.
  void (*build)(const LlvmBuild& build, const std::filesystem::path& out);
};

} // namespace tg

// The plugin's entry point.
extern "C" const tg::LlvmPlugin* tg_llvm_plugin();
