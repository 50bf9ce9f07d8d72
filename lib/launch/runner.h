// launch layer, running a Program on its device (device/registry.h): compile it (cached),
// load it, allocate every buffer of the program, fill inputs and constants, launch each
// kernel in order with its buffers, launch sizes and int parameters, and copy the outputs
// back.
#pragma once
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "codegen/program.h"
#include "device/device.h"
#include "dist/nccl.h"
#include "dist/transport.h"
#include "io/host_buffer.h"
#include "launch/lanes.h"
#include "launch/dist_plan.h"

namespace tg {

// tg-run --var NAME=VALUE: gives the program's symbolic variable NAME that value (a ValueError
// for an unknown name, a malformed assignment or a value outside the variable's range), then
// checks the program again at the new values (its kernels' reach against the buffers).
void set_program_vars(Program& p, const std::vector<std::string>& assignments);

// Compiles `p` for its device (or takes it from the compile cache) without running anything.
CompiledProgram compile_program(const Program& p);

// Runs `p` with the named inputs. Errors name the input: "missing input 'x'", "input 'x':
// expected shape (4, 8), got (3, 8)", "input 'x': expected dtype float32, got int32".
// One kernel launch as --profile records it: which kernel, in which step, when (µs since the
// run's start) and for how long.
struct KernelEvent {
  size_t kernel = 0;
  int64_t step = 0;
  double start_us = 0, duration_us = 0;
  // Not a launch but the moves of buffers between processes before kernel `kernel` (tg-run
  // --dist): "allgather" (one collective) or "point-to-point", and the bytes this process sent
  // and received.
  std::string transfer{};
  size_t bytes = 0;
  int lane = -1; // where the program's devices ran at once: the thread (lane) that launched it
};

struct RunOptions {
  std::vector<double>* kernel_seconds = nullptr; // when set: each kernel's best wall time
  std::vector<KernelEvent>* events = nullptr;    // when set: every launch, each waited for
  int repeat = 1;                                // launches per kernel when timing
  double give_up = 0; // when timing: no more launches of a kernel once one took longer (s; 0: never)
};
std::map<std::string, HostBuffer> run_program(const Program& p,
                                              const std::map<std::string, HostBuffer>& inputs,
                                              const RunOptions& options = {});

// One run spread over the processes of a transport (tg-run --dist): each process runs the
// kernels of the devices placed on it, and a kernel that reads a buffer of a device placed
// elsewhere receives it from that device's process first.
struct Distribution {
  Transport* transport = nullptr;
  Placement placement{1};
};

// A program loaded for several steps: compiled once, its buffers allocated once and kept, so
// states (and assigned inputs) carry over from one step to the next. The first step runs the
// init kernels unless load_states() filled the states.
//
// Distributed (`dist`), each process holds the buffers of its devices and those its kernels
// read; it is given only the inputs and loads only the states its devices own
// (owns_input/owns_state). outputs(), output() and states() gather to rank 0, and every
// process must call them, in the same order; other ranks get nothing back.
class ProgramRun {
public:
  // Checks the inputs. `trusted_extents`: the kernels' extents are tg-codegen's (io/known_programs.h),
  // so an intermediate buffer is allocated at what its kernels touch, not at what the table
  // declares; a foreign program's extents may understate, and its buffers get their full size.
  ProgramRun(const Program& p, const std::map<std::string, HostBuffer>& inputs, bool trusted_extents = false,
             const Distribution* dist = nullptr);
  bool owns_input(const std::string& name) const;
  bool owns_state(const std::string& name) const;
  bool is_root() const { return rank_ == 0; }
  ~ProgramRun();
  ProgramRun(const ProgramRun&) = delete;
  ProgramRun& operator=(const ProgramRun&) = delete;

  // Every state of the program, by name, each with its declared shape and dtype.
  void load_states(const std::map<std::string, HostBuffer>& states);
  // Binds input `name` anew before the next step (tg-run --per-step); checked as at construction.
  void set_input(const std::string& name, const HostBuffer& value);
  void step(const RunOptions& options = {});
  std::map<std::string, HostBuffer> outputs() const;
  HostBuffer output(const std::string& name) const;
  std::vector<std::pair<std::string, HostBuffer>> states() const; // in the program's order
  bool cache_hit() const { return compiled_.cache_hit; }          // the compile came from the cache
  // When the run began on the steady clock (µs): KernelEvent::start_us counts from it.
  double start_us() const {
    return std::chrono::duration<double, std::micro>(start_.time_since_epoch()).count();
  }

private:
  struct Memory;
  void copy_in(const NamedBuffer& nb, const HostBuffer& hb);
  HostBuffer copy_out(const NamedBuffer& nb) const;
  void launch_range(bool init, const RunOptions& options);
  void launch(size_t i);
  void fill_random(size_t i);
  bool owns(int buffer) const; // its device is placed on this process (a constant: on all)
  void exchange_reads(size_t pos, std::vector<KernelEvent>* events); // pos: in order_
  std::vector<size_t> order_;       // the kernels in the order this run launches them
  std::vector<Exchange> exchanges_; // --dist: what moves before each position of order_
  bool run_lanes(const LanePlan& plan, std::vector<KernelEvent>* events);
  LanePlan lanes_[2];                             // the step's kernels and the init kernels (lanes.h)
  std::unique_ptr<NcclComm> nccl_;                // a CUDA program across processes, where NCCL loads
  HostBuffer gather(const NamedBuffer& nb) const; // to rank 0

  const Program& p_;
  Device& device_;
  CompiledProgram compiled_;
  std::unique_ptr<Memory> mem_;
  std::unique_ptr<LoadedProgram> loaded_;
  std::vector<std::vector<void*>> args_;   // each kernel's buffer handles
  std::vector<std::vector<int32_t>> vars_; // each kernel's int parameters
  std::vector<LaunchDims> dims_;
  std::optional<Program> device_program_; // p_ less its random kernels, when it has some
  std::vector<int> device_index_;         // each kernel's index in the device's program; -1: random
  std::vector<bool> in_place_;            // the kernel writes a state or an input
  bool states_ready_ = false;
  const Distribution* dist_ = nullptr;
  int rank_ = 0;
  DistLayout layout_; // each buffer's and kernel's process (all 0 in one process), buffer bytes
  int64_t steps_run_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

} // namespace tg
