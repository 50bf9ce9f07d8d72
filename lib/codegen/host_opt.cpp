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

// Lanes go to float32 kernels: every value loaded or stored is a float vector (or a scalar
// index). Bools and ints may sit between (a ReLU6's compares, the sign logic of pow): the
// linearizer computes them lane by lane into the WHERE or CAST that reads them and never
// renders a vector of them (C has no bool vectors).
bool lanes_fit_dtypes(const std::vector<const LazyOp*>& ops) {
  return std::all_of(ops.begin(), ops.end(), [](const LazyOp* op) {
    if (op->dtype() == DType::Float32) return true;
    bool between = op->dtype() == DType::Bool || op->dtype() == DType::Int32;
    // (no integer division: a padded lane computes on zeros, and x/0 traps on ints)
    return between && op->op != Op::LOAD && op->op != Op::STORE && !is_reduce(op->op) && op->op != Op::IDIV &&
           op->op != Op::MOD;
  });
}

bool stride_is(const std::optional<int64_t>& s, int64_t v) { return s && *s == v; }

// A reduce this long (elements per output) pays for what is gathered or stored lane by lane
// once per output: a vector of outputs costs this many vector FMAs against `lanes` scalar
// loads or stores.
constexpr int64_t kLongReduce = 32;

} // namespace

// PADTO masks every buffer's view to the axis' old size. The lane axis is an output axis: what
// its padded lanes compute is never stored and never mixes into other lanes. An input broadcast
// along it (stride 0) reads the same element in every lane, so its mask there only turned one
// broadcast load into a vector built lane by lane with zeros at the end: drop that mask (a
// mask other than exactly the old size is the program's own and stays).
void Kernel::unmask_broadcast_lanes(int axis, int64_t old_size) {
  for (size_t b = n_outputs(); b < sts.size() && b < bufs.size(); ++b) {
    View& v = sts[b].views.back();
    if (!v.mask || v.strides[size_t(axis)] != 0) continue;
    auto& m = (*v.mask)[size_t(axis)];
    if (!(m.first == 0 && m.second == old_size)) continue;
    Mask mask = *v.mask;
    mask[size_t(axis)] = {0, v.shape[size_t(axis)]};
    v = View::create(v.shape, v.strides, v.offset, mask);
  }
}

// A sum along an axis its inputs are contiguous (or broadcast) along, with no output axis for
// lanes: the lanes go to that reduce axis (Kernel::reduce_lanes). tinygrad's opts would unroll
// it by 4, one scalar at a time: a mean over 56x56 images of swish(x) computed exp2 and 1/x per
// element (2.1 -> 0.42 ms), and an LSTM's matrix-vector products ran at 1-5 GFLOP/s. The sum
// is reassociated (as tinygrad's unrolled one is, differently). Not a max: lanes would keep
// the first maximum of each lane, and a tie of 0.0 and -0.0 could then give the other zero.
bool Kernel::lanes_on_reduce_axis(const std::vector<char>& inside_reduce) {
  const LazyOp* r = reduceop();
  if (!r || r->op != Op::SUM || upcasted || opts.vector_lanes < 4) return false;
  const int a = shape_len() - 1;
  if (a < first_reduce() || !full_shape()[size_t(a)].is_int()) return false;
  const int64_t size = full_shape()[size_t(a)];
  int width = 0;
  for (int w = opts.vector_lanes; w >= 4 && !width; w /= 2)
    if (size % w == 0) width = w;
  if (!width) return false;
  for (size_t b = n_outputs(); b < bufs.size(); ++b) {
    if (std::holds_alternative<ConstBuffer>(bufs[b]) || !inside_reduce[b]) continue;
    auto s = sts[b].real_strides()[size_t(a)];
    if (!stride_is(s, 0) && !stride_is(s, 1)) return false;
  }
  shift_to(a, width);
  upcast();
  applied_opts.push_back({OptOps::UNROLL, a - first_reduce(), width});
  lanes = width;
  // Rows of a tile: a row alone is one chain of dependent FMAs (a matrix-vector product's row of
  // 128: 16 FMAs, 4 cycles each). Four rows that share the broadcast input's vector run four
  // chains at once and load that vector once for all four. (Upcast after the lanes: the lanes
  // stay the first upcast axis.)
  for (int o = first_reduce() - 1; o >= 0; --o) {
    if (!full_shape()[size_t(o)].is_int() || int64_t(full_shape()[size_t(o)]) % 4 != 0) continue;
    bool shared = false, own = false;
    for (size_t b = n_outputs(); b < bufs.size(); ++b) {
      if (std::holds_alternative<ConstBuffer>(bufs[b]) || !inside_reduce[b]) continue;
      (stride_is(sts[b].real_strides()[size_t(o)], 0) ? shared : own) = true;
    }
    if (!shared || !own) continue;
    try {
      apply_opt({OptOps::UPCAST, o, 4});
    } catch (const KernelOptError&) {
    }
    break;
  }
  reduce_lanes = true;
  return true;
}

