// codegen layer, tg's optimizer for host CPUs (Kernel::host_optimizations). tinygrad's
// hand-coded optimizations are shaped for GPUs; on a CPU the work is to keep the vector units
// busy: one output axis becomes the lanes of SIMD vectors (as wide as the CPU's registers), and
// a register tile of vector accumulators upcasts the output axes that some input is broadcast
// along, so each loaded value feeds several FMAs. Upcasting output axes never reorders a
// reduction, so results equal the unoptimized kernel's (up to FMA contraction, as with any
// C compiler at -O2).
#include <algorithm>

#include "codegen/kernel.h"

namespace tg {

namespace {

// Lanes go to float32 kernels: every value is then a float vector or a scalar index.
bool all_float32(const std::vector<const LazyOp*>& ops) {
  return std::all_of(ops.begin(), ops.end(), [](const LazyOp* op) { return op->dtype() == DType::Float32; });
}

bool stride_is(const std::optional<int64_t>& s, int64_t v) { return s && *s == v; }

} // namespace

void Kernel::host_optimizations() {
  const int widest = opts.vector_lanes;
  if (widest <= 1 || opts.has_local || reduceops.size() > 1 || upcasted || !all_float32(lazyops))
    return hand_coded_optimizations();
  const int fr = first_reduce();
  // the lane axis: the innermost output axis the (first) output is contiguous along, and every
  // input either contiguous or broadcast along (a strided input would need a gather per lane);
  // narrower vectors where the widest do not divide it (ResNet's 56 and 28 wide images)
  auto out_strides = sts[0].real_strides();
  int lane_axis = -1, width = 0;
  for (int w = widest; w >= 4 && lane_axis < 0; w /= 2)
    for (int a = fr - 1; a >= 0 && lane_axis < 0; --a) {
      if (full_shape()[size_t(a)] % w != 0 || !stride_is(out_strides[size_t(a)], 1)) continue;
      bool ok = true;
      for (size_t b = n_outputs(); b < bufs.size() && ok; ++b) {
        if (std::holds_alternative<ConstBuffer>(bufs[b])) continue;
        auto s = sts[b].real_strides()[size_t(a)];
        ok = !s || *s == 0 || *s == 1; // (a masked view has no simple stride: lanes gather at its edges)
      }
      if (ok) lane_axis = a, width = w;
    }
  if (lane_axis < 0) return hand_coded_optimizations();

  shift_to(lane_axis, width);
  upcast();
  applied_opts.push_back({OptOps::UPCAST, lane_axis, width});
  lanes = width;
  simplify_ones();
  if (!reduceop()) return;

  // The register tile: vector accumulators for upcast output axes an input is broadcast along.
  // AVX-512 has 32 vector registers, AVX and SSE 16; half of them hold accumulators.
  const int64_t budget = widest >= 16 ? 16 : 8;
  int64_t tile = 1;
  for (int pass = 0; pass < 2; ++pass) {
    // axes other than the lane axis's remainder first: their broadcast values are scalars
    for (int a = 0; a < first_reduce(); ++a) {
      const bool lane_rest = stride_is(sts[0].real_strides()[size_t(a)], width);
      if ((pass == 0) == lane_rest || full_shape()[size_t(a)] <= 1) continue;
      bool reused = false;
      for (size_t b = n_outputs(); b < bufs.size() && !reused; ++b)
        if (!std::holds_alternative<ConstBuffer>(bufs[b]))
          reused = stride_is(sts[b].real_strides()[size_t(a)], 0);
      if (!reused) continue;
      for (int64_t amt : {8, 4, 2}) {
        if (tile * amt > budget || full_shape()[size_t(a)] % amt != 0) continue;
        try {
          const int dims = shape_len();
          apply_opt({OptOps::UPCAST, a, amt});
          tile *= amt;
          if (shape_len() < dims) --a; // the axis is gone (it was all upcast): the next one moved here
          break;
        } catch (const KernelOptError&) {
        }
      }
      if (tile >= budget) return;
    }
  }
}

} // namespace tg
