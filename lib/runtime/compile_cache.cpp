#include "runtime/compile_cache.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

#include "runtime/sha256.h"
#include "util/error.h"

namespace tg {

namespace fs = std::filesystem;

fs::path cache_dir() {
  if (const char* d = std::getenv("TG_CACHE_DIR"); d && *d) return fs::path(d);
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return fs::path(d) / "tg";
  if (const char* d = std::getenv("HOME"); d && *d) return fs::path(d) / ".cache" / "tg";
  return fs::temp_directory_path() / "tg-cache";
}

CompileCache::CompileCache(std::string kind, std::string ext)
    : dir_(cache_dir() / kind), ext_(std::move(ext)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) fail("RuntimeError", "cannot create cache directory " + dir_.string() + ": " + ec.message());
}

std::string CompileCache::key(std::string_view command, std::string_view source) {
  Sha256 h;
  h.update(command);
  h.update(std::string_view("\0", 1));
  h.update(source);
  return h.hexdigest();
}

fs::path CompileCache::path_for(const std::string& key) const { return dir_ / (key + ext_); }

std::optional<fs::path> CompileCache::lookup(const std::string& key) const {
  fs::path p = path_for(key);
  std::error_code ec;
  if (fs::is_regular_file(p, ec) && fs::file_size(p, ec) > 0) return p;
  return std::nullopt;
}

namespace {

// Temporaries a killed compile left behind (".tmp-PID-N..."): its process is gone and the file
// has not changed for 10 minutes (the age guards a cache shared with other machines, whose
// PIDs mean nothing here), or it is a day old.
void sweep_stale_temps(const fs::path& dir) {
  std::error_code ec;
  auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind(".tmp-", 0) != 0) continue;
    std::error_code stat_ec;
    auto age = now - fs::last_write_time(it->path(), stat_ec);
    if (stat_ec) continue;
    long pid = std::strtol(name.c_str() + 5, nullptr, 10);
    bool gone = pid > 0 && pid != long(::getpid()) && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH;
    if ((gone && age > std::chrono::minutes(10)) || age > std::chrono::hours(24))
      fs::remove(it->path(), stat_ec);
  }
}

} // namespace

fs::path CompileCache::temp_path(std::string_view suffix) const {
  static std::atomic<uint64_t> counter{0};
  // Once per process, when there is something to compile (never on a warm run).
  static std::atomic<bool> swept{false};
  if (!swept.exchange(true)) sweep_stale_temps(dir_);
  return dir_ /
         (".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + std::string(suffix));
}

fs::path CompileCache::insert(const std::string& key, const fs::path& built) const {
  fs::path dest = path_for(key);
  std::error_code ec;
  fs::rename(built, dest, ec);
  if (ec) fail("RuntimeError", "cannot move " + built.string() + " into the cache: " + ec.message());
  return dest;
}

void write_file_atomic(const fs::path& path, std::string_view contents) {
  static std::atomic<uint64_t> counter{0};
  fs::path tmp = path.parent_path() / (".tmp-" + std::to_string(::getpid()) + "-" +
                                       std::to_string(counter++) + path.filename().string());
  {
    std::ofstream f(tmp, std::ios::binary);
    f.write(contents.data(), std::streamsize(contents.size()));
    if (!f) fail("RuntimeError", "cannot write " + tmp.string());
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec)
    fail("RuntimeError", "cannot rename " + tmp.string() + " to " + path.string() + ": " + ec.message());
}

} // namespace tg
