// runtime layer, running a Program on the host (CLANG): compile every kernel into one shared
// object (cached), dlopen it, allocate every buffer of the program, fill inputs and
// constants, call each kernel once in order (the loops are inside the kernels) and copy the
// outputs back.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "codegen/program.h"
#include "runtime/host_buffer.h"

namespace tg {

// The C translation unit for a whole program: every kernel's source, then one
// `void tg_launch_<name>(void** args)` per kernel that calls it with its buffers. A kernel with
// an independent outermost loop (ProgramKernel::parallel) and enough work is compiled instead
// as `<name>_tgpart`, the same function over the loop range [tg_start, tg_end): its launcher
// passes the full range, and `tg_launch_part_<name>(args, s, e)` a part.
std::string program_translation_unit(const Program& p);
// The same split into at most `most` units of whole kernels (fewer for small programs), to be
// compiled at once and linked into one shared object.
std::vector<std::string> program_translation_units(const Program& p, int most);
// <name>_tgpart's source from a kernel's, or nullopt when its first loop is not
// `for (int V = 0; V < extent; V++)` (then the kernel runs whole).
std::optional<std::string> partial_kernel(const std::string& src, const std::string& name, int64_t extent);

class ThreadPool;

// Below this many loop iterations a kernel runs on one thread (waking the pool costs more)
// and gets no partial variant (which would only add compile time).
constexpr int64_t kMinParallelWork = int64_t(1) << 16;

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
  // Kernel `i` over iterations [start, end) of its outermost loop (needs has_part(i)).
  bool has_part(size_t i) const { return part_launchers_.at(i) != nullptr; }
  void launch_part(size_t i, void** args, int64_t start, int64_t end) const;

private:
  void* handle_ = nullptr;
  std::string library_;
  bool cache_hit_ = false;
  std::vector<void (*)(void**)> launchers_;
  std::vector<void (*)(void**, int, int)> part_launchers_; // nullptr: no partial variant
};

// Runs `p` with the named inputs. Errors name the input: "missing input 'x'", "input 'x':
// expected shape (4, 8), got (3, 8)", "input 'x': expected dtype float32, got int32".
struct RunOptions {
  std::vector<double>* kernel_seconds = nullptr; // when set: each kernel's best wall time
  int repeat = 1;                                // launches per kernel when timing
};
std::map<std::string, HostBuffer> run_program(const Program& p,
                                              const std::map<std::string, HostBuffer>& inputs,
                                              const RunOptions& options = {});

// A program loaded for several steps: compiled once, its buffers allocated once and kept, so
// states (and assigned inputs) carry over from one step to the next. The first step runs the
// init kernels unless load_states() filled the states.
class ProgramRun {
public:
  ProgramRun(const Program& p, const std::map<std::string, HostBuffer>& inputs); // checks the inputs
  ~ProgramRun();
  ProgramRun(const ProgramRun&) = delete;
  ProgramRun& operator=(const ProgramRun&) = delete;

  // Every state of the program, by name, each with its declared shape and dtype.
  void load_states(const std::map<std::string, HostBuffer>& states);
  void step(const RunOptions& options = {});
  std::map<std::string, HostBuffer> outputs() const;
  HostBuffer output(const std::string& name) const;
  std::vector<std::pair<std::string, HostBuffer>> states() const; // in the program's order
  const LoadedProgram& loaded() const { return *loaded_; }

private:
  struct Memory;
  void copy_in(const NamedBuffer& nb, const HostBuffer& hb);
  HostBuffer copy_out(const NamedBuffer& nb) const;
  void launch_range(bool init, const RunOptions& options);
  void launch(size_t i); // whole, or split across the pool

  const Program& p_;
  std::unique_ptr<Memory> mem_;
  std::unique_ptr<LoadedProgram> loaded_;
  std::vector<std::vector<void*>> args_; // each kernel's buffer pointers
  std::vector<bool> in_place_;           // the kernel writes a state or an input
  std::vector<bool> split_;              // the kernel runs split across pool_
  std::unique_ptr<ThreadPool> pool_;     // when any kernel is split and TG_THREADS > 1
  bool states_ready_ = false;
};

} // namespace tg
