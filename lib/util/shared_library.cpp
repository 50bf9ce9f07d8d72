#include "util/shared_library.h"

#include <cstdlib>
#include <dlfcn.h>

namespace tg {

void* open_shared_library(const char* env_var, const std::vector<std::string>& names, std::string& error) {
  const char* env = std::getenv(env_var);
  std::vector<std::string> tried = env && *env ? std::vector<std::string>{env} : names;
  for (const std::string& name : tried) {
    if (void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return lib;
    const char* why = dlerror();
    error = why ? why : name + ": cannot load";
  }
  return nullptr;
}

std::vector<std::string> library_names(const std::vector<std::string>& dirs,
                                       const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& dir : dirs)
    for (const std::string& name : names) out.push_back(dir + name);
  return out;
}

} // namespace tg
