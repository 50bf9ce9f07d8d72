// LLVM device (tinygrad's ops_llvm.py): UOps to LLVM IR through LLVM's C++ API, compiled in
// process (O2 for the host CPU) and linked by lld into a cached shared object; kernels run on
// this CPU's threads as CLANG's do. No compiler process, ever, and libLLVM is loaded only to
// render or to compile (llvm_plugin.h). The registry's constructor for it.
#pragma once
#include <memory>

#include "device/device.h"

namespace tg {
std::unique_ptr<Device> make_llvm_device();
} // namespace tg
