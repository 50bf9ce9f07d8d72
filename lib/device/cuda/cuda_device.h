// CUDA device (tinygrad's ops_cuda.py): CUDA C++ compiled to PTX by NVRTC, run through the
// driver API; both libraries are loaded at run time, so compiling works with no GPU and no
// driver. The registry's constructor for it.
#pragma once
#include <memory>

#include "device/device.h"

namespace tg {
std::unique_ptr<Device> make_cuda_device();
} // namespace tg
