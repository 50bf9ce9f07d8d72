// device layer, registry: device names to devices (LLVM's TargetRegistry). Devices are
// created on first use and live for the process.
#pragma once
#include <string>
#include <vector>

#include "device/device.h"

namespace tg {

// tinygrad's Device.canonicalize: the type upper-cased, an index kept, ":0" dropped
// ("cuda" -> "CUDA", "clang:0" -> "CLANG", "gpu:1" -> "GPU:1").
std::string canonical_device_name(const std::string& name);
// By canonical name; throws tg::Error("RuntimeError", "unknown device 'X' (known: CLANG, LLVM, ...)").
Device& device(const std::string& name);
// The renderer of a device, for codegen (needs no hardware).
inline const Renderer& device_renderer(const std::string& name) { return device(name).renderer(); }
std::vector<std::string> device_names(); // in registration order; the first is the default
std::string default_device();

} // namespace tg
