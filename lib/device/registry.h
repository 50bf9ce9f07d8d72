// device layer, registry: device names to devices (LLVM's TargetRegistry). Devices are
// created on first use and live for the process.
#pragma once
#include <string>
#include <vector>

#include "device/device.h"
#include "util/device_name.h"

namespace tg {

// By canonical name; throws tg::Error("RuntimeError", "unknown device 'X' (known: CLANG, LLVM, ...)").
Device& device(const std::string& name);
// The renderer of a device, for codegen (needs no hardware).
inline const Renderer& device_renderer(const std::string& name) { return device(name).renderer(); }
std::vector<std::string> device_names(); // in registration order; the first is the default
std::string default_device();

} // namespace tg
