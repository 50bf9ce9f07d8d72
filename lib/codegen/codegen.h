// codegen layer, pipeline: a Schedule becomes a Program for one device. Per kernel, in order:
//   Kernel (AST -> shapes) -> opts (hand-coded) -> linearize (UOps) -> rewrite (constant
//   folding rules) -> toposort -> render (C source).
// lower_kernel runs the steps for one AST and keeps what each produced, for tests and
// debugging (tg-codegen can print any stage).
#pragma once
#include <string>
#include <vector>

#include "codegen/kernel.h"
#include "codegen/program.h"
#include "schedule/schedule.h"

namespace tg {

struct CodegenOptions {
  bool optimize = true; // apply hand_coded_optimizations (tinygrad's NOOPT=0)
};

struct LoweredKernel {
  std::string name; // function name, before any per-program uniquifying suffix
  std::vector<Opt> applied_opts;
  Shape full_shape;                // after opts
  std::string uops_before_rewrite; // linearizer output, toposorted
  std::string uops;                // after the rewrite rules, toposorted: what the renderer saw
  std::string src;                 // rendered source
  // The extent of the outermost loop when it is a global (output) dimension, whose
  // iterations write disjoint outputs and may run on several threads; 0 when it is not.
  int64_t parallel = 0;
  int64_t work = 0; // prod(full_shape): the loop iterations in all, a cost estimate
};

// Known devices and their renderer options; throws tg::Error("RuntimeError", "unknown device
// 'X' (known: CLANG)").
RendererOpts renderer_opts_for(const std::string& device);

// Lowers an already built (and possibly hand-optimized) Kernel.
LoweredKernel lower_kernel(const Kernel& k, const std::string& function_name = "");

// Lowers one kernel AST. `function_name` overrides the kernel's own name in the source.
LoweredKernel lower_kernel(const std::vector<LazyOpPtr>& ast, const std::string& device,
                           const CodegenOptions& options = {}, const std::string& function_name = "");

Program codegen_schedule(const Schedule& s, const std::string& device, const CodegenOptions& options = {});

} // namespace tg
