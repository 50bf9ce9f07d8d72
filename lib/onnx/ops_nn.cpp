// ONNX's neural-network ops (convolution, pooling, normalization, losses, dropout) as Tensor
// ops (ONNX operator docs, tinygrad's extra/onnx_ops.py where it chose a lowering).
#include <algorithm>
#include <cmath>
#include <optional>

#include "onnx/node.h"
#include "random/mt19937.h"

namespace tg {

namespace {

using Outs = std::vector<Tensor>;

std::vector<int64_t> ints_or(const Node& n, const std::string& name, size_t nd, int64_t def) {
  std::vector<int64_t> v = n.attr_ints(name).value_or(std::vector<int64_t>(nd, def));
  if (v.size() != nd)
    n.bad(name + " has " + std::to_string(v.size()) + " values for " + std::to_string(nd) + " spatial dims");
  return v;
}

// (begin, end) per trailing spatial dim, from tinygrad's pairs (last dim first).
std::vector<std::pair<int64_t, int64_t>> spatial_pairs(const std::vector<int64_t>& tg_pads) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = tg_pads.size() / 2; i-- > 0;) out.emplace_back(tg_pads[2 * i], tg_pads[2 * i + 1]);
  return out;
}

// Each trailing spatial dim cut to [begin, size - end) where positive, zero-padded where negative.
Tensor crop(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& cut) {
  size_t rank = x.shape().size(), first = rank - cut.size();
  Padding shrink(rank, std::nullopt), pad(rank, std::nullopt);
  bool grows = false;
  for (size_t i = 0; i < cut.size(); ++i) {
    auto [b, e] = cut[i];
    int64_t s = x.shape()[first + i];
    shrink[first + i] = std::pair(std::max<int64_t>(b, 0), s - std::max<int64_t>(e, 0));
    pad[first + i] = std::pair(std::max<int64_t>(-b, 0), std::max<int64_t>(-e, 0));
    grows |= b < 0 || e < 0;
  }
  Tensor y = x.shrink(shrink);
  return grows ? y.pad(pad) : y;
}

// Explicit pads plus, with ceil_mode, the extra end padding that lets the last window start
// inside the input or its begin padding (ONNX's and PyTorch's rule).
struct PoolGeometry {
  std::vector<int64_t> kernel, strides, dil;
  std::vector<std::pair<int64_t, int64_t>> pads; // per spatial dim, explicit
  std::vector<int64_t> extra;                    // per spatial dim, ceil_mode's end padding
};

PoolGeometry pool_geometry(const Node& n, const Tensor& x) {
  size_t nd = n.spatial_rank(x);
  PoolGeometry g;
  g.kernel = n.kernel_arg(x, nd);
  g.strides = ints_or(n, "strides", nd, 1);
  g.dil = ints_or(n, "dilations", nd, 1);
  g.pads = spatial_pairs(n.spatial_padding(x.shape(), g.kernel, g.strides, g.dil));
  g.extra.assign(nd, 0);
  if (n.attr_int("ceil_mode", 0))
    for (size_t d = 0; d < nd; ++d) {
      int64_t in = x.shape()[2 + d] + g.pads[d].first + g.pads[d].second,
              span = g.dil[d] * (g.kernel[d] - 1) + 1;
      int64_t out = (in - span + g.strides[d] - 1) / g.strides[d] + 1;
      if ((out - 1) * g.strides[d] >= x.shape()[2 + d] + g.pads[d].first) --out;
      g.extra[d] = std::max<int64_t>((out - 1) * g.strides[d] + span - in, 0);
    }
  return g;
}

// The spatial padding a pool applies: the explicit pads and/or ceil_mode's extra end cells.
Padding pool_padding(const PoolGeometry& g, size_t rank, bool explicit_pads, bool extra) {
  Padding p(2, std::nullopt);
  for (size_t d = 0; d + 2 < rank; ++d)
    p.push_back(std::pair(explicit_pads ? g.pads[d].first : 0,
                          (explicit_pads ? g.pads[d].second : 0) + (extra ? g.extra[d] : 0)));
  return p;
}

