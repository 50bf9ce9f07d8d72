// Device names as tinygrad writes them, for every layer that names a device (the lazy graph's
// nodes, the registry, scripts).
#pragma once
#include <string>

namespace tg {

// tinygrad's Device.canonicalize: the type upper-cased, an index kept, ":0" dropped
// ("cuda" -> "CUDA", "clang:0" -> "CLANG", "gpu:1" -> "GPU:1").
std::string canonical_device_name(const std::string& name);

} // namespace tg
