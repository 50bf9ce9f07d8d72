// LLVM device (tinygrad's ops_llvm.py): UOps to LLVM IR through LLVM's C++ API, compiled in
// process to an object for the host CPU and loaded with ORC; kernels run on this CPU's threads
// as CLANG's do. No compiler process, ever. The registry's constructor for it.
#pragma once
#include <memory>

#include "device/device.h"

namespace tg {
std::unique_ptr<Device> make_llvm_device();
} // namespace tg