Outs max_pool(const Node& n) {
  Tensor x = n.in(0);
  size_t rank = x.shape().size();
  PoolGeometry g = pool_geometry(n, x);
  DType dt = x.dtype();
  Tensor xf = is_float(dt) ? x : x.cast(DType::Float32); // -inf padding needs a float
  Tensor xp = xf.pad(pool_padding(g, rank, true, true), -INFINITY);
  Tensor y = xp.max_pool2d(IntOrTuple(g.kernel), IntOrTuple(g.strides), IntOrTuple(g.dil));
  Outs outs{is_float(dt) ? y : y.cast(dt)};
  if (!n.wants_output(1)) return outs;
  // Indices: each window's first maximum, as a flat index into x (row-major, or column-major
  // over the spatial dims with storage_order=1), found by walking the window's offsets.
  Shape s = x.shape();
  Tensor flat = positions(prod(s));
  if (n.attr_int("storage_order", 0)) {
    if (rank != 4) n.bad("storage_order=1 needs a 2-D image");
    flat = flat.reshape({s[0], s[1], s[3], s[2]}).permute({0, 1, 3, 2});
  } else {
    flat = flat.reshape(s);
  }
  Tensor ip = flat.pad(pool_padding(g, rank, true, true), Scalar::of_int(0));
  size_t nd = rank - 2;
  std::vector<int64_t> offset(nd, 0);
  std::optional<Tensor> idx;
  int64_t windows = prod(Shape(g.kernel.begin(), g.kernel.end()));
  for (int64_t w = windows; w-- > 0;) { // last offset first, so the first match wins
    for (size_t d = nd, r = size_t(w); d-- > 0;)
      offset[d] = int64_t(r) % g.kernel[d], r /= size_t(g.kernel[d]);
    std::vector<Index> at(2, Index::slice(std::nullopt, std::nullopt, std::nullopt));
    for (size_t d = 0; d < nd; ++d) {
      int64_t start = offset[d] * g.dil[d];
      at.push_back(Index::slice(start, start + (y.shape()[2 + d] - 1) * g.strides[d] + 1, g.strides[d]));
    }
    Tensor here = ip.getitem(at);
    idx = idx ? xp.getitem(at).eq(y).where(here, *idx) : here;
  }
  outs.push_back(*idx);
  return outs;
}

Tensor average_pool(const Node& n) {
  Tensor x = n.in(0);
  size_t rank = x.shape().size();
  PoolGeometry g = pool_geometry(n, x);
  IntOrTuple k(g.kernel), s(g.strides), d(g.dil);
  bool include_pad = n.attr_int("count_include_pad", 0) != 0, partial = false;
  for (size_t i = 0; i < g.pads.size(); ++i)
    partial |= g.extra[i] || (!include_pad && (g.pads[i].first || g.pads[i].second));
  Tensor y = x.pad(pool_padding(g, rank, true, true)).avg_pool2d(k, s, d);
  if (!partial) return y; // every window divides by the kernel's size
  // divide by the cells each window covers: the input's, and explicit padding's too with
  // count_include_pad=1, never ceil_mode's extra cells
  Tensor cover = x.ones_like();
  if (include_pad)
    cover = cover.pad(pool_padding(g, rank, true, false), 1.0).pad(pool_padding(g, rank, false, true));
  else
    cover = cover.pad(pool_padding(g, rank, true, true));
  return y.div(cover.avg_pool2d(k, s, d));
}

