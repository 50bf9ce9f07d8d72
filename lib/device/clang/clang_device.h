// CLANG device: the registry's constructor for it.
#pragma once
#include <memory>

#include "device/device.h"

namespace tg {
std::unique_ptr<Device> make_clang_device();
} // namespace tg
