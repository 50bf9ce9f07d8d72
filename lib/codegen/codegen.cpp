#include "codegen/codegen.h"

#include <map>

#include "codegen/linearizer.h"
#include "codegen/uops.h"
#include "render/render_c.h"
#include "util/error.h"

namespace tg {

RendererOpts renderer_opts_for(const std::string& device) {
  if (device == "CLANG") return RendererOpts{"CLANG", false, false, false};
  fail("RuntimeError", "unknown device '" + device + "' (known: CLANG)");
}

LoweredKernel lower_kernel(const Kernel& k, const std::string& function_name) {
  LoweredKernel out;
  out.name = k.name();
  out.applied_opts = k.applied_opts;
  out.full_shape = k.full_shape();
  out.work = prod(out.full_shape);
  // The first global dimension that is a loop (size-1 dimensions get none) is the outermost.
  for (int d = 0; d < k.first_reduce(); ++d)
    if (out.full_shape[size_t(d)] > 1) {
      out.parallel = out.full_shape[size_t(d)];
      break;
    }

  UOpGraph graph;
  const UOp* sink = linearize_kernel(k, graph);
  out.uops_before_rewrite = uops_to_string(linearize_uops(sink, graph));
  const UOp* rewritten = graph_rewrite(sink, constant_folder(), graph);
  std::vector<const UOp*> uops = linearize_uops(rewritten, graph);
  out.uops = uops_to_string(uops);
  out.src = render_c(function_name.empty() ? out.name : function_name, uops);
  return out;
}

LoweredKernel lower_kernel(const std::vector<LazyOpPtr>& ast, const std::string& device,
                           const CodegenOptions& options, const std::string& function_name) {
  Kernel k(ast, renderer_opts_for(device));
  if (options.optimize) k.hand_coded_optimizations();
  return lower_kernel(k, function_name);
}

Program codegen_schedule(const Schedule& s, const std::string& device, const CodegenOptions& options) {
  renderer_opts_for(device); // reject unknown devices before any work
  Program p;
  p.device = device;
  p.buffers = s.buffers;
  p.inputs = s.inputs;
  p.outputs = s.outputs;
  p.states = s.states;
  std::map<std::string, int> seen; // tinygrad suffixes repeated names: E_4, E_4n1, E_4n2
  for (const ScheduleKernel& sk : s.kernels) {
    LoweredKernel lk = lower_kernel(sk.ast, device, options);
    int n = seen[lk.name]++;
    ProgramKernel pk;
    pk.name = n == 0 ? lk.name : lk.name + "n" + std::to_string(n);
    pk.src = lk.src;
    if (n != 0) {
      std::string from = "void " + lk.name + "(";
      pk.src.replace(pk.src.find(from), from.size(), "void " + pk.name + "(");
    }
    pk.bufs = sk.bufs;
    pk.init = sk.init;
    pk.parallel = lk.parallel;
    pk.work = lk.work;
    p.kernels.push_back(std::move(pk));
  }
  return p;
}

} // namespace tg