// ConvTranspose with stride s > 1 (a UNet's 2x2 stride-2 upsampling, a DCGAN's 4x4 stride 2),
// dilation 1, as s^nd ordinary convolutions, one per output phase r = o mod s, stacked as output
// channels: phase r takes the taps j = t*s + r, so each output cell sums T = ceil(k/s) taps per
// dim. tinygrad's lowering convolves the zero-interleaved input with all k taps, and all but T of
// them meet the inserted zeros, read through masked gathers (the UNet block's 64 -> 32
// upsampling took 5.4 of its 11.5 ms). The taps come in the same order (ic, then j from the
// last down), less the zero terms (a phase with fewer than T taps gets zero weights). Returns
// the full output, (D - 1) * s + k per dim, as conv_transpose2d does; empty where a stride is 1
// (that already is a plain convolution) or a shape is not known.
std::optional<Tensor> conv_transpose_by_phases(const Tensor& x, const Tensor& w, int64_t group,
                                               const std::vector<int64_t>& kernel,
                                               const std::vector<int64_t>& strides,
                                               const std::vector<int64_t>& dil) {
  const size_t nd = kernel.size();
  if (x.shape().size() != nd + 2 || w.shape().size() != nd + 2 || group < 1) return std::nullopt;
  bool strided = false;
  for (size_t d = 0; d < nd; ++d) {
    if (dil[d] != 1 || strides[d] < 1 || kernel[d] < 1) return std::nullopt;
    strided |= strides[d] > 1;
  }
  if (!strided) return std::nullopt;
  for (const Shape* s : {&x.shape(), &w.shape()})
    for (const sint& v : *s)
      if (!v.is_int()) return std::nullopt;
  const int64_t n = x.shape()[0], cin = x.shape()[1], out_per_group = w.shape()[1];
  if (cin % group != 0 || int64_t(w.shape()[0]) != cin) return std::nullopt;
  const int64_t per_group = cin / group;
  int64_t phases = 1;
  std::vector<int64_t> taps(nd);
  Padding widen(nd + 2, std::nullopt), ring(nd + 2, std::nullopt);
  for (size_t d = 0; d < nd; ++d) {
    if (int64_t(w.shape()[2 + d]) != kernel[d]) return std::nullopt;
    taps[d] = (kernel[d] + strides[d] - 1) / strides[d];
    phases *= strides[d];
    widen[2 + d] = std::pair<int64_t, int64_t>(0, taps[d] * strides[d] - kernel[d]);
    ring[2 + d] = std::pair<int64_t, int64_t>(taps[d] - 1, taps[d] - 1);
  }
  // weight (g*c, o, k..) -> (g, c, o, T1, s1, .., Tn, sn) -> (g, o, s1..sn, c, T1..Tn), T flipped
  Shape split{group, per_group, out_per_group}, conv_w{group * out_per_group * phases, per_group};
  std::vector<int> order{0, 2}, flip;
  for (size_t d = 0; d < nd; ++d) {
    split.push_back(taps[d]);
    split.push_back(strides[d]);
    order.push_back(int(4 + 2 * d));
    conv_w.push_back(taps[d]);
  }
  order.push_back(1);
  for (size_t d = 0; d < nd; ++d) {
    order.push_back(int(3 + 2 * d));
    flip.push_back(int(2 + nd + 1 + d));
  }
  Tensor wp = w.pad(widen).reshape(split).permute(order).flip(flip).reshape(conv_w);
  // every phase's output, q in [0, D + T - 1): (N, g*o*S, Q1..Qn)
  Tensor y = x.pad(ring).conv2d(wp, std::nullopt, group);
  // (N, g*o, s1..sn, Q1..Qn) -> (N, g*o, Q1, s1, .., Qn, sn) -> (N, g*o, Q1*s1, ..), cut to (D-1)*s+k
  Shape phased{n, group * out_per_group}, merged{n, group * out_per_group};
  std::vector<int> interleave{0, 1};
  Padding full(nd + 2, std::nullopt);
  for (size_t d = 0; d < nd; ++d) phased.push_back(strides[d]);
  for (size_t d = 0; d < nd; ++d) {
    const int64_t q = int64_t(x.shape()[2 + d]) + taps[d] - 1;
    phased.push_back(q);
    interleave.push_back(int(2 + nd + d));
    interleave.push_back(int(2 + d));
    merged.push_back(q * strides[d]);
    full[2 + d] = std::pair<int64_t, int64_t>(0, (int64_t(x.shape()[2 + d]) - 1) * strides[d] + kernel[d]);
  }
  return y.reshape(phased).permute(interleave).reshape(merged).shrink(full);
}

