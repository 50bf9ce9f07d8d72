// io layer, host memory: a tensor's contents on the host (what .npy files hold and what
// tg-run binds to kernel arguments): dtype, shape and size * itemsize bytes in C order.
#pragma once
#include <cstdint>
#include <vector>

#include "dtype/dtype.h"
#include "shape/shapetracker.h"

namespace tg {

struct HostBuffer {
  DType dtype;
  Shape shape;
  std::vector<uint8_t> data;
};

} // namespace tg
