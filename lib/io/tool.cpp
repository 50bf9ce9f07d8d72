#include "io/tool.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <new>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/file.h"
#include "io/weights_file.h"
#include "runtime/compile_cache.h"
#include "util/error.h"
#include "util/warn.h"

#ifndef TG_VERSION
#error "TG_VERSION must be defined (CMake sets it from the project version)"
#endif

namespace tg {

namespace {
bool is_stdio(const std::string& path) { return path.empty() || path == "-"; }

// Graph passes follow chains of ops, which scripts can make as long as they like; a thread
// with a large stack keeps deep graphs well inside it (pages are committed only when touched).
constexpr size_t kToolStack = size_t(1) << 30;

const char* g_tool = "tg";

// One clear line instead of "Segmentation fault" if a stack or memory fault still happens.
void on_fault(int sig) {
  char line[256];
  int n = std::snprintf(line, sizeof line, "%s: internal error: %s (input nested too deeply, or a bug)\n",
                        g_tool, sig == SIGSEGV ? "stack or memory fault" : "fatal signal");
  if (n > 0) (void)!::write(STDERR_FILENO, line, size_t(n));
  ::_exit(1);
}

// Under AddressSanitizer its own handler reports faults (with a stack) and owns each thread's
// signal stack, which it unmaps at thread exit: leave both to it.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
constexpr bool kAsan = __has_feature(address_sanitizer);
#else
constexpr bool kAsan = false;
#endif

void install_fault_handler() {
  if (kAsan) return;
  stack_t old{};
  if (::sigaltstack(nullptr, &old) == 0 && (old.ss_flags & SS_DISABLE)) {
    // per thread (the main thread and the tool's), kept for the process's life
    constexpr size_t kAltStack = 1 << 16;
    stack_t ss{};
    ss.ss_sp = new char[kAltStack];
    ss.ss_size = kAltStack;
    ::sigaltstack(&ss, nullptr);
  }
  struct sigaction sa {};
  sa.sa_handler = on_fault;
  sa.sa_flags = SA_ONSTACK;
  ::sigaction(SIGSEGV, &sa, nullptr);
  ::sigaction(SIGBUS, &sa, nullptr);
}

// A tool stopped by SIGTERM, SIGINT or SIGHUP (a timeout, Ctrl-C, a closed terminal) first
// removes the temporary files it was writing (cache entries, outputs), then dies of the signal
// as it would have: no partial file survives it.
void on_termination(int sig) {
  remove_temps_in_flight();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_termination_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_termination;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    struct sigaction old {};
    // a signal the parent ignores (nohup, a background job's SIGINT) stays ignored
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

struct BodyCall {
  const std::function<int()>* body;
  int (*guarded)(const char*, const std::function<int()>&);
  const char* tool;
  int rc = 1;
};

void* call_body(void* p) {
  auto* c = static_cast<BodyCall*>(p);
  install_fault_handler(); // sigaltstack is per thread
  c->rc = c->guarded(c->tool, *c->body);
  return nullptr;
}
} // namespace

std::shared_ptr<const ReadBuffer> read_input_shared(const std::string& path) {
  if (!is_stdio(path)) return read_file_shared(path);
  if (::isatty(STDIN_FILENO)) fail("RuntimeError", "no input: pass a file or pipe an artifact");
  auto in = read_fd_shared(STDIN_FILENO, "stdin");
  // An empty pipe: the stage before this one wrote nothing, having printed its own error.
  if (in->view().empty()) fail("RuntimeError", "no input (an earlier stage failed)");
  return in;
}

std::string read_input(const std::string& path) { return std::string(read_input_shared(path)->view()); }

void write_output(const std::string& bytes, const std::string& path, bool binary) {
  write_output(Pieces{bytes}, path, binary);
}

void write_output(const Pieces& pieces, const std::string& path, bool binary) {
  if (!is_stdio(path)) return write_file_atomic(path, pieces);
  if (binary && ::isatty(STDOUT_FILENO))
    fail("RuntimeError", "refusing to write a binary artifact to a terminal; use --json or -o FILE");
  std::cout.flush();
  size_t size = 0;
  for (std::string_view p : pieces) size += p.size();
  if (size > (size_t(1) << 20)) {
    struct stat st {};
    if (::fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode)) widen_pipe(STDOUT_FILENO);
  }
  if (std::fflush(stdout) != 0)
    fail("OSError", std::string("cannot write to stdout: ") + std::strerror(errno));
  write_all(STDOUT_FILENO, pieces, "stdout");
}

void add_artifact_options(CLI::App& app, ArtifactOptions& options, const std::string& input_help) {
  app.add_option("input", options.input, input_help);
  app.add_option("-o,--output", options.output, "write to FILE instead of stdout")->option_text("FILE");
  app.add_flag("--json", options.json, "write JSON instead of the binary form");
  // (the process-wide setting is what the artifact writers ask; the option mirrors it for
  // tg-codegen --emit c)
  app.add_flag_function(
      "--embed-weights",
      [&options](std::int64_t count) {
        options.embed_weights = count > 0;
        set_embed_weights(count > 0);
      },
      "carry every constant's bytes in the artifact, never a reference to the model file they "
      "were read from (a self-contained artifact to move elsewhere)");
}

void add_dot_option(CLI::App& app, ArtifactOptions& options, bool kernels) {
  CLI::Option* json = app.get_option("--json");
  app.add_flag("--dot", options.dot, "write a Graphviz picture (DOT) instead of the artifact")
      ->excludes(json);
  app.add_option("--dot-output", options.dot_output, "with --dot: only output NAME and what it depends on")
      ->option_text("NAME")
      ->excludes(json);
  if (kernels)
    app.add_option("--dot-kernel", options.dot_kernel,
                   "with --dot: only kernel K (as numbered in the schedule, from 0) and its buffers")
        ->option_text("K")
        ->check(non_negative_integer())
        ->excludes(json);
  app.add_option("--dot-depth", options.dot_depth,
                 "with --dot: only N levels of sources above the outputs (or the kernel)")
      ->option_text("N")
      ->check(non_negative_integer())
      ->excludes(json);
}

namespace {
CLI::Validator integer_in(long long least, long long most, const char* what, const char* description) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        size_t used = 0;
        long long v = 0;
        try {
          v = std::stoll(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != text.size() || used == 0 || v < least || v > most)
          return std::string("expected ") + what + ", got '" + text + "'";
        return {};
      },
      description);
}
} // namespace

CLI::Validator positive_integer() { return integer_in(1, LLONG_MAX, "a positive integer", "N>0"); }
CLI::Validator non_negative_integer() { return integer_in(0, INT_MAX, "an integer >= 0", "N>=0"); }

int run_tool(const char* tool, CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  app.name(tool);
  // An option takes one value per use (--in a=A --in b=B FILE): a positional argument may stand
  // anywhere, even after a repeatable option.
  for (CLI::Option* o : app.get_options())
    if (!o->get_positional()) o->allow_extra_args(false);
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
  g_tool = tool;
  set_tool_name(tool);
  install_fault_handler();
  install_termination_handlers();
  BodyCall call{&body, run_guarded, tool};
  pthread_attr_t attr;
  pthread_t thread;
  if (::pthread_attr_init(&attr) == 0 && ::pthread_attr_setstacksize(&attr, kToolStack) == 0 &&
      ::pthread_create(&thread, &attr, call_body, &call) == 0) {
    ::pthread_attr_destroy(&attr);
    ::pthread_join(thread, nullptr);
    return call.rc;
  }
  return run_guarded(tool, body); // no thread (a tiny address space): run here
}

int run_guarded(const char* tool, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    std::cerr << tool << ": out of memory\n";
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
