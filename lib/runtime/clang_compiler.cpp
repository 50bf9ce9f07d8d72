#include "runtime/clang_compiler.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <mutex>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "runtime/compile_cache.h"
#include "util/error.h"

namespace tg {

namespace fs = std::filesystem;

ProcessResult run_process(const std::vector<std::string>& args, bool capture_stdout) {
  int fds[2];
  if (pipe(fds) != 0) fail("RuntimeError", std::string("pipe failed: ") + std::strerror(errno));
  pid_t pid = fork();
  if (pid < 0) fail("RuntimeError", std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    dup2(fds[1], STDERR_FILENO);
    if (capture_stdout) {
      dup2(fds[1], STDOUT_FILENO);
    } else {
      int null = open("/dev/null", O_WRONLY);
      if (null >= 0) dup2(null, STDOUT_FILENO);
    }
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> cargs;
    for (const std::string& a : args) cargs.push_back(const_cast<char*>(a.c_str()));
    cargs.push_back(nullptr);
    execvp(cargs[0], cargs.data());
    std::string msg = "cannot run " + args[0] + ": " + std::strerror(errno) + "\n";
    if (write(STDERR_FILENO, msg.data(), msg.size()) < 0) _exit(126);
    _exit(127);
  }
  close(fds[1]);
  ProcessResult r;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) r.output.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return r;
}

ClangCompiler::ClangCompiler() {
  const char* env = std::getenv("TG_CLANG");
  executable_ = env && *env ? env : "clang";
}

std::vector<std::string> ClangCompiler::argv(const std::string& src_path, const std::string& out_path) const {
  return {executable_, "-include", "tgmath.h", "-shared", "-march=native", "-O2", "-Wall", "-x",
          "c",         "-fPIC",    src_path,   "-o",      out_path};
}

namespace {
// The host CPU's feature flags: -march=native makes the object file depend on them.
std::string cpu_flags() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("flags", 0) == 0) return line;
  return "";
}
} // namespace

const std::string& ClangCompiler::identity() const {
  // `clang --version` costs a process; remember it per executable for the whole process
  static std::mutex mu;
  static std::map<std::string, std::string> versions;
  if (identity_.empty()) {
    std::string version;
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = versions.find(executable_);
      if (it == versions.end()) {
        ProcessResult v = run_process({executable_, "--version"}, true);
        if (v.status != 0)
          fail("RuntimeError", "cannot run the C compiler '" + executable_ + "':\n" + v.output);
        it = versions.emplace(executable_, v.output).first;
      }
      version = it->second;
    }
    for (const std::string& a : argv("SRC", "OUT")) identity_ += a + " ";
    identity_ += "\n" + version + cpu_flags();
  }
  return identity_;
}

ClangCompiler::Result ClangCompiler::compile(const std::string& source) const {
  CompileCache cache("clang", ".so");
  std::string key = CompileCache::key(identity(), source);
  if (auto hit = cache.lookup(key)) return {*hit, true};

  fs::path src = cache.temp_path(".c"), out = cache.temp_path(".so");
  write_file_atomic(src, source);
  ProcessResult r = run_process(argv(src.string(), out.string()));
  std::error_code ec;
  if (r.status != 0) {
    fs::remove(src, ec);
    fs::remove(out, ec);
    fail("RuntimeError", "clang failed (exit " + std::to_string(r.status) + "):\n" + r.output);
  }
  fs::rename(src, cache.path_for(key).replace_extension(".c"),
             ec); // the source, for people reading the cache
  return {cache.insert(key, out), false};
}

ClangCompiler::Result ClangCompiler::compile(const std::vector<std::string>& units) const {
  if (units.size() == 1) return compile(units[0]);
  CompileCache cache("clang", ".so");
  std::string all = std::to_string(units.size()) + " units\n";
  for (const std::string& u : units) all += u + "\n//--- unit ---\n";
  std::string key = CompileCache::key(identity(), all);
  if (auto hit = cache.lookup(key)) return {*hit, true};

  std::vector<fs::path> srcs, objs;
  for (const std::string& u : units) {
    srcs.push_back(cache.temp_path(".c"));
    objs.push_back(cache.temp_path(".o"));
    write_file_atomic(srcs.back(), u);
  }
  fs::path out = cache.temp_path(".so");
  std::vector<ProcessResult> results(units.size());
  {
    std::vector<std::thread> jobs;
    for (size_t i = 0; i < units.size(); ++i)
      jobs.emplace_back([&, i] {
        std::vector<std::string> args = argv(srcs[i].string(), objs[i].string());
        args.erase(std::find(args.begin(), args.end(), "-shared"));
        args.insert(args.end() - 2, "-c"); // before "-o OUT"
        results[i] = run_process(args);
      });
    for (std::thread& t : jobs) t.join();
  }
  std::vector<std::string> link{executable_, "-shared"};
  for (const fs::path& o : objs) link.push_back(o.string());
  link.insert(link.end(), {"-o", out.string()});
  ProcessResult linked;
  const ProcessResult* failed = nullptr;
  for (const ProcessResult& r : results)
    if (r.status != 0 && !failed) failed = &r;
  if (!failed) {
    linked = run_process(link);
    if (linked.status != 0) failed = &linked;
  }
  std::error_code ec;
  for (const fs::path& f : objs) fs::remove(f, ec);
  for (const fs::path& f : srcs) fs::remove(f, ec);
  if (failed) {
    fs::remove(out, ec);
    fail("RuntimeError", "clang failed (exit " + std::to_string(failed->status) + "):\n" + failed->output);
  }
  return {cache.insert(key, out), false};
}

} // namespace tg
