// codegen layer, Kernel: tinygrad 0.9.1's codegen/kernel.py. A Kernel is one ScheduleKernel's
// AST seen as a set of ShapeTrackers over one full shape: output dims first, reduce dims
// last, with ones removed and mergeable neighbours merged. OptOps reshape those trackers
// (UPCAST, UNROLL, PADTO ...); the linearizer then turns the result into UOps.
#pragma once
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "codegen/renderer.h"
#include "ops/ops.h"
#include "util/error.h"

namespace tg {

enum class OptOps : uint8_t { TC, UPCAST, UPCASTMID, UNROLL, LOCAL, GROUP, GROUPTOP, NOLOCALS, PADTO };
std::string_view optops_name(OptOps op); // "OptOps.UPCAST"

struct Opt {
  OptOps op;
  std::optional<int> axis;
  std::optional<int64_t> amt;
  bool operator==(const Opt&) const = default;
  std::string repr() const; // "Opt(op=OptOps.UPCAST, axis=0, amt=4)"
};

// An optimization that does not apply to this kernel (tinygrad's KernelOptError).
class KernelOptError : public Error {
public:
  explicit KernelOptError(const std::string& message) : Error("KernelOptError", message) {}
};

// Where a tensor core's N, M and K axes are (kernel.py's TensorCoreOptions); an N or M axis that
// an optimization removes no longer exists.
struct TensorCoreOptions {
  std::array<int, 3> axes{};
  std::array<bool, 2> axes_exist{true, true};
  std::vector<std::pair<int, int64_t>> axis_pads; // (axis, multiple) PADTOs the axes need
  void fix_axes(int removed_axis);
  bool operator==(const TensorCoreOptions&) const = default;
};

// tinygrad's TC environment switch (default 1): 0 no tensor cores, 2 their shapes without WMMA.
int tc_setting();
// tinygrad's TC_OPT environment switch, `fallback` when unset (apply_tensor_cores: 0, BEAM: 2).
int tc_opt_setting(int fallback);

using KernelBuffer = std::variant<MemBuffer, ConstBuffer>;
DType buffer_dtype(const KernelBuffer& b);
const ShapeTracker& buffer_st(const KernelBuffer& b);

class Kernel {
public:
  explicit Kernel(const std::vector<LazyOpPtr>& ast, RendererOpts opts = {});

  RendererOpts opts;
  std::vector<LazyOpPtr> ast;           // STORE roots, structurally deduplicated
  std::vector<const LazyOp*> lazyops;   // every op once, roots first
  std::vector<const LazyOp*> reduceops; // in dependency order
  std::vector<KernelBuffer> bufs;       // outputs (one per root), then loads/consts in first-use order
  std::vector<KernelBuffer> earlybufs;  // buffers read inside a reduce
  int full_buf_index = 0;
  std::vector<ShapeTracker> sts; // one per buf, all of shape_len dims

  std::vector<Opt> applied_opts;
  int group_for_reduces = 0;
  int upcasted = 0;
  int local_dims = 0;
  bool dont_use_locals = false; // NOLOCALS: global dims are global ids, no local dims
  // Vector lanes (host optimizer): >1 makes the first upcast axis, an output axis of this size,
  // the lanes of vector values instead of unrolled copies.
  int lanes = 1;
  // Added: the lanes are instead the innermost reduce axis (unrolled, upcast last): each lane
  // accumulates every lanes-th element in order, and the lanes are summed in lane order after
  // the loop (sums only: host_opt.cpp lanes_on_reduce_axis). For reduces along a contiguous axis (a mean over
  // an image, a matrix- vector product), which have no output axis to give lanes to.
  bool reduce_lanes = false;
  // Tensor cores (TC): the one in use (an index into opts.tensor_cores, -1: none), where its axes
  // are, and each reduce's two multiplied buffers.
  int tensor_core = -1;
  std::optional<TensorCoreOptions> tensor_core_opts;
  std::vector<std::pair<const LazyOp*, std::pair<int, int>>> bufs_for_tensor_core;
  const TensorCore* tc() const {
    return tensor_core >= 0 ? &opts.tensor_cores[size_t(tensor_core)] : nullptr;
  }

  size_t n_outputs() const { return ast.size(); }
  const LazyOp* reduceop() const { return reduceops.empty() ? nullptr : reduceops[0]; }
  int shape_len() const { return int(sts[0].shape().size()); }
  const Shape& output_shape() const { return sts[0].shape(); }
  const Shape& full_shape() const { return sts[size_t(full_buf_index)].shape(); }
  Shape full_unupcasted_shape() const;
  int first_reduce() const;
  int global_dims() const { return first_reduce() - local_dims; }
  bool is_early(const KernelBuffer& b) const;
  int buffer_index(const KernelBuffer& b, int from = 0) const; // first index in bufs equal to b

  struct UpcastAxis {
    int64_t size;
    std::optional<int64_t> stride;
    bool reduce;
  };
  std::vector<UpcastAxis> upcasted_axis(int buf) const;
  std::vector<UpcastAxis> upcasted_axis(const ShapeTracker& st) const;
  std::vector<int> acc_offsets(int buf) const;
  std::vector<int> acc_offsets(const ShapeTracker& st) const; // (the linearizer's local buffers)
  // upcasted axes of buffer i that are unit stride and divisible by 4, relative to the upcast start
  std::vector<int> float4_axis(int buf) const;
  int64_t shape_offsets_count(int buf) const; // number of upcasted combinations

  // "r_4_8", "E_8_4", "C_8_6", "E2_4_8": kind, output count, full shape.
  std::string name() const;

  // simplifiers (kernel.py's base and complex simplifiers)
  void reshape_and_permute(const std::function<Shape(const Shape&)>& new_shape, const std::vector<int>* axis);
  void shift_to(int axis, int64_t amount, bool top = false, std::optional<int> insert_before = std::nullopt);
  bool simplify_ones();
  void simplify_merge_adjacent();

  // throws KernelOptError when the opt does not apply (the kernel is left unchanged then)
  void apply_opt(const Opt& opt, bool append_opt = true);
  void hand_coded_optimizations();
  // kernel.py's apply_tensor_cores: the TC opt, then hand-coded upcasts and a local (or
  // extra_opts); false when no tensor core applies. use_tensor_cores: 0 none, 1 WMMA, 2 only
  // the shape ops; tc_opt: 0 one reduce axis of LOADs, 1 also CAST inputs, 2 also padding
  // (unset: the TC_OPT environment variable, default 0).
  bool apply_tensor_cores(int use_tensor_cores = 1, const std::vector<Opt>* extra_opts = nullptr,
                          int axis = 0, std::optional<int> tc_opt = std::nullopt);
  // tg's optimizer for targets whose renderer has vector lanes (host CPUs): register tiles of
  // vectors over an output axis. Kernels it cannot tile get hand_coded_optimizations.
  void host_optimizations();

private:
  void unmask_broadcast_lanes(int axis, int64_t old_size);
  bool lanes_on_reduce_axis(const std::vector<char>& inside_reduce);
  bool range_loaded(size_t b, int a) const;
  void block_columns();
  void upcast();
  void apply_opt_unchecked(const Opt& opt, bool append_opt);
  std::optional<TensorCoreOptions> create_tc_opts(const LazyOp* reduceop, const TensorCore& tc, int axis,
                                                  int opt_level);
  bool apply_tc_opt(int use_tensor_cores, int axis, int opt_level);
};

} // namespace tg
