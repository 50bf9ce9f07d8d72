// io layer, a data set for training steps: a .npy array with one more leading axis than a
// program's input, memory-mapped and read one slice per step (tg-run --per-step), so that a data
// set larger than memory streams from disk.
#pragma once
#include <cstdint>
#include <string>

#include "io/host_buffer.h"
#include "io/npy.h"

namespace tg {

class NpySteps {
public:
  explicit NpySteps(const std::string& path); // maps the file; a tg::Error naming it when it is not .npy
  ~NpySteps();
  NpySteps(const NpySteps&) = delete;
  NpySteps& operator=(const NpySteps&) = delete;

  int64_t steps() const { return view_.shape.empty() ? 0 : int64_t(view_.shape[0]); }
  DType dtype() const { return view_.dtype; }
  Shape step_shape() const {
    return Shape(view_.shape.begin() + (view_.shape.empty() ? 0 : 1), view_.shape.end());
  }
  // Slice i, little-endian and in C order (a Fortran-ordered or big-endian file converts its slice).
  HostBuffer step(int64_t i) const;

private:
  std::string path_;
  void* map_ = nullptr;
  size_t map_size_ = 0;
  NpyView view_;
};

} // namespace tg
