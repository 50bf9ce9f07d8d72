// LLVM device, compiler and loader: tinygrad 0.9.1's runtime/ops_llvm.py, in process. The
// kernels of a program (IR text from render_llvm_ir) are linked into one module, given a
// launcher each, optimized with the O2 pipeline for the host CPU (like -O2 -march=native) and
// emitted as one ELF object, which lld links into a shared object; libm (exp2f, sinf, ...) is
// resolved from the process when it is loaded.
//
// Launcher ABI, one per kernel: `void tg_launch_<name>(void** bufs, int32_t* vars)` calls
// <name> with its pointer parameters taken from bufs and its i32 parameters from vars, each
// in parameter order.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "device/llvm/llvm_plugin.h"

namespace tg {

// Host triple, CPU name, CPU features, LLVM version and optimization level: what an object
// from compile_llvm_object depends on (part of the compile-cache key). Starts no process.
std::string llvm_target_identity();

// kernels: (function name, IR text). Returns the object file's bytes. Throws
// tg::Error("RuntimeError", "LLVM failed: <diagnostic>") for IR that does not parse or verify.
// launchers: (kernel name, function name) pairs, each a tg_launch_<kernel> calling that
// function; empty: one per kernel, calling its own function.
std::string compile_llvm_object(const std::vector<std::pair<std::string, std::string>>& kernels,
                                const std::vector<std::pair<std::string, std::string>>& launchers = {});

inline std::string llvm_launcher_name(const std::string& kernel) { return "tg_launch_" + kernel; }
using LlvmLauncher = void (*)(void** bufs, int32_t* vars);

// compile_llvm_object's object linked by lld (in process) into a shared object at `out`, which
// dlopen loads: a warm run then needs no LLVM at all.
void build_llvm_shared_object(const std::vector<std::pair<std::string, std::string>>& kernels,
                              const std::filesystem::path& out);
// The same for a program split into groups (LlvmBuild), each compiled on its own thread.
void build_llvm_shared_object(const LlvmBuild& build, const std::filesystem::path& out);

} // namespace tg
