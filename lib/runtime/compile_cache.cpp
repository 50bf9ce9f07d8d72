#include "runtime/compile_cache.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

#include "runtime/sha256.h"
#include "util/error.h"
#include "util/warn.h"

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

namespace {

// Each entry has a record beside it, "<entry>.sum": its size and SHA-256 when it was written.
// A damaged entry (truncated by a full disk, overwritten, bit rot) would crash dlopen or the
// loader on every later run; checked against its record it is rebuilt instead.
fs::path record_path(const fs::path& entry) { return fs::path(entry.string() + ".sum"); }

std::optional<std::string> read_small_file(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream out;
  out << f.rdbuf();
  if (!f && !f.eof()) return std::nullopt;
  return out.str();
}

std::string content_record(const fs::path& entry) {
  auto bytes = read_small_file(entry);
  if (!bytes) return {};
  return std::to_string(bytes->size()) + " " + sha256_hex(*bytes) + "\n";
}

} // namespace

std::optional<fs::path> CompileCache::lookup(const std::string& key) const {
  fs::path p = path_for(key);
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;
  std::optional<std::string> record = read_small_file(record_path(p));
  std::string actual = content_record(p);
  if (record && !actual.empty() && *record == actual) return p;
  // An entry without a record was written by an older tg, by a run killed between the two
  // renames, or by a process that is between them right now and about to load it: so a miss
  // never deletes. The caller compiles and insert() renames the new entry over this one,
  // which leaves any process that already loaded the old file its own copy.
  if (record)
    warn("compile cache entry " + p.string() +
         " is damaged (its size or content changed since it was "
         "written); rebuilding it");
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

namespace {
// The temporaries this process made, for remove_temps_in_flight() to unlink from a signal
// handler: fixed slots of plain chars, since a handler may not allocate or lock. A slot is
// reused round-robin; a path already renamed into place unlinks as ENOENT, harmlessly (names
// hold the PID and a counter, so no other file has one).
constexpr size_t kTempSlots = 128, kTempPathMax = 1024;
char g_temps[kTempSlots][kTempPathMax];
std::atomic<uint64_t> g_temp_count{0};

void remember_temp(const fs::path& p) {
  const std::string& s = p.native();
  if (s.size() >= kTempPathMax) return;
  char* slot = g_temps[g_temp_count.fetch_add(1) % kTempSlots];
  slot[0] = '\0';
  std::memcpy(slot + 1, s.c_str() + 1, s.size()); // the first byte last: never half a path
  slot[0] = s[0];
}
} // namespace

void remove_temps_in_flight() {
  uint64_t n = std::min<uint64_t>(g_temp_count.load(), kTempSlots);
  for (uint64_t i = 0; i < n; ++i)
    if (g_temps[i][0]) ::unlink(g_temps[i]);
}

fs::path CompileCache::temp_path(std::string_view suffix) const {
  static std::atomic<uint64_t> counter{0};
  // Once per process, when there is something to compile (never on a warm run).
  static std::atomic<bool> swept{false};
  if (!swept.exchange(true)) sweep_stale_temps(dir_);
  fs::path p =
      dir_ / (".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + std::string(suffix));
  remember_temp(p);
  return p;
}

fs::path CompileCache::insert(const std::string& key, const fs::path& built) const {
  fs::path dest = path_for(key);
  std::string record = content_record(built);
  std::error_code ec;
  if (record.empty()) {
    fs::remove(built, ec);
    fail("RuntimeError", "cannot read the compiled file " + built.string());
  }
  // The entry first, then its record: a reader never trusts an entry whose record is missing.
  fs::rename(built, dest, ec);
  if (ec) {
    fs::remove(built, ec);
    fail("RuntimeError", "cannot move " + built.string() + " into the cache: " + ec.message());
  }
  write_file_atomic(record_path(dest), record);
  return dest;
}

void compile_failed(const std::string& compiler, const std::string& kind, const std::string& log) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < log.size();) {
    size_t end = log.find('\n', at);
    if (end == std::string::npos) end = log.size();
    if (end > at) lines.push_back(log.substr(at, end - at));
    at = end + 1;
  }
  // the first line that says "error", without the temporary file's path before it
  std::string first = lines.empty() ? "no message" : lines.front();
  for (const std::string& l : lines)
    if (l.find("error") != std::string::npos) {
      first = l;
      break;
    }
  if (size_t tmp = first.find(".tmp-"); tmp != std::string::npos) {
    size_t colon = first.find(':', tmp);
    first = "kernel source" + first.substr(colon == std::string::npos ? first.size() : colon);
  }
  for (char& c : first)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  std::string message = compiler + " failed: " + first;
  if (lines.size() > 1) {
    fs::path saved = cache_dir() / kind / "last-error.log";
    std::error_code ec;
    fs::create_directories(saved.parent_path(), ec);
    try {
      write_file_atomic(saved, log);
      message += " (" + std::to_string(lines.size() - 1) + " more lines: " + saved.string() + ")";
    } catch (const Error&) {
      message += " (" + std::to_string(lines.size() - 1) + " more lines)";
    }
  }
  fail("RuntimeError", message);
}

void write_file_atomic(const fs::path& path, std::string_view contents) {
  static std::atomic<uint64_t> counter{0};
  fs::path tmp = path.parent_path() / (".tmp-" + std::to_string(::getpid()) + "-" +
                                       std::to_string(counter++) + path.filename().string());
  remember_temp(tmp);
  std::error_code ec;
  {
    std::ofstream f(tmp, std::ios::binary);
    f.write(contents.data(), std::streamsize(contents.size()));
    f.close();
    if (!f) { // a full disk: no partial file stays behind
      fs::remove(tmp, ec);
      fail("RuntimeError", "cannot write " + tmp.string() + " (disk full?)");
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    std::string why = ec.message();
    fs::remove(tmp, ec);
    fail("RuntimeError", "cannot rename " + tmp.string() + " to " + path.string() + ": " + why);
  }
}

} // namespace tg
