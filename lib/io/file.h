// io layer, files: whole-file reads and atomic writes (temp file in the same directory, then
// rename), so a failed write never leaves a partial file behind. Errors are tg::Error naming
// the path.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tg {

std::string read_file(const std::string& path);
// Makes the pipe `fd` hold 1 MiB when the system allows (best effort; any fd).
void widen_pipe(int fd);
// Everything left to read on `fd` (not closed); `what` names it in errors ("stdin").
std::string read_fd(int fd, const std::string& what);
// Replaces `path` atomically. A path that exists and is not a regular file (/dev/null, a
// FIFO) is written in place instead, since it cannot be replaced.
void write_file_atomic(const std::string& path, std::string_view bytes);
// Several files, all or nothing: every one is written to a temporary first, and only when all
// are written are they renamed into place (a failure leaves none of them changed).
void write_files_atomic(const std::vector<std::pair<std::string, std::string_view>>& files);

} // namespace tg
