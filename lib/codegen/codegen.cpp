#include "codegen/codegen.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "codegen/ast_key.h"
#include "codegen/linearizer.h"
#include "codegen/pack_panels.h"
#include "codegen/sink_loads.h"
#include "codegen/uops.h"
#include "shape/symbolic.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/printable.h"

namespace tg {

namespace {

// The extent of the outermost loop when it is a global (output) dimension, whose iterations
// write disjoint outputs; 0 when there is none.
int64_t outer_global_extent(const Kernel& k) {
  const Shape& full = k.full_shape();
  for (int d = 0; d < k.global_dims(); ++d)
    if (full[size_t(d)].max() > 1)
      return full[size_t(d)].max(); // (symbolic: its largest; the kernel stops at n)
  return 0;
}

// Host targets: the outermost global loop runs over [core_start, min(core_end, n)), two int
// parameters, so the runtime can hand parts of the range to threads. Any rewrite valid over the
// whole range stays valid over a part of it. The kernel keeps its own bound n, so a launch size
// that disagrees with it (an edited program) can neither run past the buffers nor skip work: the
// runtime gives the last part an open end.
const UOp* split_outer_loop(const UOp* sink, UOpGraph& g) {
  const UOp* start = g.make(UOps::DEFINE_VAR, DType::Int32, {}, VarArg{kSplitStartVar, 0, 0});
  const UOp* end = g.make(UOps::DEFINE_VAR, DType::Int32, {}, VarArg{kSplitEndVar, 0, 0});
  UPat range;
  range.op = UOps::RANGE;
  RewriteRule rule{"outer RANGE(0, n) -> RANGE(core_start, min(core_end, n))", range,
                   [&](const Bindings&, const UOp* root, UOpGraph& graph) -> const UOp* {
                     const LoopArg& la = std::get<LoopArg>(root->arg);
                     if (la.depth != 1 || la.index != 0 || !root->src[0]->is_const()) return nullptr;
                     const UOp* n = root->src[1];
                     const UOp* bounded = graph.alu(Op::WHERE, {graph.alu(Op::CMPLT, {end, n}), end, n});
                     return graph.make(UOps::RANGE, root->dtype, {start, bounded}, root->arg);
                   }};
  PatternMatcher pm({rule});
  return graph_rewrite(sink, pm, g);
}

// Bytes of each kernel buffer its views can reach (highest index + 1, times the item size):
// tg-run refuses a buffer table that gives a buffer less (the program's "extents"). Iterative,
// since kernel ASTs can be thousands of ops deep.
Shape buffer_extents(const ScheduleKernel& sk) {
  Shape extents(sk.bufs.size(), 0);
  std::vector<const LazyOp*> stack;
  std::unordered_set<const LazyOp*> seen;
  for (const LazyOpPtr& root : sk.ast) stack.push_back(root.get());
  while (!stack.empty()) {
    const LazyOp* op = stack.back();
    stack.pop_back();
    if (!seen.insert(op).second) continue;
    for (const LazyOpPtr& s : op->src) stack.push_back(s.get());
    const MemBuffer* mb = std::get_if<MemBuffer>(&op->arg);
    if (!mb || mb->idx < 0 || size_t(mb->idx) >= extents.size()) continue;
    auto range = index_range(mb->st.views.front());
    if (!range) continue;
    if (range->first < 0)
      fail("RuntimeError", "kernel reads below the start of buffer " + std::to_string(mb->idx));
    sint end = index_end(mb->st.views.front()), &have = extents[size_t(mb->idx)];
    sint bytes = end.is_int() ? sint(size_mul(int64_t(end), int64_t(itemsize(mb->dtype))))
                              : end * int64_t(itemsize(mb->dtype));
    // (two symbolic extents of one buffer: the one reaching further at the variables' largest)
    if (bytes.max() > have.max()) have = bytes;
  }
  return extents;
}

template <class D> D dims3(const D& d) {
  D out{1, 1, 1};
  for (size_t i = 0; i < d.size() && i < 3; ++i) out[i] = d[i];
  return out;
}

// tinygrad's custom_random: nothing to compile; tg-run fills the buffer on the host.
ProgramKernel random_kernel(const ScheduleKernel& sk, const Schedule& s) {
  const ConstBuffer& cb = std::get<ConstBuffer>(sk.ast[0]->arg);
  ProgramKernel pk;
  pk.name = "custom_random";
  pk.custom = "random";
  pk.seed = cb.val.as_int();
  pk.bufs = sk.bufs;
  for (size_t i = 0; i < sk.bufs.size(); ++i) {
    const BufferInfo& b = s.buffers.at(size_t(sk.bufs[i]));
    pk.extents.push_back(i == 0 ? size_mul(b.size, int64_t(itemsize(b.dtype))) : int64_t(8));
  }
  pk.init = sk.init;
  pk.work = prod(cb.st.shape());
  pk.mem_estimate = pk.extents[0];
  return pk;
}

// A kernel lowered to its final UOps, which stay alive in `graph` so that the same AST under
// another name is only rendered again.
struct LinearUOps {
  std::unique_ptr<UOpGraph> graph = std::make_unique<UOpGraph>();
  std::vector<const UOp*> uops;
};

} // namespace

void optimize_kernel(Kernel& k, Optimizer optimizer) {
  const Shape& full = k.full_shape(); // an empty kernel (a zero-length prompt) has nothing to optimize
  if (std::any_of(full.begin(), full.end(), [](const sint& d) { return d == 0; })) return;
  // A kernel with symbolic dimensions optimizes its int axes, as tinygrad's does: an opt that
  // would split a symbolic axis reads it as an int, which throws, and then the kernel runs as
  // lowered (its loops' lengths are only known at launch).
  if (!all_int(full)) {
    const Kernel plain = k;
    try {
      if (optimizer == Optimizer::Tinygrad) k.hand_coded_optimizations();
      if (optimizer == Optimizer::Tg) k.host_optimizations();
    } catch (const Error&) {
      k = plain;
    }
    return;
  }
  // (as tinygrad's get_kernel: tensor cores first, on targets that have them)
  if (optimizer != Optimizer::None && k.apply_tensor_cores(tc_setting())) return;
  if (optimizer == Optimizer::Tinygrad) k.hand_coded_optimizations();
  if (optimizer == Optimizer::Tg) k.host_optimizations();
}

namespace {

// TG_PACK=0 turns panel packing off (to measure what it buys).
bool packing_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("TG_PACK");
    return !(v && std::string(v) == "0");
  }();
  return on;
}

