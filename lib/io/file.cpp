#include "io/file.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/huge_pages.h"

namespace tg {

namespace {

std::string errno_text() { return std::strerror(errno); }

[[noreturn]] void fail_os(const std::string& path, const std::string& what) {
  const char* kind = errno == ENOENT ? "FileNotFoundError" : errno == EACCES ? "PermissionError" : "OSError";
  fail(kind, path + ": " + what + ": " + errno_text());
}

void write_bytes(int fd, std::string_view bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_os(path, "cannot write");
    done += size_t(n);
  }
}

} // namespace

void write_all(int fd, const Pieces& pieces, const std::string& what) {
  for (std::string_view piece : pieces) write_bytes(fd, piece, what);
}

namespace {
int open_for_reading(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_os(path, "cannot open");
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    fail("IsADirectoryError", path + ": is a directory");
  }
  return fd;
}
} // namespace

std::string read_file(const std::string& path) {
  int fd = open_for_reading(path);
  try {
    std::string out = read_fd(fd, path);
    ::close(fd);
    return out;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

void widen_pipe(int fd) {
#ifdef F_SETPIPE_SZ
  // 1 MiB (Linux's default pipe-max-size) instead of 64 KiB: a 100 MB artifact crosses in
  // 100 wake-ups of each side instead of 1,600. Best effort: a smaller limit just stays.
  (void)::fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#else
  (void)fd;
#endif
}

namespace {

// The read loop of both buffers: sized from the file when it is one (a shell's `< file`), else
// doubled as a pipe delivers (a model's artifact is 100 MB: a bounce buffer or append's
// regrowth would each cost a pass over it). grow(n) makes room for n bytes and returns it.
template <class Grow> size_t read_loop(int fd, const std::string& what, Grow grow) {
  struct stat st {};
  size_t len = 0, cap = size_t(1) << 16;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    off_t at = ::lseek(fd, 0, SEEK_CUR);
    if (at >= 0 && at < st.st_size) cap = size_t(st.st_size - at) + 1; // +1 sees the end at once
  } else if (S_ISFIFO(st.st_mode)) {
    widen_pipe(fd);
  }
  char* buf = grow(cap);
  for (;;) {
    if (len == cap) buf = grow(cap *= 2);
    ssize_t n = ::read(fd, buf + len, cap - len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_os(what, "cannot read");
    if (n == 0) break;
    len += size_t(n);
  }
  return len;
}

} // namespace

std::string read_fd(int fd, const std::string& what) {
  std::string out;
  size_t len = read_loop(fd, what, [&](size_t n) {
    out.reserve(n);
    prefer_huge_pages(out.data(), out.capacity());
    out.resize(n);
    return out.data();
  });
  out.resize(len);
  return out;
}

// Smaller files are read: a mapping costs more than a copy of a few pages.
constexpr off_t kMapFileBytes = off_t(1) << 20;

ReadBuffer::~ReadBuffer() {
  if (data_) ::munmap(data_, capacity_);
}

std::shared_ptr<const ReadBuffer> read_fd_shared(int fd, const std::string& what) {
  auto buf = std::make_shared<ReadBuffer>();
  // A file read whole from its start is mapped, not read: its pages are the page cache's, so
  // 100 MB of a model's weights are neither copied nor written into fresh (zeroed) pages.
  struct stat st {};
  const bool whole_file = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::lseek(fd, 0, SEEK_CUR) == 0;
  const ReadBuffer::FileStamp stamp{uint64_t(st.st_size),
                                    int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
  if (whole_file && st.st_size >= kMapFileBytes) {
    void* p = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      buf->data_ = static_cast<char*>(p);
      buf->size_ = buf->capacity_ = size_t(st.st_size);
      buf->stamp_ = stamp;
      return buf;
    }
  }
  buf->size_ = read_loop(fd, what, [&](size_t n) {
    void* p = buf->data_ ? ::mremap(buf->data_, buf->capacity_, n, MREMAP_MAYMOVE)
                         : ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    buf->data_ = static_cast<char*>(p);
    buf->capacity_ = n;
    prefer_huge_pages(p, n);
    return buf->data_;
  });
  if (whole_file && buf->size_ == stamp.size) buf->stamp_ = stamp;
  return buf;
}

std::shared_ptr<const ReadBuffer> read_file_shared(const std::string& path) {
  int fd = open_for_reading(path);
  try {
    auto out = read_fd_shared(fd, path);
    ::close(fd);
    return out;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

namespace {

// Writes `bytes` to a fresh temporary beside `path` and returns its name; "" when `path` is
// not a regular file (/dev/null, a FIFO): that cannot be replaced and is written in place.
std::string stage(const std::string& path, const Pieces& bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) fail("IsADirectoryError", path + ": is a directory");
    return "";
  }
  static std::atomic<unsigned> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) fail_os(path, "cannot create");
  try {
    write_all(fd, bytes, path);
    if (::close(fd) != 0) fail_os(path, "cannot write");
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  return tmp;
}

void write_in_place(const std::string& path, const Pieces& bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail_os(path, "cannot open");
  try {
    write_all(fd, bytes, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) fail_os(path, "cannot write");
}

} // namespace

namespace {

void write_all_atomic(const std::vector<std::pair<std::string, Pieces>>& files) {
  std::vector<std::string> temps;
  auto discard = [&](size_t from) {
    for (size_t i = from; i < temps.size(); ++i)
      if (!temps[i].empty()) ::unlink(temps[i].c_str());
  };
  try {
    for (const auto& [path, pieces] : files) temps.push_back(stage(path, pieces));
  } catch (...) {
    discard(0);
    throw;
  }
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string& path = files[i].first;
    if (temps[i].empty()) {
      write_in_place(path, files[i].second);
    } else if (::rename(temps[i].c_str(), path.c_str()) != 0) {
      int saved = errno;
      discard(i);
      errno = saved;
      fail_os(path, "cannot replace");
    }
  }
}

} // namespace

void write_files_atomic(const std::vector<std::pair<std::string, std::string_view>>& files) {
  std::vector<std::pair<std::string, Pieces>> pieces;
  for (const auto& [path, bytes] : files) pieces.push_back({path, {bytes}});
  write_all_atomic(pieces);
}

void write_file_atomic(const std::string& path, std::string_view bytes) {
  write_all_atomic({{path, {bytes}}});
}
void write_file_atomic(const std::string& path, const Pieces& pieces) { write_all_atomic({{path, pieces}}); }

} // namespace tg
