// ONNX's signal ops: window functions, computed while importing (their size is known; periodic
// windows divide by N, symmetric ones by N - 1), and DFT and STFT as products with constant
// cosine and sine matrices (ONNX operator docs).
#include <cmath>

#include "onnx/node.h"

namespace tg {

namespace {

using Outs = std::vector<Tensor>;

// sum of a_j cos(2 pi j n / N) over the coefficients, n in [0, size)
Outs window(const Node& n, const std::vector<double>& a) {
  int64_t size = n.known(0).ints().at(0);
  bool periodic = n.attr_int("periodic", 1) != 0;
  std::optional<DType> dt = dtype_of_onnx(int(n.attr_int("output_datatype", 1)));
  if (!dt) n.bad("output_datatype " + std::to_string(n.attr_int("output_datatype", 1)) + " is not imported");
  double denom = double(periodic ? size : size - 1);
  std::vector<Scalar> w;
  for (int64_t i = 0; i < size; ++i) {
    double v = 0;
    for (size_t j = 0; j < a.size(); ++j) v += a[j] * std::cos(2 * M_PI * double(j) * double(i) / denom);
    w.push_back(Scalar::of_float(v));
  }
  Known k = known_values(*dt, {size}, w);
  n.set_known(0, k);
  return {tensor_of(k)};
}

// The real and imaginary parts of x along its last axis (... , 1 or 2).
std::pair<Tensor, std::optional<Tensor>> complex_parts(const Tensor& x, const Node& n) {
  const Shape& s = x.shape();
  if (s.empty() || (s.back() != 1 && s.back() != 2))
    n.bad("the last axis must hold 1 (real) or 2 (complex) values");
  Shape rest(s.begin(), s.end() - 1);
  auto part = [&](int64_t i) {
    Padding p(s.size(), std::nullopt);
    p.back() = std::pair<int64_t, int64_t>(i, i + 1);
    return x.shrink(p).reshape(rest);
  };
  if (s.back() == 1) return {part(0), std::nullopt};
  return {part(0), part(1)};
}

// The DFT over the last axis of re (and im) with `length` points (the signal cut or zero-padded to
// it), `bins` output frequencies; (..., bins, 2).
Tensor dft_last(Tensor re, std::optional<Tensor> im, int64_t length, int64_t bins, bool inverse) {
  int64_t have = re.shape().back();
  Padding fit(re.shape().size(), std::nullopt);
  fit.back() = std::pair<int64_t, int64_t>(0, length - have);
  if (have > length) {
    Padding cut(re.shape().size(), std::nullopt);
    cut.back() = std::pair<int64_t, int64_t>(0, length);
    re = re.shrink(cut);
    if (im) im = im->shrink(cut);
  } else if (have < length) {
    re = re.pad(fit);
    if (im) im = im->pad(fit);
  }
  std::vector<Scalar> c, sn;
  for (int64_t i = 0; i < length; ++i)
    for (int64_t k = 0; k < bins; ++k) {
      double angle = 2 * M_PI * double((i * k) % length) / double(length);
      c.push_back(Scalar::of_float(std::cos(angle))), sn.push_back(Scalar::of_float(std::sin(angle)));
    }
  DType dt = re.dtype();
  Tensor cm = tensor_of(known_values(dt, {length, bins}, c)),
         sm = tensor_of(known_values(dt, {length, bins}, sn));
  // e^{-i angle} forward, e^{+i angle} (and 1/length) inverse
  double sign = inverse ? 1.0 : -1.0;
  Tensor out_re = re.matmul(cm), out_im = re.matmul(sm).mul(sign);
  if (im) out_re = out_re.sub(im->matmul(sm).mul(sign)), out_im = out_im.add(im->matmul(cm));
  if (inverse) out_re = out_re.div(double(length)), out_im = out_im.div(double(length));
  return out_re.unsqueeze(-1).cat({out_im.unsqueeze(-1)}, -1);
}

Outs dft(const Node& n) {
  Tensor x = n.in(0);
  size_t rank = x.shape().size();
  int64_t axis_v = n.opset() >= 20 ? (n.has_input(2) ? n.known(2).ints().at(0) : -2) : n.attr_int("axis", 1);
  int axis = Node::norm_axis(axis_v, rank);
  if (axis == int(rank) - 1)
    n.bad("the axis must not be the last one (it holds the real and imaginary parts)");
  bool inverse = n.attr_int("inverse", 0) != 0, onesided = n.attr_int("onesided", 0) != 0;
  int64_t length = n.has_input(1) ? n.known(1).ints().at(0) : int64_t(x.shape()[size_t(axis)]);
  // the signal axis last, then back where it was
  std::vector<int> perm;
  for (size_t d = 0; d + 1 < rank; ++d)
    if (int(d) != axis) perm.push_back(int(d));
  perm.push_back(axis);
  perm.push_back(int(rank) - 1);
  auto [re, im] = complex_parts(x.permute(perm), n);
  if (onesided && im) n.bad("onesided needs a real signal");
  Tensor y = dft_last(re, im, length, onesided ? length / 2 + 1 : length, inverse);
  std::vector<int> back(rank);
  for (size_t d = 0; d < rank; ++d) back[size_t(perm[d])] = int(d);
  return {y.permute(back)};
}

Outs stft(const Node& n) {
  Tensor x = n.in(0);
  if (x.shape().size() != 3) n.bad("the signal must be [batch, length, 1 or 2]");
  int64_t step = n.known(1).ints().at(0), len = x.shape()[1];
  std::optional<Tensor> window;
  if (n.has_input(2)) window = n.in(2);
  int64_t frame = n.has_input(3) ? n.known(3).ints().at(0) : window ? int64_t(window->shape().at(0)) : 0;
  if (frame <= 0 || step <= 0 || frame > len) n.bad("frame_length and frame_step must fit the signal");
  bool onesided = n.attr_int("onesided", 1) != 0;
  auto [re, im] = complex_parts(x, n); // (batch, length)
  int64_t frames = (len - frame) / step + 1;
  auto framed = [&](const Tensor& t) {
    std::vector<Tensor> parts;
    for (int64_t f = 0; f < frames; ++f) {
      Tensor part =
          t.shrink({std::nullopt, std::pair<int64_t, int64_t>(f * step, f * step + frame)}).unsqueeze(1);
      parts.push_back(window ? part.mul(window->reshape({1, 1, frame})) : part);
    }
    return parts[0].cat(std::vector<Tensor>(parts.begin() + 1, parts.end()), 1); // (batch, frames, frame)
  };
  std::optional<Tensor> fim;
  if (im) fim = framed(*im);
  return {dft_last(framed(re), fim, frame, onesided ? frame / 2 + 1 : frame, false)};
}

// The triangular mel filter bank (ONNX's reference implementation): (dft_length/2 + 1, bins),
// computed while importing from its known scalar inputs.
Outs mel_weight_matrix(const Node& n) {
  int64_t bins = n.known(0).ints().at(0), dft = n.known(1).ints().at(0);
  double rate = n.known(2).floats().at(0), lo = n.known(3).floats().at(0), hi = n.known(4).floats().at(0);
  if (bins <= 0 || dft <= 0 || rate <= 0) n.bad("num_mel_bins, dft_length and sample_rate must be positive");
  std::optional<DType> dt = dtype_of_onnx(int(n.attr_int("output_datatype", 1)));
  if (!dt) n.bad("output_datatype " + std::to_string(n.attr_int("output_datatype", 1)) + " is not imported");
  int64_t spectrum = dft / 2 + 1;
  double lo_mel = 2595 * std::log10(1 + lo / 700), hi_mel = 2595 * std::log10(1 + hi / 700);
  double step = (hi_mel - lo_mel) / double(bins + 2);
  std::vector<int64_t> edge;
  for (int64_t i = 0; i < bins + 2; ++i) {
    double hz = 700 * (std::pow(10.0, (double(i) * step + lo_mel) / 2595) - 1);
    edge.push_back(int64_t(std::floor(double(dft + 1) * hz / rate)));
  }
  std::vector<double> w(size_t(spectrum * bins), 0.0);
  auto at = [&](int64_t j, int64_t i) -> double& {
    if (j < 0 || j >= spectrum) n.bad("a mel bin edge falls outside the spectrum");
    return w[size_t(j * bins + i)];
  };
  for (int64_t i = 0; i < bins; ++i) {
    int64_t left = edge[size_t(i)], center = edge[size_t(i + 1)], right = edge[size_t(i + 2)];
    if (center == left)
      at(center, i) = 1;
    else
      for (int64_t j = left; j <= center; ++j) at(j, i) = double(j - left) / double(center - left);
    for (int64_t j = center; j < right; ++j) at(j, i) = double(right - j) / double(right - center);
  }
  std::vector<Scalar> v;
  for (double x : w) v.push_back(Scalar::of_float(x));
  Known k = known_values(*dt, {spectrum, bins}, v);
  n.set_known(0, k);
  return {tensor_of(k)};
}

} // namespace

void add_signal_ops(OpTable& t) {
  t["MelWeightMatrix"] = mel_weight_matrix;
  t["DFT"] = dft;
  t["STFT"] = stft;
  t["HannWindow"] = [](const Node& n) -> Outs { return window(n, {0.5, -0.5}); };
  t["HammingWindow"] = [](const Node& n) -> Outs { return window(n, {25.0 / 46.0, -(1 - 25.0 / 46.0)}); };
  t["BlackmanWindow"] = [](const Node& n) -> Outs { return window(n, {0.42, -0.5, 0.08}); };
}

} // namespace tg
