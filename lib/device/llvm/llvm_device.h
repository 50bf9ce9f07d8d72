// LLVM device (tinygrad's ops_llvm.py): UOps to LLVM IR through LLVM's C++ API, compiled in
// process to an object for the host CPU and loaded with ORC; kernels run on this CPU's threads
// as CLANG's do. No compiler process, ever. Built as the plugin libtg-llvm.so (with libLLVM),
// which the registry loads on first use (device/plugin.h).
#pragma once

#include "device/device.h"

// The plugin's entry point: a new LLVM device, owned by the caller.
extern "C" tg::Device* tg_make_llvm_device();