Outs conv_transpose(const Node& n) {
  Tensor x = n.in(0), w = n.in(1);
  size_t nd = n.spatial_rank(x);
  std::vector<int64_t> kernel = n.kernel_arg(w, nd), strides = ints_or(n, "strides", nd, 1),
                       dil = ints_or(n, "dilations", nd, 1), out_pad = ints_or(n, "output_padding", nd, 0);
  std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  std::optional<std::vector<int64_t>> out_shape = n.attr_ints("output_shape");
  std::vector<std::pair<int64_t, int64_t>> pads(nd, {0, 0});
  if (auto p = n.attr_ints("pads"); p && !out_shape && (auto_pad == "NOTSET" || auto_pad == "VALID")) {
    if (p->size() != 2 * nd)
      n.bad("pads has " + std::to_string(p->size()) + " values for " + std::to_string(nd) + " dims");
    for (size_t d = 0; d < nd; ++d) pads[d] = {(*p)[d], (*p)[nd + d]};
  } else if (out_shape || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    // ONNX: total padding from the wanted output size; SAME_UPPER puts the odd cell at the end
    for (size_t d = 0; d < nd; ++d) {
      int64_t in = x.shape()[2 + d];
      int64_t want = out_shape ? (*out_shape)[out_shape->size() - nd + d] : in * strides[d];
      int64_t total = strides[d] * (in - 1) + out_pad[d] + (kernel[d] - 1) * dil[d] + 1 - want;
      int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2); // Python's floor division
      pads[d] = auto_pad == "SAME_UPPER" ? std::pair(half, total - half) : std::pair(total - half, half);
    }
  }
  // the full transposed convolution, then output_padding's extra end cells and the pads cut off
  const int64_t group = n.attr_int("group", 1);
  std::optional<Tensor> phased = conv_transpose_by_phases(x, w, group, kernel, strides, dil);
  Tensor y =
      phased ? *phased : x.conv_transpose2d(w, std::nullopt, group, IntOrTuple(strides), IntOrTuple(dil));
  for (size_t d = 0; d < nd; ++d) pads[d].second -= out_pad[d];
  y = crop(y, pads);
  if (n.has_input(2)) {
    Shape s(y.shape().size(), 1);
    s[1] = y.shape()[1];
    y = y.add(n.in(2).reshape(s));
  }
  return {y};
}

Shape channel_shape(const Tensor& x) {
  Shape s(x.shape().size(), 1);
  s[1] = x.shape()[1];
  return s;
}

std::vector<int> axes_except_channels(const Tensor& x) {
  std::vector<int> axes{0};
  for (size_t d = 2; d < x.shape().size(); ++d) axes.push_back(int(d));
  return axes;
}

Outs batch_normalization(const Node& n) {
  Tensor x = n.in(0);
  Shape s = channel_shape(x);
  double eps = n.attr_float("epsilon", 1e-5);
  if (!n.attr_int("training_mode", 0)) {
    Tensor invstd = n.in(4).add(eps).rsqrt().reshape(s);
    return {x.sub(n.in(3).reshape(s)).mul(n.in(1).reshape(s).mul(invstd)).add(n.in(2).reshape(s))};
  }
  // training: normalize with the batch's statistics; running ones move by momentum
  double momentum = n.attr_float("momentum", 0.9);
  std::vector<int> axes = axes_except_channels(x);
  Tensor mean = x.mean(axes), var = x.sub(mean.reshape(s)).square().mean(axes);
  Tensor y = x.batchnorm(n.in(1), n.in(2), mean, var.add(eps).rsqrt());
  return {y, n.in(3).mul(momentum).add(mean.mul(1.0 - momentum)),
          n.in(4).mul(momentum).add(var.mul(1.0 - momentum))};
}