// Buffer b is consecutive along axis a where it is valid (a padded image row, a depthwise conv's):
// with lanes on a, the linearizer loads each vector as one masked range load, not a gather.
bool Kernel::range_loaded(size_t b, int a) const {
  return opts.vector_lane_ranges && stride_is(sts[b].real_strides(true)[size_t(a)], 1);
}

void Kernel::host_optimizations() {
  const int widest = opts.vector_lanes;
  if (widest <= 1 || opts.has_local || reduceops.size() > 1 || upcasted || !lanes_fit_dtypes(lazyops))
    return hand_coded_optimizations();
  const int fr = first_reduce();
  // the lane axis: the innermost output axis the (first) output is contiguous along.
  // Vectors as wide as the registers, or narrower (down to 8), that divide the axis; else at
  // least 8 that pad it with at most 1/7 more lanes (ResNet's 14x14 images: 16 of 196 padded to
  // 208; 7 wide: 8); else 4 that divide it. Padding beats 4 exact lanes, a quarter of an AVX-512
  // register: ResNet-50's 1x1 convs on 14x14 images ran 1.8x faster (forward 740 -> 608 ms).
  auto out_strides = sts[0].real_strides();
  // Inputs strided along it, or masked, are gathered lane by lane: that pays only when a register
  // tile reuses each gathered vector, so such an input must be broadcast along another output
  // axis of a reduce kernel (a conv's image along its output channels). An input read only after
  // the reduce (an optimizer's state beside a gradient) is read once per output: gathering it
  // costs nothing next to the reduce.
  std::vector<char> inside_reduce(bufs.size(), 0);
  for (const KernelBuffer& b : earlybufs)
    for (size_t i = 0; i < bufs.size(); ++i)
      if (bufs[i] == b) inside_reduce[i] = 1;
  int64_t reduce_len = 1;
  for (int a = fr; a < shape_len(); ++a)
    reduce_len =
        full_shape()[size_t(a)].is_int() ? reduce_len * int64_t(full_shape()[size_t(a)]) : reduce_len;
  // The output itself may be strided along the lanes (stored lane by lane) where the reduce is
  // long enough to pay for it: a conv's weight gradient, [out, in, 5, 5], has no contiguous
  // output axis a vector divides (its 5).
  bool strided_out = false;
  auto lane_ok = [&](int a) {
    if (!stride_is(out_strides[size_t(a)], 1) &&
        !(strided_out && out_strides[size_t(a)] && *out_strides[size_t(a)] != 0))
      return false;
    for (size_t b = n_outputs(); b < bufs.size(); ++b) {
      if (std::holds_alternative<ConstBuffer>(bufs[b])) continue;
      auto strides = sts[b].real_strides();
      if (stride_is(strides[size_t(a)], 0) || stride_is(strides[size_t(a)], 1)) continue;
      if (range_loaded(b, a)) continue; // no gather to pay for
      if (reduceop() && !inside_reduce[b] && reduce_len >= kLongReduce) continue;
      bool reused = false;
      for (int o = 0; o < fr && reduceop(); ++o)
        reused |= o != a && full_shape()[size_t(o)] > 1 && stride_is(strides[size_t(o)], 0);
      if (!reused) return false;
    }
    return true;
  };
  int lane_axis = -1, width = 0;
  bool pad = false;
  auto pick = [&](int w, bool padded) {
    for (int a = fr - 1; a >= 0 && lane_axis < 0; --a) {
      if (!full_shape()[size_t(a)].is_int()) continue; // (a symbolic axis keeps its loop)
      const int64_t size = full_shape()[size_t(a)], lanes_used = (size + w - 1) / w * w;
      bool fits = padded ? size % w != 0 && size * 2 > w && lanes_used * 7 <= size * 8 : size % w == 0;
      if (fits && lane_ok(a)) lane_axis = a, width = w, pad = padded;
    }
  };
  for (int w = widest; w >= 8 && lane_axis < 0; w /= 2) pick(w, false);
  for (int w = widest; w >= 8 && lane_axis < 0; w /= 2) pick(w, true);
  if (lane_axis < 0) pick(4, false);
  if (lane_axis < 0 && reduceop() && reduce_len >= kLongReduce) {
    strided_out = true;
    for (int w = widest; w >= 4 && lane_axis < 0; w /= 2) pick(w, false);
  }
  if (lane_axis < 0) {
    if (lanes_on_reduce_axis(inside_reduce)) return;
    return hand_coded_optimizations();
  }

  // Which inputs load each vector as one (masked) range, decided before PADTO: its mask on the
  // lanes hides the stride from real_strides, but the linearizer still loads them as ranges (a
  // 28-wide image row padded to 32 lanes), and a tile costed as if they were gathered lane by
  // lane took 8 output channels x 1 vector, 8 weight rows a tap: ResNet's 3x3 convs on 28x28
  // and 14x14 images ran at 55-57 GFLOP/s a core, against 82 for 56x56 (4 x 2).
  // A stride-2 row (a strided conv's image) is two vector loads and a shuffle; where a tile reuses
  // it and its window (every reduce step of a 2-vector tile) fits pack_panels' budget, that copies
  // it out whole first, and the tile reads vectors: 4 channels x 2 vectors beat 8 x 1 (ResNet-50's
  // 1x1 stride-2 conv 256 -> 512: 15.3 -> 11.5 ms on 2 AVX2 cores). Past the budget it is as dear
  // as a gather.
  int64_t reduce_elems = 1;
  for (int a = first_reduce(); a < shape_len(); ++a) reduce_elems *= full_shape()[size_t(a)].max();
  const bool window_packed = opts.pack_panel_bytes && reduce_elems * 2 * width * 4 <= opts.pack_panel_bytes;
  std::vector<char> ranged(bufs.size(), 0);
  for (size_t b = n_outputs(); b < bufs.size(); ++b)
    ranged[b] = range_loaded(b, lane_axis) || (window_packed && opts.vector_lane_ranges &&
                                               stride_is(sts[b].real_strides(true)[size_t(lane_axis)], 2));

  if (pad) { // the lanes past the end are masked off
    const int64_t size = full_shape()[size_t(lane_axis)];
    try {
      apply_opt({OptOps::PADTO, lane_axis, width});
    } catch (const KernelOptError&) {
      return hand_coded_optimizations();
    }
    unmask_broadcast_lanes(lane_axis, size);
  }
  shift_to(lane_axis, width);
  upcast();
  applied_opts.push_back({OptOps::UPCAST, lane_axis, width});
  lanes = width;
  simplify_ones();
  if (!reduceop()) return;

  // The register tile: vector accumulators for upcast output axes some input is broadcast along,
  // so that one load of it feeds several FMAs. What a load costs decides which axes come first:
  // an input gathered lane by lane costs `lanes` loads, a vector load 2, a scalar broadcast 1.
  // AVX-512 has 32 vector registers, AVX and SSE 16; half of them hold accumulators.
  const int lane_pos = shape_len() - upcasted;
  std::vector<std::vector<std::optional<int64_t>>> strides; // each buffer's, for the shapes of now
  auto refresh = [&] {
    strides.clear();
    for (const ShapeTracker& st : sts) strides.push_back(st.real_strides());
  };
  refresh();
  std::vector<int64_t> load_cost(bufs.size(), 0);
  for (size_t b = n_outputs(); b < bufs.size(); ++b) {
    if (std::holds_alternative<ConstBuffer>(bufs[b])) continue;
    const auto& s = strides[b][size_t(lane_pos)];
    load_cost[b] = !s || (*s != 0 && *s != 1) ? width : *s == 1 ? 2 : 1;
    if (load_cost[b] == width && ranged[b]) load_cost[b] = 2; // as a vector load
  }
  auto reuse = [&](int a) { // the cost of the dearest input broadcast along axis a
    int64_t best = 0;
    for (size_t b = n_outputs(); b < bufs.size(); ++b)
      if (load_cost[b] && stride_is(strides[b][size_t(a)], 0)) best = std::max(best, load_cost[b]);
    return best;
  };
  const int64_t budget = widest >= 16 ? 16 : 8;
  int64_t tile = 1;
  std::vector<int64_t> priorities;
  for (int a = 0; a < first_reduce(); ++a)
    if (int64_t r = full_shape()[size_t(a)] > 1 ? reuse(a) : 0) priorities.push_back(r);
  std::sort(priorities.rbegin(), priorities.rend());
  priorities.erase(std::unique(priorities.begin(), priorities.end()), priorities.end());
  // How much of the tile the dearest input's axes take. All of it (8 rows of a matmul) loads the
  // other input once per row; splitting it with the next axes (4 rows x 2 vectors) costs
  // p1 * n + p2 * m loads for m * n accumulators, which on 8 accumulators (AVX2) is 8 against 10:
  // a 1024 matmul on one AVX2 core ran 62 -> 89 GFLOP/s. Ties keep the dearest axes' share
  // (AVX-512's 16 accumulators: 8 rows x 2 vectors, as before).
  int64_t first_share = budget;
  if (priorities.size() >= 2) {
    const int64_t p1 = priorities[0], p2 = priorities[1];
    auto second_takes = [&](int64_t n) {
      for (int a = 0; a < first_reduce(); ++a)
        if (full_shape()[size_t(a)] > 1 && reuse(a) == p2 && full_shape()[size_t(a)] % n == 0) return true;
      return false;
    };
    // loads per accumulator, scaled by budget: (p1 * n + p2 * m) / (m * n) with m * n = budget
    int64_t best_cost = p1 + p2 * budget;
    for (int64_t m = budget / 2, n = 2; m >= 2 && n <= 8; m /= 2, n *= 2)
      if (int64_t cost = p1 * n + p2 * m; cost < best_cost && second_takes(n))
        best_cost = cost, first_share = m;
  }
  int innermost = -1; // the axis the dearest input is broadcast along
  for (int64_t priority : priorities) {
    const int64_t cap = priority == priorities[0] ? first_share : budget;
    // inner axes first among equals: their neighbours share cache lines
    for (int a = first_reduce() - 1; a >= 0 && tile < cap; --a) {
      if (full_shape()[size_t(a)] <= 1 || reuse(a) != priority) continue;
      for (int64_t amt : {8, 4, 2}) {
        if (tile * amt > cap || full_shape()[size_t(a)] % amt != 0) continue;
        try {
          const int dims = shape_len();
          apply_opt({OptOps::UPCAST, a, amt});
          refresh();
          tile *= amt;
          // (the split adds an axis; when none is left over, the axis is gone and those after
          // it move down one)
          const bool gone = shape_len() == dims;
          if (gone && innermost > a) --innermost;
          if (innermost < 0 && !gone) innermost = a;
          break;
        } catch (const KernelOptError&) {
        }
      }
    }
  }
  // Loop order: that axis innermost among the output loops, so the tile of the dear input stays
  // in cache while the loop walks the cheap one (a matmul: columns of b outside, rows of a inside).
  const int globals = first_reduce();
  if (innermost >= 0 && innermost < globals - 1) {
    std::vector<int> perm;
    for (int a = 0; a < shape_len(); ++a)
      if (a != innermost) perm.push_back(a);
    perm.insert(perm.begin() + (globals - 1), innermost);
    reshape_and_permute(nullptr, &perm);
  }
  if (innermost >= 0) block_columns();
}