// Every step of lower_kernel but the rendering.
LoweredKernel lower_to_uops(const Kernel& k, const Renderer& renderer, bool keep_stages, LinearUOps& lu) {
  LoweredKernel out;
  out.name = k.name();
  out.applied_opts = k.applied_opts;
  out.full_shape = k.full_shape();
  out.work = prod(out.full_shape);

  UOpGraph& graph = *lu.graph;
  LinearizedKernel lin = linearize_kernel(k, graph);
  if (keep_stages) out.uops_before_rewrite = uops_to_string(linearize_uops(lin.sink, graph));
  const UOp* rewritten = graph_rewrite(lin.sink, constant_folder(), graph);
  // A loop-collapsed value that is not summed on its own keeps its UNMUL, which no device can
  // run (tinygrad 0.9.1 fails to render it); such a kernel keeps its loop instead.
  if (graph_has(rewritten, UOps::UNMUL)) rewritten = graph_rewrite(lin.sink, constant_folder(false), graph);
  out.global_size = dims3(lin.global_size);
  out.local_size = dims3(lin.local_size);
  int64_t outer = outer_global_extent(k);
  if (renderer.opts().splits_outer_loop && outer >= 2 && out.work >= kMinParallelWork) {
    rewritten = split_outer_loop(rewritten, graph);
    out.global_size = {outer, 1, 1};
  }
  std::vector<const UOp*> uops = linearize_uops(rewritten, graph);
  int64_t run_count = 1; // work-items; a host kernel's loops are all in its UOps
  if (renderer.opts().has_local) run_count = prod(out.global_size) * prod(shape_from_ints(out.local_size));
  out.estimate = kernel_estimate(*k.ast.at(0), uops, run_count);
  // (after the estimate: a packing copy is not the kernel's work)
  if (renderer.opts().pack_panel_bytes && packing_enabled())
    pack_panels(uops, graph, renderer.opts().pack_panel_bytes);
  // (host kernels with vector lanes: tg's optimizer only, never tinygrad's exact source)
  if (renderer.opts().pack_panel_bytes && k.lanes > 1) sink_loads_past_loops(uops);
  if (keep_stages) out.uops = uops_to_string(uops);
  for (const UOp* u : uops)
    if (u->op == UOps::DEFINE_VAR) out.vars.push_back(std::get<VarArg>(u->arg).name);
  lu.uops = std::move(uops);
  return out;
}

} // namespace

LoweredKernel lower_kernel(const Kernel& k, const Renderer& renderer, const std::string& function_name,
                           bool keep_stages) {
  LinearUOps lu;
  LoweredKernel out = lower_to_uops(k, renderer, keep_stages, lu);
  out.src = renderer.render(function_name.empty() ? out.name : function_name, lu.uops);
  return out;
}

ProgramKernel program_kernel(const LoweredKernel& lk, const ScheduleKernel& sk, std::string name) {
  ProgramKernel pk;
  pk.name = std::move(name);
  pk.src = lk.src;
  pk.bufs = sk.bufs;
  pk.extents = buffer_extents(sk);
  pk.vars = lk.vars;
  pk.global_size = lk.global_size;
  pk.local_size = lk.local_size;
  pk.init = sk.init;
  pk.work = lk.work;
  pk.op_estimate = lk.estimate.flops;
  pk.mem_estimate = lk.estimate.mem;
  return pk;
}

