#include "runtime/process.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

#include "util/error.h"

namespace tg {

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

std::string find_executable(const std::string& name) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto resolve = [&](const fs::path& p) -> std::string {
    if (access(p.c_str(), X_OK) != 0) return "";
    fs::path real = fs::canonical(p, ec);
    return ec ? p.string() : real.string();
  };
  if (name.find('/') != std::string::npos) return resolve(name);
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    if (!dir.empty())
      if (std::string found = resolve(fs::path(dir) / name); !found.empty()) return found;
    start = end + 1;
  }
  return "";
}

} // namespace tg
