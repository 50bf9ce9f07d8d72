#include "io/tool.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <unistd.h>

#include "io/file.h"
#include "util/error.h"

#ifndef TG_VERSION
#error "TG_VERSION must be defined (CMake sets it from the project version)"
#endif

namespace tg {

namespace {
bool is_stdio(const std::string& path) { return path.empty() || path == "-"; }
} // namespace

std::string read_input(const std::string& path) {
  if (!is_stdio(path)) return read_file(path);
  if (::isatty(STDIN_FILENO)) fail("RuntimeError", "no input: pass a file or pipe an artifact");
  std::string out;
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("OSError", std::string("cannot read stdin: ") + std::strerror(errno));
    if (n == 0) break;
    out.append(chunk, size_t(n));
  }
  return out;
}

void write_output(const std::string& bytes, const std::string& path, bool binary) {
  if (!is_stdio(path)) return write_file_atomic(path, bytes);
  if (binary && ::isatty(STDOUT_FILENO))
    fail("RuntimeError", "refusing to write a binary artifact to a terminal; use --json or -o FILE");
  std::cout.flush();
  if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0)
    fail("OSError", std::string("cannot write to stdout: ") + std::strerror(errno));
}

void add_artifact_options(CLI::App& app, ArtifactOptions& options, const std::string& input_help) {
  app.add_option("input", options.input, input_help);
  app.add_option("-o,--output", options.output, "write to FILE instead of stdout")->option_text("FILE");
  app.add_flag("--json", options.json, "write JSON instead of the binary form");
}

int run_tool(const char* tool, CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  app.name(tool);
  app.set_version_flag("--version", std::string(tool) + " " + TG_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << tool << ": " << e.what() << " (see " << tool << " --help)\n";
    return 2;
  }
  try {
    return body();
  } catch (const Error& e) {
    std::cerr << tool << ": " << e.what() << "\n";
  } catch (const std::filesystem::filesystem_error& e) {
    // "cannot create directories: Permission denied [out/x]" rather than an internal error
    std::string what = e.what();
    if (what.rfind("filesystem error: ", 0) == 0) what = what.substr(18);
    std::cerr << tool << ": " << what << "\n";
  } catch (const std::exception& e) {
    std::cerr << tool << ": internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << tool << ": internal error: unknown exception\n";
  }
  return 1;
}

} // namespace tg