Outs layer_normalization(const Node& n) {
  Tensor x = n.in(0);
  int axis = Node::norm_axis(n.attr_int("axis", -1), x.shape().size());
  std::vector<int> axes;
  for (size_t d = size_t(axis); d < x.shape().size(); ++d) axes.push_back(int(d));
  double eps = n.attr_float("epsilon", 1e-5);
  Tensor y = x.layernorm(axes, eps).mul(n.in(1));
  if (n.has_input(2)) y = y.add(n.in(2));
  Tensor mean = x.mean(axes, true);
  return {y, mean, x.sub(mean).square().mean(axes, true).add(eps).rsqrt()};
}

Outs dropout(const Node& n) {
  Tensor x = n.in(0);
  double ratio = n.opset() < 12   ? n.attr_float("ratio", 0.5)
                 : n.has_input(1) ? n.known(1).floats().at(0)
                                  : 0.5;
  bool training = n.opset() < 12 ? false : n.has_input(2) && n.known(2).ints().at(0) != 0;
  if (!training) return {x, x.full_like(Scalar::of_bool(true), DType::Bool)};
  // ONNX's reference draws the mask from np.random.RandomState(seed); so does tinygrad
  if (!n.attr("seed"))
    n.bad("training-mode Dropout needs the seed attribute (its mask is drawn while importing)");
  Mt19937 rng(uint32_t(n.attr_int("seed", 0)));
  std::vector<Scalar> keep;
  for (int64_t i = 0, count = prod(x.shape()); i < count; ++i)
    keep.push_back(Scalar::of_bool(rng.random_sample() >= ratio));
  Tensor mask = tensor_of(known_values(DType::Bool, x.shape(), keep));
  return {x.mul(mask).mul(1.0 / (1.0 - ratio)), mask};
}

// NegativeLogLikelihoodLoss over log-probabilities (N, C, d1..dk) and targets (N, d1..dk),
// with the node's weight input, ignore_index and reduction.
Tensor nll(const Node& n, const Tensor& log_prob, const Tensor& target) {
  std::string reduction = n.attr_string("reduction", "mean");
  bool ignores = n.attr("ignore_index") != nullptr;
  Tensor valid = ignores ? target.ne(Operand(n.attr_int("ignore_index", 0)))
                         : target.full_like(Scalar::of_bool(true), DType::Bool);
  Tensor safe = valid.where(target, Operand(int64_t(0))); // an ignored target may be out of range
  Tensor picked = log_prob.gather(1, safe.unsqueeze(1)).squeeze(1);
  Tensor w = n.has_input(2) ? n.in(2).gather(0, safe.flatten()).reshape(safe.shape()) : picked.ones_like();
  w = valid.where(w, 0.0);
  Tensor loss = picked.mul(w).neg();
  if (reduction == "none") return loss;
  if (reduction == "sum") return loss.sum();
  if (reduction == "mean") return loss.sum().div(w.sum());
  n.bad("reduction '" + reduction + "' is not one of none, sum, mean");
}

} // namespace

