// GPU device (tinygrad's ops_gpu.py): OpenCL C through the ICD loader; PoCL runs it on the CPU
// where there is no GPU. The registry's constructor for it.
#pragma once
#include <memory>

#include "device/device.h"

namespace tg {
std::unique_ptr<Device> make_opencl_device();
} // namespace tg
