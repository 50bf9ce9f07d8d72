// CLANG device, compiler: C source -> shared object via the clang executable, as tinygrad
// 0.9.1's ClangCompiler (same flags: -O2 -march=native, clang's default floating-point
// contraction, tgmath.h for exp2/log2/sin/sqrt). Every kernel of a program goes into one
// shared object, each with a launcher `tg_launch_<name>(void** bufs, const int* vars)`; big
// programs are split into units compiled by concurrent clangs. Results live in the compile
// cache.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "device/device.h"

namespace tg {

class ClangCompiler : public Compiler {
public:
  // The executable is $TG_CLANG if set, else "clang".
  ClangCompiler();

  // The full argv used to compile `src_path` to `out_path`.
  std::vector<std::string> argv(const std::string& src_path, const std::string& out_path) const;
  // argv template, the compiler's resolved path, size and mtime, and the host CPU's flags.
  std::string identity() const override;
  CompiledProgram compile(const Program& p) const override;

  struct Result {
    std::filesystem::path library; // in the cache; stays valid
    bool cache_hit = false;
  };
  // Throws tg::Error("RuntimeError", "clang failed:\n<stderr>") when compilation fails.
  Result compile(const std::string& source) const;
  // Several translation units of one shared object: each compiled by its own clang, all at
  // once, then linked (one unit: as compile(source)).
  Result compile(const std::vector<std::string>& units) const;

private:
  std::string executable_;
};

// The C translation unit for a whole program: every kernel's source, then its launcher.
std::string program_translation_unit(const Program& p);
// The same split into at most `most` units of whole kernels (fewer for small programs), to be
// compiled at once and linked into one shared object.
std::vector<std::string> program_translation_units(const Program& p, int most);

} // namespace tg