void add_nn_ops(OpTable& t) {
  t["Conv"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0), w = n.in(1);
    size_t nd = n.spatial_rank(x);
    std::vector<int64_t> kernel = n.kernel_arg(w, nd), strides = ints_or(n, "strides", nd, 1),
                         dil = ints_or(n, "dilations", nd, 1);
    std::vector<int64_t> pads = n.spatial_padding(x.shape(), kernel, strides, dil);
    std::optional<Tensor> bias;
    if (n.has_input(2)) bias = n.in(2);
    return {
        x.conv2d(w, bias, n.attr_int("group", 1), IntOrTuple(strides), IntOrTuple(dil), IntOrTuple(pads))};
  };
  t["ConvInteger"] = [](const Node& n) -> Outs { // (x - x_zero_point) conv (w - w_zero_point) in int32
    Tensor x = n.in(0).cast(DType::Int32), w = n.in(1).cast(DType::Int32);
    if (n.has_input(2)) x = x.sub(n.in(2).cast(DType::Int32));
    if (n.has_input(3)) w = w.sub(n.in(3).cast(DType::Int32));
    size_t nd = n.spatial_rank(x);
    std::vector<int64_t> kernel = n.kernel_arg(w, nd), strides = ints_or(n, "strides", nd, 1),
                         dil = ints_or(n, "dilations", nd, 1);
    std::vector<int64_t> pads = n.spatial_padding(x.shape(), kernel, strides, dil);
    return {x.conv2d(w, std::nullopt, n.attr_int("group", 1), IntOrTuple(strides), IntOrTuple(dil),
                     IntOrTuple(pads), DType::Int32)};
  };
  t["ConvTranspose"] = conv_transpose;
  t["MaxPool"] = max_pool;
  t["AveragePool"] = [](const Node& n) -> Outs { return {average_pool(n)}; };
  t["MaxUnpool"] = [](const Node& n) -> Outs { // each value to its flat index in the output
    Tensor x = n.in(0), idx = n.in(1);
    size_t nd = n.spatial_rank(x);
    std::vector<int64_t> kernel = n.kernel_arg(x, nd), strides = ints_or(n, "strides", nd, 1);
    std::vector<int64_t> pads = n.attr_ints("pads").value_or(std::vector<int64_t>(2 * nd, 0));
    // scattered into the size the pooling implies, then placed at the start of output_shape
    Shape inferred{x.shape()[0], x.shape()[1]};
    for (size_t d = 0; d < nd; ++d)
      inferred.push_back((x.shape()[2 + d] - 1) * strides[d] + kernel[d] - pads[d] - pads[nd + d]);
    int64_t len = prod(inferred);
    Tensor at = positions(len).reshape({1, len});
    Tensor hit = idx.flatten().cast(DType::Int64).unsqueeze(1).eq(at);
    Tensor y = hit.where(x.flatten().unsqueeze(1), Scalar::of_int(0))
                   .sum(std::vector<int>{0})
                   .cast(x.dtype())
                   .reshape(inferred);
    if (!n.has_input(2)) return {y};
    std::vector<int64_t> want = n.known(2).ints();
    if (want.size() != inferred.size())
      n.bad("output_shape has " + std::to_string(want.size()) + " values for a rank-" +
            std::to_string(inferred.size()) + " output");
    Padding grow;
    for (size_t d = 0; d < want.size(); ++d) {
      if (want[d] < inferred[d]) n.bad("output_shape is smaller than the unpooled size");
      grow.push_back(std::pair<int64_t, int64_t>(0, want[d] - inferred[d]));
    }
    return {y.pad(grow)};
  };
  auto global_pool = [](const Node& n) -> Outs {
    std::vector<int> axes;
    for (size_t d = 2; d < n.in(0).shape().size(); ++d) axes.push_back(int(d));
    return {n.op() == "GlobalAveragePool" ? n.in(0).mean(axes, true) : n.in(0).max(axes, true)};
  };
  t["GlobalAveragePool"] = global_pool;
  t["GlobalMaxPool"] = global_pool;
  t["BatchNormalization"] = batch_normalization;
  t["LayerNormalization"] = layer_normalization;
  t["InstanceNormalization"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0);
    std::vector<int> axes;
    for (size_t d = 2; d < x.shape().size(); ++d) axes.push_back(int(d));
    Shape s = channel_shape(x);
    Tensor mean = x.mean(axes, true), var = x.sub(mean).square().mean(axes, true);
    Tensor y = x.sub(mean).mul(var.add(n.attr_float("epsilon", 1e-5)).rsqrt());
    return {y.mul(n.in(1).reshape(s)).add(n.in(2).reshape(s))};
  };
  t["GroupNormalization"] = [](const Node& n) -> Outs { // opset 18: scale and bias per group
    Tensor x = n.in(0);
    int64_t groups = n.attr_int("num_groups", 1);
    Tensor y =
        x.reshape({x.shape()[0], groups, -1}).layernorm(std::vector<int>{-1}, n.attr_float("epsilon", 1e-5));
    return {y.mul(n.in(1).unsqueeze(-1)).add(n.in(2).unsqueeze(-1)).reshape(x.shape())};
  };
  t["MeanVarianceNormalization"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0);
    std::vector<int> axes;
    for (int64_t a : n.attr_ints("axes").value_or(std::vector<int64_t>{0, 2, 3}))
      axes.push_back(Node::norm_axis(a, x.shape().size()));
    Tensor mean = x.mean(axes, true);
    return {x.sub(mean).div(x.sub(mean).square().mean(axes, true).sqrt().add(1e-9))};
  };
  t["LpNormalization"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0);
    int axis = Node::norm_axis(n.attr_int("axis", -1), x.shape().size());
    Tensor norm = n.attr_int("p", 2) == 1 ? x.abs().sum(std::vector<int>{axis}, true)
                                          : x.square().sum(std::vector<int>{axis}, true).sqrt();
    return {x.div(norm)};
  };
  t["LRN"] = [](const Node& n) -> Outs { // x / (bias + alpha/size * sum of squares over nearby channels)^beta
    Tensor x = n.in(0);
    const Shape& s = x.shape();
    int64_t size = n.attr_int("size", 1);
    Shape flat{s[0], 1, s[1], prod(Shape(s.begin() + 2, s.end()))};
    Tensor sq = x.square().reshape(flat).pad(Padding{
        std::nullopt, std::nullopt, std::pair<int64_t, int64_t>((size - 1) / 2, size / 2), std::nullopt});
    Tensor avg = sq.avg_pool2d(IntOrTuple({size, 1}), IntOrTuple(1)).reshape(s);
    return {x.div(
        avg.mul(n.attr_float("alpha", 1e-4)).add(n.attr_float("bias", 1.0)).pow(n.attr_float("beta", 0.75)))};
  };
  auto softmax = [](const Node& n) -> Outs {
    Tensor x = n.in(0);
    bool log = n.op() == "LogSoftmax";
    if (n.opset() >= 13) {
      int axis = Node::norm_axis(n.attr_int("axis", -1), x.shape().size());
      return {log ? x.log_softmax(axis) : x.softmax(axis)};
    }
    // before opset 13: the input as a 2-D matrix at `axis`, normalized over its second dim
    const Shape& s = x.shape();
    int axis = Node::norm_axis(n.attr_int("axis", 1), s.size());
    Tensor flat =
        x.reshape({prod(Shape(s.begin(), s.begin() + axis)), prod(Shape(s.begin() + axis, s.end()))});
    return {(log ? flat.log_softmax(-1) : flat.softmax(-1)).reshape(s)};
  };
  t["Softmax"] = softmax;
  t["LogSoftmax"] = softmax;
  t["NegativeLogLikelihoodLoss"] = [](const Node& n) -> Outs { return {nll(n, n.in(0), n.in(1))}; };
  t["SoftmaxCrossEntropyLoss"] = [](const Node& n) -> Outs {
    Tensor log_prob = n.in(0).log_softmax(1);
    return {nll(n, log_prob, n.in(1)), log_prob};
  };
  t["Dropout"] = dropout;
}

} // namespace tg
