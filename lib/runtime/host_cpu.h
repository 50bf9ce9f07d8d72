// runtime layer, the host CPU: what code compiled for "this CPU" (-march=native, LLVM's host
// target) depends on, for compile-cache keys. Read once from /proc/cpuinfo; starts no process.
#pragma once
#include <cstdint>
#include <string>

namespace tg {

// The CPU's model name and feature flags.
const std::string& host_cpu_identity();

// float32 lanes of the widest vector registers the CPU has (AVX-512: 16, AVX: 8, else 4): the
// width of the vectors host kernels are rendered with. TG_VECTOR_LANES overrides it (0: none).
int host_vector_floats();

// Bytes of the L2 cache one core has (sysfs), the budget of the panels a host kernel packs
// (codegen/pack_panels.h); 1 MiB where sysfs does not say. TG_L2_BYTES overrides it (tests,
// and code generated for another machine).
int64_t host_l2_bytes();

// The bytes of local arrays a host kernel may pack (codegen/pack_panels.h): half of L2 keeps a
// panel there while the rows of the other operand stream past it; at most 1 MiB, as the arrays
// live on the stack of the thread that runs the kernel.
int64_t host_pack_bytes();

} // namespace tg
