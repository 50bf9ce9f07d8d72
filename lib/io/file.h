// io layer, files: whole-file reads and atomic writes (temp file in the same directory, then
// rename), so a failed write never leaves a partial file behind. Errors are tg::Error naming
// the path.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
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

// Bytes read whole into one mapping, grown with mremap, which moves pages instead of copying
// them: a 100 MB artifact from a pipe is written into memory once. Shared, for what is
// decoded from it to point into it (Blob).
class ReadBuffer {
public:
  ReadBuffer() = default;
  ReadBuffer(const ReadBuffer&) = delete;
  ReadBuffer& operator=(const ReadBuffer&) = delete;
  ~ReadBuffer();
  std::string_view view() const { return {data_, size_}; }
  // The regular file it holds whole (read or mapped from its start) as fstat saw it then: what a
  // reference to bytes in that file must still match (io/weights_file.h). Absent for a pipe.
  struct FileStamp {
    uint64_t size = 0;
    int64_t mtime_ns = 0;
  };
  const std::optional<FileStamp>& file_stamp() const { return stamp_; }

private:
  friend std::shared_ptr<const ReadBuffer> read_fd_shared(int fd, const std::string& what);
  char* data_ = nullptr;
  size_t size_ = 0, capacity_ = 0;
  std::optional<FileStamp> stamp_;
};
std::shared_ptr<const ReadBuffer> read_fd_shared(int fd, const std::string& what);
std::shared_ptr<const ReadBuffer> read_file_shared(const std::string& path);
// Bytes to write one after another, each where it lies: an artifact's own bytes and its
// constants' data in the buffer it was read into (io/artifact.h, ArtifactBytes).
using Pieces = std::vector<std::string_view>;
// Writes every piece to `fd` (not closed); `what` names it in errors.
void write_all(int fd, const Pieces& pieces, const std::string& what);

// Replaces `path` atomically. A path that exists and is not a regular file (/dev/null, a
// FIFO) is written in place instead, since it cannot be replaced.
void write_file_atomic(const std::string& path, std::string_view bytes);
void write_file_atomic(const std::string& path, const Pieces& pieces);
// Several files, all or nothing: every one is written to a temporary first, and only when all
// are written are they renamed into place (a failure leaves none of them changed).
void write_files_atomic(const std::vector<std::pair<std::string, std::string_view>>& files);

} // namespace tg
