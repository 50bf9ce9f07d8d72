#include "io/npy_steps.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

namespace tg {

NpySteps::NpySteps(const std::string& path) : path_(path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("FileNotFoundError", path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail("ValueError", path + ": not a regular file (--per-step maps its data)");
  }
  map_size_ = size_t(st.st_size);
  if (map_size_ > 0) map_ = ::mmap(nullptr, map_size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    fail("OSError", path + ": cannot map: " + std::strerror(errno));
  }
  try {
    view_ = view_npy(std::string_view(static_cast<const char*>(map_), map_size_), path);
  } catch (...) {
    if (map_) ::munmap(map_, map_size_);
    throw;
  }
  if (view_.shape.empty())
    fail("ValueError", path + ": a 0-d array has no steps (--per-step needs a leading axis)");
  if (map_) ::madvise(map_, map_size_, MADV_SEQUENTIAL);
}

NpySteps::~NpySteps() {
  if (map_) ::munmap(map_, map_size_);
}

HostBuffer NpySteps::step(int64_t i) const {
  if (i < 0 || i >= steps())
    fail("IndexError", path_ + ": step " + std::to_string(i) + " of " + std::to_string(steps()));
  Shape shape = step_shape();
  size_t slice = view_.bytes / size_t(steps());
  NpyView v = view_;
  v.shape = shape;
  if (!view_.fortran_order) {
    v.data = view_.data + size_t(i) * slice;
    v.bytes = slice;
    return npy_view_to_buffer(v);
  }
  // Fortran order: the leading axis varies fastest, so a slice is every steps()-th element.
  int item = itemsize(view_.dtype);
  size_t n = slice / size_t(item);
  std::vector<uint8_t> gathered(slice);
  for (size_t e = 0; e < n; ++e)
    std::memcpy(gathered.data() + e * size_t(item),
                view_.data + (e * size_t(steps()) + size_t(i)) * size_t(item), size_t(item));
  v.data = gathered.data();
  v.bytes = slice;
  v.fortran_order = shape.size() > 1; // the gathered slice is the remaining axes in Fortran order
  return npy_view_to_buffer(v);
}

} // namespace tg
