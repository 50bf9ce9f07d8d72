// runtime layer, compile cache: compiled artifacts on disk, keyed by the SHA-256 of everything
// that determines them (compiler command + source). Directory: $TG_CACHE_DIR, else
// $XDG_CACHE_HOME/tg, else $HOME/.cache/tg. Entries are written to a temporary name and
// renamed into place, so readers never see a partial file and concurrent writers are safe.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace tg {

std::filesystem::path cache_dir();

class CompileCache {
public:
  // `kind` is a subfolder ("clang"), `ext` the file suffix (".so").
  CompileCache(std::string kind, std::string ext);

  static std::string key(std::string_view command, std::string_view source);
  std::filesystem::path path_for(const std::string& key) const;
  std::optional<std::filesystem::path> lookup(const std::string& key) const;
  // Moves `built` (a finished file) into the cache under `key`; returns the cached path.
  std::filesystem::path insert(const std::string& key, const std::filesystem::path& built) const;
  // A fresh, unique temporary path inside the cache folder (same file system as the entries).
  std::filesystem::path temp_path(std::string_view suffix) const;

private:
  std::filesystem::path dir_;
  std::string ext_;
};

// A compiler refused a program's source: throws one line, "<compiler> failed: <its first error>
// (N more lines: <log file>)", and keeps the whole log in the cache folder as
// <kind>/last-error.log, since a compiler's log of a hand-edited program can run to pages.
[[noreturn]] void compile_failed(const std::string& compiler, const std::string& kind,
                                 const std::string& log);

// Unlinks the temporary files this process is writing: async-signal-safe, for a handler of
// SIGTERM/SIGINT/SIGHUP, so a compile killed half-way leaves nothing in the cache folder.
void remove_temps_in_flight();

// Writes `contents` to `path` atomically (temp file in the same folder + rename).
void write_file_atomic(const std::filesystem::path& path, std::string_view contents);

} // namespace tg