LoweredKernel lower_kernel(const std::vector<LazyOpPtr>& ast, const Renderer& renderer,
                           const CodegenOptions& options, const std::string& function_name) {
  Kernel k(ast, renderer.opts());
  optimize_kernel(k, options.optimizer);
  return lower_kernel(k, renderer, function_name);
}

namespace {
// A schedule's device name as the program's device type names it.
std::string program_device(const std::string& device, const std::string& type) {
  if (device.empty()) return device;
  size_t colon = device.find(':');
  std::string t = device.substr(0, colon), index = colon == std::string::npos ? "" : device.substr(colon);
  if (t != "CLANG" && t != type)
    fail("RuntimeError", "the schedule places a buffer on " + printable(device) +
                             ", but a program runs on one device type (" + type +
                             "); programs that mix device types are not supported");
  // a script's Device.DEFAULT is CLANG: its CLANG:N are the program device's N
  std::string out = type + index;
  return out == type ? "" : out;
}
} // namespace

void name_kernels(Schedule& s) {
  for (ScheduleKernel& sk : s.kernels)
    sk.name = sk.ast.size() == 1 && sk.ast[0]->op == Op::CUSTOM ? "custom" : Kernel(sk.ast).name();
}

Program codegen_schedule(const Schedule& s, const Renderer& renderer, const CodegenOptions& options) {
  Program p;
  p.device = renderer.opts().device;
  p.buffers = s.buffers;
  for (BufferInfo& b : p.buffers) b.device = program_device(b.device, p.device);
  p.inputs = s.inputs;
  p.outputs = s.outputs;
  p.states = s.states;
  p.vars = s.vars;
  const size_t n = s.kernels.size();
  auto is_custom = [&](size_t i) {
    return s.kernels[i].ast.size() == 1 && s.kernels[i].ast[0]->op == Op::CUSTOM;
  };
  // Kernels with the same AST optimize and lower alike: do it once each (ResNet-50: 599
  // kernels, 133 distinct), and render again only for the name.
  std::vector<size_t> distinct_of(n, 0);
  std::vector<size_t> first_of; // schedule index of each distinct kernel's first use
  std::unordered_map<std::string, size_t> by_key;
  for (size_t i = 0; i < n; i++) {
    if (is_custom(i)) continue;
    auto [it, fresh] = by_key.try_emplace(ast_key(s.kernels[i].ast), first_of.size());
    if (fresh) first_of.push_back(i);
    distinct_of[i] = it->second;
  }
  // Distinct kernels share nothing but the interned symbolic nodes, so they lower in parallel.
  // A search (BEAM) times candidates on the machine: one kernel at a time.
  const int threads = options.optimize ? 1 : host_threads();
  std::vector<std::pair<LoweredKernel, LinearUOps>> lowered(first_of.size());
  std::vector<std::exception_ptr> lower_errors = parallel_for(first_of.size(), threads, [&](size_t d) {
    const ScheduleKernel& sk = s.kernels[first_of[d]];
    reset_symbolic_memo(); // the same source whatever was lowered before, on whichever thread
    Kernel k(sk.ast, renderer.opts());
    if (options.optimize)
      options.optimize(k, sk);
    else
      optimize_kernel(k, options.optimizer);
    lowered[d].first = lower_to_uops(k, renderer, bool(options.observe), lowered[d].second);
  });
  std::map<std::string, int> seen; // tinygrad suffixes repeated names: E_4, E_4n1, E_4n2
  std::vector<std::string> names(n), srcs(n);
  for (size_t i = 0; i < n; i++) {
    if (is_custom(i) || lower_errors[distinct_of[i]]) continue;
    const std::string& base = lowered[distinct_of[i]].first.name;
    int k = seen[base]++;
    names[i] = k == 0 ? base : base + "n" + std::to_string(k);
  }
  std::vector<std::exception_ptr> render_errors = parallel_for(n, threads, [&](size_t i) {
    if (!names[i].empty()) srcs[i] = renderer.render(names[i], lowered[distinct_of[i]].second.uops);
  });
  // in schedule order, so the first error is the one a kernel-by-kernel loop would meet
  for (size_t i = 0; i < n; i++) {
    const ScheduleKernel& sk = s.kernels[i];
    if (is_custom(i)) {
      p.kernels.push_back(random_kernel(sk, s));
      p.kernels.back().device = program_device(sk.device, p.device);
      continue;
    }
    if (lower_errors[distinct_of[i]]) std::rethrow_exception(lower_errors[distinct_of[i]]);
    if (render_errors[i]) std::rethrow_exception(render_errors[i]);
    LoweredKernel lk = lowered[distinct_of[i]].first;
    lk.src = std::move(srcs[i]);
    if (options.observe) options.observe(i, sk, lk);
    p.kernels.push_back(program_kernel(lk, sk, names[i]));
    p.kernels.back().device = program_device(sk.device, p.device);
  }
  return p;
}

} // namespace tg
