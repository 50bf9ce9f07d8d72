// ONNX's Resize (and the older Upsample): separable interpolation, one axis at a time, as the
// ONNX reference implementation (onnx/reference/ops/op_resize.py) computes it. The sizes and
// scales are known while importing, so each axis's source positions and weights are constants:
// the output along an axis is a weighted sum of a few gathers of the input along it.
#include <algorithm>
#include <cmath>

#include "onnx/node.h"

namespace tg {

namespace {

using Outs = std::vector<Tensor>;

struct ResizeSpec {
  std::string mode, transform, nearest_mode;
  double cubic_a = -0.75, extrapolation = 0.0;
  bool exclude_outside = false, antialias = false;
};

// One output position's taps: source indices (before clamping) and their weights.
struct Taps {
  int64_t first = 0; // the first tap's source index
  std::vector<double> weights;
  bool outside = false; // tf_crop_and_resize outside the input: the extrapolation value
};

double cubic(double x, double a) {
  x = std::abs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0.0;
}

// The weights over taps starting `first_offset` below floor, as the reference's coefficient
// functions give them for `ratio` in (0, 1].
std::vector<double> coefficients(const ResizeSpec& r, double ratio, double scale, int64_t& first_offset) {
  if (r.mode == "nearest") {
    bool second = ratio == 1.0                            ? true
                  : r.nearest_mode == "round_prefer_ceil" ? ratio >= 0.5
                  : r.nearest_mode == "floor"             ? false
                  : r.nearest_mode == "ceil"              ? true
                                                          : ratio > 0.5; // round_prefer_floor
    first_offset = 0;
    return {second ? 0.0 : 1.0, second ? 1.0 : 0.0};
  }
  if (r.antialias && scale < 1.0) { // the filter stretched by 1/scale when downsampling
    double support = r.mode == "linear" ? 1.0 : 2.0;
    int64_t start = int64_t(std::floor(-support / scale) + 1), count = 2 - 2 * start;
    std::vector<double> w;
    double total = 0;
    for (int64_t i = start; i < start + count; ++i) {
      double arg = (double(i) - ratio) * scale;
      w.push_back(r.mode == "linear" ? std::clamp(1 - std::abs(arg), 0.0, 1.0) : cubic(arg, r.cubic_a));
      total += w.back();
    }
    for (double& v : w) v /= total;
    first_offset = start;
    return w;
  }
  if (r.mode == "linear") {
    first_offset = 0;
    return {1 - ratio, ratio};
  }
  double a = r.cubic_a; // cubic
  first_offset = -1;
  return {((a * (ratio + 1) - 5 * a) * (ratio + 1) + 8 * a) * (ratio + 1) - 4 * a,
          ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1,
          ((a + 2) * (1 - ratio) - (a + 3)) * (1 - ratio) * (1 - ratio) + 1,
          ((a * ((1 - ratio) + 1) - 5 * a) * ((1 - ratio) + 1) + 8 * a) * ((1 - ratio) + 1) - 4 * a};
}

Taps taps_for(const ResizeSpec& r, int64_t out_pos, int64_t in_len, int64_t out_len, double scale,
              std::pair<double, double> roi) {
  double x = double(out_pos), width = scale * double(in_len), x_ori = 0;
  const std::string& t = r.transform;
  if (t == "align_corners")
    x_ori = width == 1 ? 0.0 : x * double(in_len - 1) / (width - 1);
  else if (t == "asymmetric")
    x_ori = x / scale;
  else if (t == "tf_half_pixel_for_nn")
    x_ori = (x + 0.5) / scale;
  else if (t == "tf_crop_and_resize") {
    x_ori = width == 1 ? (roi.second - roi.first) * double(in_len - 1) / 2
                       : x * (roi.second - roi.first) * double(in_len - 1) / (width - 1);
    x_ori += roi.first * double(in_len - 1);
    if (x_ori < 0 || x_ori > double(in_len - 1)) return Taps{0, {}, true};
  } else if (t == "pytorch_half_pixel")
    x_ori = width == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  else if (t == "half_pixel_symmetric") {
    double offset = double(in_len) / 2 * (1 - double(out_len) / width);
    x_ori = offset + (x + 0.5) / scale - 0.5;
  } else // half_pixel
    x_ori = (x + 0.5) / scale - 0.5;
  // the reference prefers the left neighbour: an integral position is the right end of (x-1, x]
  double fl = std::floor(x_ori), ratio = x_ori - fl;
  if (ratio == 0) fl -= 1, ratio = 1;
  int64_t offset = 0;
  Taps taps;
  taps.weights = coefficients(r, ratio, scale, offset);
  taps.first = int64_t(fl) + offset;
  if (r.exclude_outside) {
    double total = 0;
    for (size_t j = 0; j < taps.weights.size(); ++j) {
      int64_t i = taps.first + int64_t(j);
      if (i < 0 || i >= in_len) taps.weights[j] = 0;
      total += taps.weights[j];
    }
    for (double& w : taps.weights) w /= total;
  }
  return taps;
}

// x resized along `axis` to `out_len`.
Tensor resize_axis(const Tensor& x, int axis, int64_t out_len, double scale, std::pair<double, double> roi,
                   const ResizeSpec& r) {
  int64_t in_len = x.shape()[size_t(axis)];
  std::vector<Taps> all;
  size_t width = 0;
  bool any_outside = false;
  for (int64_t o = 0; o < out_len; ++o) {
    all.push_back(taps_for(r, o, in_len, out_len, scale, roi));
    width = std::max(width, all.back().weights.size());
    any_outside |= all.back().outside;
  }
  Shape along(x.shape().size(), 1);
  along[size_t(axis)] = out_len;
  auto source = [&](int64_t i) { return std::clamp<int64_t>(i, 0, in_len - 1); };
  std::optional<Tensor> y;
  if (r.mode == "nearest") { // one gather: the tap with weight 1
    std::vector<int64_t> idx;
    for (const Taps& t : all)
      idx.push_back(t.outside ? 0 : source(t.first + (t.weights.size() > 1 && t.weights[1] > 0 ? 1 : 0)));
    std::vector<Index> at(size_t(axis), Index::slice(std::nullopt, std::nullopt, std::nullopt));
    at.push_back(Index::of_tensor(tensor_of(known_ints(idx))));
    y = x.getitem(at);
  } else {
    for (size_t j = 0; j < width; ++j) {
      std::vector<int64_t> idx;
      std::vector<Scalar> w;
      for (const Taps& t : all) {
        bool has = !t.outside && j < t.weights.size();
        idx.push_back(has ? source(t.first + int64_t(j)) : 0);
        w.push_back(Scalar::of_float(has ? t.weights[j] : 0.0));
      }
      std::vector<Index> at(size_t(axis), Index::slice(std::nullopt, std::nullopt, std::nullopt));
      at.push_back(Index::of_tensor(tensor_of(known_ints(idx))));
      Tensor term = x.getitem(at).mul(tensor_of(known_values(x.dtype(), along, w)));
      y = y ? y->add(term) : term;
    }
  }
  if (!any_outside) return *y;
  std::vector<Scalar> inside;
  for (const Taps& t : all) inside.push_back(Scalar::of_bool(!t.outside));
  return tensor_of(known_values(DType::Bool, along, inside)).where(*y, r.extrapolation);
}

Outs resize(const Node& n) {
  Tensor x = n.in(0);
  size_t rank = x.shape().size();
  bool upsample = n.op() == "Upsample" || n.opset() < 11;
  ResizeSpec r;
  r.mode = n.attr_string("mode", "nearest");
  r.transform = upsample ? "asymmetric" : n.attr_string("coordinate_transformation_mode", "half_pixel");
  r.nearest_mode = upsample ? "floor" : n.attr_string("nearest_mode", "round_prefer_floor");
  r.cubic_a = n.attr_float("cubic_coeff_a", -0.75);
  r.extrapolation = n.attr_float("extrapolation_value", 0.0);
  r.exclude_outside = n.attr_int("exclude_outside", 0) != 0;
  r.antialias = n.attr_int("antialias", 0) != 0;
  if (r.mode != "nearest" && r.mode != "linear" && r.mode != "cubic") {
    if (r.mode == "bilinear" || r.mode == "trilinear")
      r.mode = "linear"; // Upsample's old names
    else
      n.bad("mode '" + r.mode + "' is not one of nearest, linear, cubic");
  }
  std::vector<int64_t> axes;
  if (auto a = n.attr_ints("axes"))
    for (int64_t v : *a) axes.push_back(Node::norm_axis(v, rank));
  else
    for (size_t d = 0; d < rank; ++d) axes.push_back(int64_t(d));
  // scales: an attribute (Upsample 7), input 1 (Upsample 9, Resize 10) or input 2; sizes: input 3
  int scales_at = upsample ? 1 : 2;
  std::vector<double> scales(rank, 1.0);
  Shape out = x.shape();
  std::optional<std::vector<double>> given;
  if (auto s = n.attr_floats("scales"))
    given = *s;
  else if (const Known* k = n.maybe_known(scales_at); k && k->count() > 0)
    given = k->floats();
  else if (n.has_input(scales_at) && !n.maybe_known(scales_at))
    n.known(scales_at); // the clear error: it must be known
  if (given) {
    if (given->size() != axes.size())
      n.bad("scales has " + std::to_string(given->size()) + " values for " + std::to_string(axes.size()) +
            " axes");
    for (size_t i = 0; i < axes.size(); ++i) {
      scales[size_t(axes[i])] = (*given)[i];
      out[size_t(axes[i])] = int64_t(double(x.shape()[size_t(axes[i])]) * (*given)[i]);
    }
  } else {
    if (upsample || !n.has_input(3)) n.bad("neither scales nor sizes is given");
    std::vector<int64_t> sizes = n.known(3).ints();
    if (sizes.size() != axes.size())
      n.bad("sizes has " + std::to_string(sizes.size()) + " values for " + std::to_string(axes.size()) +
            " axes");
    for (size_t i = 0; i < axes.size(); ++i) {
      size_t d = size_t(axes[i]);
      out[d] = sizes[i], scales[d] = double(sizes[i]) / double(x.shape()[d]);
    }
    std::string policy = n.attr_string("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch") {
      double s = policy == "not_larger" ? INFINITY : -INFINITY;
      for (int64_t d : axes)
        s = policy == "not_larger" ? std::min(s, scales[size_t(d)]) : std::max(s, scales[size_t(d)]);
      for (int64_t d : axes)
        scales[size_t(d)] = s, out[size_t(d)] = int64_t(s * double(x.shape()[size_t(d)]) + 0.5);
    }
  }
  std::vector<std::pair<double, double>> roi(rank, {0.0, 1.0});
  if (r.transform == "tf_crop_and_resize") {
    std::vector<double> v = n.known(1).floats();
    if (v.size() != 2 * axes.size()) n.bad("roi needs " + std::to_string(2 * axes.size()) + " values");
    for (size_t i = 0; i < axes.size(); ++i) roi[size_t(axes[i])] = {v[i], v[axes.size() + i]};
  }
  DType dt = x.dtype();
  Tensor y = r.mode == "nearest" || is_float(dt) ? x : x.cast(DType::Float32);
  for (size_t d = rank; d-- > 0;) {
    bool identity = out[d] == x.shape()[d] && scales[d] == 1.0 && r.transform != "tf_crop_and_resize" &&
                    r.transform != "align_corners";
    if (!identity) y = resize_axis(y, int(d), out[d], scales[d], roi[d], r);
  }
  return {y.dtype() == dt ? y : y.cast(dt)};
}

} // namespace

void add_resize_ops(OpTable& t) {
  t["Resize"] = resize;
  t["Upsample"] = resize;
}

} // namespace tg
