// runtime layer, running a Program on the host (CLANG): compile every kernel into one shared
// object (cached), dlopen it, allocate every buffer of the program, fill inputs and
// constants, call each kernel once in order (the loops are inside the kernels) and copy the
// outputs back.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "codegen/program.h"
#include "runtime/host_buffer.h"

namespace tg {

// The C translation unit for a whole program: every kernel's source, then one
// `void tg_launch_<name>(void** args)` per kernel that calls it with its buffers.
std::string program_translation_unit(const Program& p);

// A compiled, loaded program: one shared object with every kernel.
class LoadedProgram {
public:
  explicit LoadedProgram(const Program& p);
  ~LoadedProgram();
  LoadedProgram(const LoadedProgram&) = delete;
  LoadedProgram& operator=(const LoadedProgram&) = delete;

  bool cache_hit() const { return cache_hit_; } // the shared object came from the compile cache
  const std::string& library_path() const { return library_; }
  // Calls kernel `i` with its buffer pointers (ProgramKernel::bufs order).
  void launch(size_t i, void** args) const;

private:
  void* handle_ = nullptr;
  std::string library_;
  bool cache_hit_ = false;
  std::vector<void (*)(void**)> launchers_;
};

// Runs `p` with the named inputs. Errors name the input: "missing input 'x'", "input 'x':
// expected shape (4, 8), got (3, 8)", "input 'x': expected dtype float32, got int32".
struct RunOptions {
  std::vector<double>* kernel_seconds = nullptr; // when set: each kernel's best wall time
  int repeat = 1;                                 // launches per kernel when timing
};
std::map<std::string, HostBuffer> run_program(const Program& p, const std::map<std::string, HostBuffer>& inputs,
                                              const RunOptions& options = {});

} // namespace tg
