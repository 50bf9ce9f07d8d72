// codegen layer, pipeline: a Schedule becomes a Program for one device's Renderer. Per kernel,
// in order:
//   Kernel (AST -> shapes) -> opts (Optimizer) -> linearize (UOps) -> rewrite (constant
//   folding rules) -> launch form (split range on host targets) -> toposort -> render.
// lower_kernel runs the steps for one AST and keeps what each produced, for tests and
// debugging (tg-codegen can print any stage).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "codegen/estimate.h"
#include "codegen/kernel.h"
#include "codegen/program.h"
#include "codegen/renderer.h"
#include "schedule/schedule.h"

namespace tg {

struct LoweredKernel;
// Which optimizer picks a kernel's opts: none (tinygrad's NOOPT=1), tinygrad 0.9.1's
// hand_coded_optimizations (byte-identical sources), or tg's (host vectors, else tinygrad's).
enum class Optimizer { None, Tinygrad, Tg };

struct CodegenOptions {
  Optimizer optimizer = Optimizer::Tg;
  // Called with each kernel as it is lowered (its place in the schedule, the schedule's kernel,
  // every stage's result): how tg-codegen --print-after sees the stages.
  std::function<void(size_t, const ScheduleKernel&, const LoweredKernel&)> observe{};
  // When set, chooses each distinct kernel's opts instead of `optimizer` (tg-codegen --beam).
  std::function<void(Kernel&, const ScheduleKernel&)> optimize{};
};

// Below this many loop iterations a host kernel runs on one thread (waking threads costs more
// than it saves) and keeps tinygrad's exact source.
constexpr int64_t kMinParallelWork = int64_t(1) << 16;

struct LoweredKernel {
  std::string name; // function name, before any per-program uniquifying suffix
  std::vector<Opt> applied_opts;
  Shape full_shape;                // after opts
  std::string uops_before_rewrite; // linearizer output, toposorted (when stages are kept)
  std::string uops;                // after the rewrite rules, toposorted: what the renderer saw (ditto)
  std::string src;                 // rendered source
  std::vector<std::string> vars;   // int parameters after the buffers (ProgramKernel::vars)
  Shape global_size{1, 1, 1};
  std::vector<int64_t> local_size{1, 1, 1};
  int64_t work = 0;      // prod(full_shape): the loop iterations in all, a cost estimate
  CostEstimate estimate; // tinygrad's op_estimate and mem_estimate
};

// Applies the chosen optimizer to a fresh Kernel.
void optimize_kernel(Kernel& k, Optimizer optimizer);

// Lowers an already built (and possibly hand-optimized) Kernel. keep_stages: also print the UOps
// before and after the rewrite (a tenth of codegen's time; codegen_schedule keeps them for
// CodegenOptions::observe only).
LoweredKernel lower_kernel(const Kernel& k, const Renderer& renderer, const std::string& function_name = "",
                           bool keep_stages = true);

// A lowered (rendered) kernel as a Program holds it, for the schedule's kernel `sk`.
ProgramKernel program_kernel(const LoweredKernel& lk, const ScheduleKernel& sk, std::string name);

// Lowers one kernel AST. `function_name` overrides the kernel's own name in the source.
LoweredKernel lower_kernel(const std::vector<LazyOpPtr>& ast, const Renderer& renderer,
                           const CodegenOptions& options = {}, const std::string& function_name = "");

// Names each kernel as tinygrad does before optimizing ("E_4", "r_64_8"; "custom" for a
// host-filled random buffer), for the schedule artifact and pictures of it.
void name_kernels(Schedule& s);

Program codegen_schedule(const Schedule& s, const Renderer& renderer, const CodegenOptions& options = {});

} // namespace tg
