// runtime layer, the host CPU: what code compiled for "this CPU" (-march=native, LLVM's host
// target) depends on, for compile-cache keys. Read once from /proc/cpuinfo; starts no process.
#pragma once
#include <string>

namespace tg {

// The CPU's model name and feature flags.
const std::string& host_cpu_identity();

} // namespace tg
