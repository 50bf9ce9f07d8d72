// runtime layer, the host CPU: what code compiled for "this CPU" (-march=native, LLVM's host
// target) depends on, for compile-cache keys. Read once from /proc/cpuinfo; starts no process.
#pragma once
#include <string>

namespace tg {

// The CPU's model name and feature flags.
const std::string& host_cpu_identity();

// float32 lanes of the widest vector registers the CPU has (AVX-512: 16, AVX: 8, else 4): the
// width of the vectors host kernels are rendered with. TG_VECTOR_LANES overrides it (0: none).
int host_vector_floats();

} // namespace tg
