// device layer: a device is a Renderer, a Compiler, an Allocator and a loader for compiled
// programs behind one name (tinygrad's Compiled(device, allocator, renderer, compiler,
// runtime)). The registry (device/registry.h) maps names to devices; nothing outside
// lib/device/<name>/ and the registry spells a device's name.
//
// Opening a device is lazy: renderer() and compiler() need no hardware (tg-codegen and
// `tg-run --compile-only` work on a machine without the GPU); allocator() and load() open it
// and throw one clear tg::Error when it is not there.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "codegen/program.h"
#include "codegen/renderer.h"

namespace tg {

// Device memory. Handles are opaque: a host pointer on CPU devices, a cl_mem or a
// CUdeviceptr elsewhere; kernels receive them in ProgramKernel::bufs order.
class Allocator {
public:
  virtual ~Allocator() = default;
  virtual void* alloc(size_t bytes) = 0; // zero-filled; throws on failure
  virtual void free(void* buffer) = 0;
  virtual void copyin(void* buffer, const void* host, size_t bytes) = 0;
  virtual void copyout(void* host, const void* buffer, size_t bytes) = 0;
  // The buffer's bytes in this process's memory, where the device's buffers are host memory
  // (CLANG, LLVM): a transport sends and receives them without a copy. nullptr elsewhere.
  virtual void* host_view(void* buffer) { return nullptr; }
};

// A compiled program on disk, in the compile cache: every kernel of a Program in one file
// (a shared object, an object file, a PTX module, an OpenCL binary ...).
struct CompiledProgram {
  std::filesystem::path file;
  bool cache_hit = false;
};

class Compiler {
public:
  virtual ~Compiler() = default;
  // What identifies the compiler and its target for the cache key (compiler version, flags,
  // target CPU or GPU architecture). Cheap after the first call; starts no process.
  virtual std::string identity() const = 0;
  // Compiles every kernel of `p` (cached by content hash); throws tg::Error("RuntimeError",
  // "<compiler> failed: ...") with the compiler's log on failure.
  virtual CompiledProgram compile(const Program& p) const = 0;
};

// One launch: the grid (global_size) and work-group (local_size) in (x, y, z), and the values
// of the kernel's int parameters (ProgramKernel::vars order).
struct LaunchDims {
  std::array<int64_t, 3> global{1, 1, 1};
  std::array<int64_t, 3> local{1, 1, 1};
};

// A compiled program loaded on its device.
class LoadedProgram {
public:
  virtual ~LoadedProgram() = default;
  // Runs kernel `i` of the program. bufs: device handles in ProgramKernel::bufs order; vars:
  // values for ProgramKernel::vars. Asynchronous on devices with a queue.
  virtual void launch(size_t i, void* const* bufs, const int32_t* vars, const LaunchDims& dims) = 0;
  // Waits for every launch so far (a no-op on host devices).
  virtual void synchronize() {}
  // Calls lane(context, l) for every l in [0, lanes) at once, each on its own thread, where the
  // device can (a host device with a thread per lane); a launch() inside runs whole on its lane's
  // thread. False where it cannot: the caller launches one kernel at a time. Lanes must not throw.
  using Lane = void (*)(void* context, int lane);
  virtual bool run_lanes(int lanes, Lane lane, void* context) { return false; }
};

class Device {
public:
  virtual ~Device() = default;
  virtual const std::string& name() const = 0;
  virtual const Renderer& renderer() const = 0;
  virtual const Compiler& compiler() const = 0;
  virtual Allocator& allocator() = 0;
  virtual std::unique_ptr<LoadedProgram> load(const Program& p, const CompiledProgram& compiled) = 0;
};

} // namespace tg
