#include "runtime/host_cpu.h"

#include <algorithm>
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

// sysfs writes sizes as "2048K" or "1M".
static int64_t parse_size(const std::string& text) {
  char* end = nullptr;
  int64_t n = std::strtoll(text.c_str(), &end, 10);
  if (n <= 0) return 0;
  if (*end == 'K') n <<= 10;
  if (*end == 'M') n <<= 20;
  return n;
}

int64_t host_l2_bytes() {
  static const int64_t bytes = [] {
    if (const char* env = std::getenv("TG_L2_BYTES"); env && *env) return parse_size(env);
    for (int i = 0; i < 8; ++i) {
      std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
      std::ifstream level(dir + "level"), size(dir + "size");
      int l = 0;
      std::string text;
      if (!(level >> l)) break;
      if (l == 2 && size >> text) return parse_size(text);
    }
    return int64_t(1) << 20;
  }();
  return bytes;
}

int64_t host_pack_bytes() { return std::min<int64_t>(host_l2_bytes() / 2, int64_t(1) << 20); }

} // namespace tg
