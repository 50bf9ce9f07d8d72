// util layer: the shared libraries tg loads at run time (NVRTC, NCCL), found one way.
#pragma once
#include <string>
#include <vector>

namespace tg {

// The library $env_var names when it is set (an explicit choice: no fallback that could hide a
// wrong path), else the first of `names` that loads (RTLD_NOW | RTLD_LOCAL, never closed).
// nullptr when none loads; `error` gets dlerror()'s message for the last one tried.
void* open_shared_library(const char* env_var, const std::vector<std::string>& names, std::string& error);

// `names` under each of `dirs` ("" for the loader's own search path), in that order.
std::vector<std::string> library_names(const std::vector<std::string>& dirs,
                                       const std::vector<std::string>& names);

} // namespace tg
