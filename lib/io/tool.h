// io layer, tool support for the thin drivers in cmd/: reading the input artifact (a file or
// stdin), writing the output (a file, atomically, or stdout), shared flags, and run_tool,
// which turns parse errors and exceptions into one line and an exit code. This header pulls
// in CLI11: include it from cmd/ (and tests), not from other layers.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "io/file.h"
#include "util/error.h"

namespace tg {

// Whole contents of `path`, or of stdin for "" or "-". Stdin on a terminal is an error.
std::string read_input(const std::string& path);
// The same in a shared buffer, for an artifact whose constants may point into it.
std::shared_ptr<const ReadBuffer> read_input_shared(const std::string& path);
// To `path` atomically (a failure leaves no partial file), or to stdout for "" or "-".
// Binary bytes are never written to a terminal.
void write_output(const std::string& bytes, const std::string& path, bool binary);
// The same for bytes in pieces (an artifact's, io/artifact.h), written one after another.
void write_output(const Pieces& pieces, const std::string& path, bool binary);

// The flags every artifact-to-artifact tool has: [INPUT] -o/--output FILE --json --embed-weights.
// input_help describes INPUT, e.g. "graph artifact (default: stdin)".
struct ArtifactOptions {
  std::string input;  // "" = stdin
  std::string output; // "" = stdout
  bool json = false;
  bool embed_weights = false; // --embed-weights (also set process-wide: io/weights_file.h)
  bool dot = false; // Graphviz instead of the artifact (add_dot_option)
  // --dot-output NAME, --dot-kernel K, --dot-depth N: a part of the picture (each implies --dot)
  std::string dot_output;
  int dot_kernel = -1, dot_depth = -1;
  bool wants_dot() const { return dot || !dot_output.empty() || dot_kernel >= 0 || dot_depth >= 0; }
};
void add_artifact_options(CLI::App& app, ArtifactOptions& options, const std::string& input_help);
// --dot: write Graphviz instead of the artifact (tg-trace, tg-grad, tg-schedule); excludes --json.
// With it --dot-output and --dot-depth, and for a schedule (`kernels`) --dot-kernel.
void add_dot_option(CLI::App& app, ArtifactOptions& options, bool kernels = false);

// For counts (--steps, --repeat ...): "expected a positive integer, got '0'", where CLI11's
// PositiveNumber prints a 300-digit range.
CLI::Validator positive_integer();
CLI::Validator non_negative_integer(); // an int that may be 0 (--dot-depth)

// Adds --version ("tg-NAME 0.1.0"), parses argv and runs body. Returns the exit code:
// body's result; 0 after --help/--version; 2 for a usage error (one line on stderr);
// 1 after a tg::Error ("tg-NAME: message") or any other exception
// ("tg-NAME: internal error: ...").
// body runs on a thread with a 1 GiB stack, so deep graphs do not overflow it.
int run_tool(const char* tool, CLI::App& app, int argc, char** argv, const std::function<int()>& body);
// body() with its exceptions turned into one line on stderr and exit code 1.
int run_guarded(const char* tool, const std::function<int()>& body);

} // namespace tg