// Cache blocking of a matmul's columns (the nc loop of BLIS). The loops are now column blocks
// outside, row tiles inside: each column block's panel of B (K x 16 floats, packed by
// codegen/pack_panels.h) stays in L2 while all of A streams past it, once per column block. A
// 1024 matmul so reads its 4 MB A 64 times from L3 or memory, which two cores sharing an L3 (or
// a 2 MB L2 Xeon's memory bus) cannot feed. Splitting the column axis into (S/f, f) with the f
// part inside the row loop makes f panels share each row strip of A while it is in cache: A is
// read f times less often, and the f panels (packed together before the row loop) take at most
// the packing budget (half of L2). Only reorders loops: every output sums in the same order.
void Kernel::block_columns() {
  const int64_t budget = opts.pack_panel_bytes;
  const int fr = first_reduce(), row = fr - 1, col = fr - 2;
  if (!budget || col < 0 || local_dims) return;
  const Shape full = full_shape();
  for (const auto& d : full)
    if (!d.is_int()) return;
  const int64_t cols = full[size_t(col)];
  if (cols <= 1 || full[size_t(row)] <= 1) return;
  // a: broadcast along the columns, streamed; b: broadcast along the rows, packed by columns
  std::optional<size_t> a, b;
  for (size_t i = n_outputs(); i < bufs.size(); ++i) {
    if (std::holds_alternative<ConstBuffer>(bufs[i]) || !is_early(bufs[i])) continue;
    auto s = sts[i].real_strides();
    if (stride_is(s[size_t(col)], 0) && s[size_t(row)] && *s[size_t(row)] != 0 && !a)
      a = i;
    else if (stride_is(s[size_t(row)], 0) && s[size_t(col)] && *s[size_t(col)] != 0 && !b)
      b = i;
    else
      return; // a third operand in the reduce: not a plain contraction
  }
  if (!a || !b) return;
  // elements per column block: of B (its panel) and of A (all rows); B's rows must be far
  // apart, as pack_panels packs only those
  auto sb = sts[*b].real_strides(), sa = sts[*a].real_strides();
  int64_t panel = 1, strip = 1;
  bool far = false;
  for (int i = row; i < shape_len(); ++i) {
    if (i > row && sb[size_t(i)] != 0) panel *= full[size_t(i)];
    if (sa[size_t(i)] != 0) strip *= full[size_t(i)];
    if (i >= fr && i < shape_len() - upcasted && sb[size_t(i)] && *sb[size_t(i)] >= 256) far = true;
  }
  if (!far || strip * 4 <= budget) return; // A stays in L2 as it is
  for (int64_t f : {16, 8, 4, 2})
    if (cols % f == 0 && cols / f >= 8 && f * panel * 4 <= budget) {
      shift_to(col, f, false, fr);
      return;
    }
}

} // namespace tg
