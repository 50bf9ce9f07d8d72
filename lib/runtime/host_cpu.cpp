#include "runtime/host_cpu.h"

#include <cstdlib>
#include <fstream>
#include <string>

namespace tg {

const std::string& host_cpu_identity() {
  static const std::string id = [] {
    std::ifstream f("/proc/cpuinfo");
    std::string line, model, flags;
    while (std::getline(f, line) && (model.empty() || flags.empty())) {
      if (model.empty() && line.rfind("model name", 0) == 0) model = line;
      if (flags.empty() && line.rfind("flags", 0) == 0) flags = line;
    }
    return model + "\n" + flags;
  }();
  return id;
}

int host_vector_floats() {
  static const int lanes = [] {
    if (const char* env = std::getenv("TG_VECTOR_LANES"); env && *env) {
      int n = std::atoi(env);
      return n == 4 || n == 8 || n == 16 ? n : 0;
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 16;
    if (__builtin_cpu_supports("avx")) return 8;
#endif
    return 4;
  }();
  return lanes;
}

} // namespace tg
