// libtg-llvm.so's entry point (device/llvm/llvm_plugin.h).
#include "device/llvm/llvm_plugin.h"
#include "device/llvm/plugin/llvm_jit.h"
#include "device/llvm/plugin/llvm_renderer.h"

extern "C" const tg::LlvmPlugin* tg_llvm_plugin() {
  static const tg::LlvmPlugin plugin{
      tg::render_llvm_ir, static_cast<void (*)(const tg::LlvmBuild&, const std::filesystem::path&)>(
                              tg::build_llvm_shared_object)};
  return &plugin;
}
