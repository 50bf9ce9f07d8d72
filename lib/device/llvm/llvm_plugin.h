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

struct LlvmPlugin {
  // One kernel's IR module as text (render_llvm_ir).
  std::string (*render)(const std::string& function_name, const std::vector<const UOp*>& uops);
  // Every kernel (name, IR text) of a program, with launchers, as a shared object at `out`.
  void (*build)(const std::vector<std::pair<std::string, std::string>>& kernels,
                const std::filesystem::path& out);
};

} // namespace tg

// The plugin's entry point.
extern "C" const tg::LlvmPlugin* tg_llvm_plugin();
