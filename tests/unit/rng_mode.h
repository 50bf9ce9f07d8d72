// For one test: rand() with THREEFRY on or off (tinygrad's helpers.THREEFRY), restored after.
#pragma once
#include "tensor/tensor.h"

struct RngMode {
  bool was = tg::Tensor::threefry();
  explicit RngMode(bool threefry) { tg::Tensor::set_threefry(threefry); }
  ~RngMode() { tg::Tensor::set_threefry(was); }
  RngMode(const RngMode&) = delete;
  RngMode& operator=(const RngMode&) = delete;
};
