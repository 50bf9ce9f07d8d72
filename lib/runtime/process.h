// runtime layer, processes: runs a compiler (or any program) without a shell.
#pragma once
#include <string>
#include <vector>

namespace tg {

// Runs argv; returns the exit status and what the program wrote to stderr (and stdout, when
// capture_stdout). Throws when the program cannot be started.
struct ProcessResult {
  int status = -1;
  std::string output;
};
ProcessResult run_process(const std::vector<std::string>& argv, bool capture_stdout = false);

// The executable `name` resolves to through $PATH (or `name` itself when it has a slash), with
// symlinks resolved; empty when there is none.
std::string find_executable(const std::string& name);

} // namespace tg
