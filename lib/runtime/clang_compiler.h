// runtime layer, CLANG compiler: C source -> shared object via the clang executable, as
// tinygrad 0.9.1's ClangCompiler (same flags: -O2 -march=native, clang's default
// floating-point contraction, tgmath.h for exp2/log2/sin/sqrt), with every kernel of a
// program in one translation unit and one clang run, results kept in the compile cache.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace tg {

class ClangCompiler {
public:
  // The executable is $TG_CLANG if set, else "clang".
  ClangCompiler();

  // The full argv used to compile `src_path` to `out_path`.
  std::vector<std::string> argv(const std::string& src_path, const std::string& out_path) const;
  // What identifies the compiler for caching: argv template plus `clang --version`.
  const std::string& identity() const;

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
  mutable std::string identity_;
};

// Runs argv (no shell); returns the exit status and what the program wrote to stderr (and
// stdout, when capture_stdout). Throws when the program cannot be started.
struct ProcessResult {
  int status = -1;
  std::string output;
};
ProcessResult run_process(const std::vector<std::string>& argv, bool capture_stdout = false);

} // namespace tg
