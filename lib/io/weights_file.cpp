#include "io/weights_file.h"

#include <climits>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sys/stat.h>

#include "util/error.h"

namespace tg {

namespace {

struct Shared {
  std::weak_ptr<const ReadBuffer> buffer;
  std::string path;
  ReadBuffer::FileStamp stamp;
};

// The weights files of this process, by the address their bytes start at; and the files that
// references were resolved from, by path, so each is read once.
struct Registry {
  std::mutex mutex;
  std::map<const char*, Shared> by_address;
  std::map<std::string, std::weak_ptr<const ReadBuffer>> by_path;
  bool embed = false;
};
Registry& registry() {
  static Registry r;
  return r;
}

std::string absolute(const std::string& path) {
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved)) return resolved;
  return path; // cannot happen for a file just read; the reference then fails clearly later
}

void enter(Registry& r, const std::shared_ptr<const ReadBuffer>& buffer, std::string path) {
  r.by_address[buffer->view().data()] = Shared{buffer, std::move(path), *buffer->file_stamp()};
}

} // namespace

void share_weights_file(const std::shared_ptr<const ReadBuffer>& buffer, const std::string& path) {
  if (!buffer || !buffer->file_stamp() || buffer->view().empty()) return;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  enter(r, buffer, absolute(path));
}

std::optional<FileSpan> weights_span(const uint8_t* data, size_t size) {
  if (size < kReferencedBytes) return std::nullopt;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (r.embed || r.by_address.empty()) return std::nullopt;
  const char* at = reinterpret_cast<const char*>(data);
  auto it = r.by_address.upper_bound(at);
  if (it == r.by_address.begin()) return std::nullopt;
  --it;
  auto buffer = it->second.buffer.lock();
  if (!buffer) { // gone: its address may be another buffer's now
    r.by_address.erase(it);
    return std::nullopt;
  }
  std::string_view v = buffer->view();
  if (at + size > v.data() + v.size()) return std::nullopt;
  return FileSpan{it->second.path, uint64_t(at - v.data()), size, it->second.stamp.size,
                  it->second.stamp.mtime_ns};
}

Blob weights_blob(const FileSpan& span) {
  static const std::string changed =
      " has changed since it was traced, and an artifact's constants are in it: run "
      "tg-trace again (or trace with --embed-weights to carry the weights)";
  Registry& r = registry();
  std::shared_ptr<const ReadBuffer> buffer;
  {
    std::lock_guard lock(r.mutex);
    if (auto it = r.by_path.find(span.path); it != r.by_path.end()) buffer = it->second.lock();
  }
  auto matches = [&] {
    const auto& s = buffer->file_stamp();
    return s && s->size == span.file_size && s->mtime_ns == span.mtime_ns;
  };
  if (!buffer || !matches()) {
    // a regular file of the recorded size first: a crafted path (/dev/zero, a FIFO) must not be
    // read at all
    struct stat st {};
    if (::stat(span.path.c_str(), &st) == 0 &&
        (!S_ISREG(st.st_mode) || uint64_t(st.st_size) != span.file_size))
      fail("RuntimeError", span.path + changed);
    try {
      buffer = read_file_shared(span.path);
    } catch (const Error& e) {
      throw Error(e.kind(), std::string(e.what()) +
                                " (an artifact's constants are in that file; trace with --embed-weights to "
                                "carry them instead)");
    }
    if (!matches()) fail("RuntimeError", span.path + changed);
    std::lock_guard lock(r.mutex);
    r.by_path[span.path] = buffer;
    enter(r, buffer, span.path);
  }
  const auto* base = reinterpret_cast<const uint8_t*>(buffer->view().data());
  return Blob(buffer, base + span.offset, size_t(span.size));
}

void set_embed_weights(bool embed) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.embed = embed;
}

} // namespace tg
