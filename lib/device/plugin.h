// device layer, plugins: a device whose library is heavy to load (LLVM's static initialisers
// cost every process ~20 ms) is built as its own shared library beside libtgcore.so and loaded
// when it is first asked for.
#pragma once
#include <memory>
#include <string>

#include "device/device.h"

namespace tg {

// Loads lib<library>.so from the folder libtgcore.so is in and calls `entry` (extern "C",
// returning a new Device). Throws tg::Error("RuntimeError", "<device>: cannot load ...") when
// the plugin is missing or broken.
std::unique_ptr<Device> load_device_plugin(const std::string& device, const std::string& library,
                                           const std::string& entry);

} // namespace tg
