#include "device/plugin.h"

#include <dlfcn.h>
#include <filesystem>

#include "util/error.h"

namespace tg {

namespace {
// The folder of the shared object this function is in: libtgcore.so's.
std::filesystem::path core_library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&core_library_dir), &info) == 0 || !info.dli_fname) return {};
  return std::filesystem::path(info.dli_fname).parent_path();
}
} // namespace

void* load_plugin_entry(const std::string& device, const std::string& library, const std::string& entry) {
  std::filesystem::path path = core_library_dir() / ("lib" + library + ".so");
  // Kept loaded for the process: what it made lives as long.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    fail("RuntimeError", device + ": cannot load the device's library " + path.string() + ": " + dlerror());
  void* make = dlsym(handle, entry.c_str());
  if (!make) fail("RuntimeError", device + ": " + path.string() + " has no " + entry);
  return make;
}

} // namespace tg
