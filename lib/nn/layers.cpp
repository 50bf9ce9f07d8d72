// nn layers: tinygrad/nn/__init__.py 0.9.1, line for line.
#include "nn/layers.h"

#include <cmath>

#include "tensor/tensor_device.h"
#include "tensor/tensor_impl.h"
#include "util/error.h"

namespace tg::nn {
namespace {

const double kSqrt5 = std::sqrt(5.0);

// weight.reshape(1, -1, *[1] * (ndim-2))
Shape channel_shape(int ndim) {
  Shape s{1, -1};
  for (int k = 2; k < ndim; ++k) s.push_back(1);
  return s;
}

Tensor affine(const Tensor& x, const std::optional<Tensor>& w, const std::optional<Tensor>& b) {
  if (!w || !b) return x;
  Shape s = channel_shape(x.ndim());
  return x.mul(w->reshape(s)).add(b->reshape(s));
}

} // namespace

Linear::Linear(int64_t in_features, int64_t out_features, bool with_bias) {
  weight = Tensor::kaiming_uniform({out_features, in_features}, kSqrt5);
  double bound = 1 / std::sqrt(double(in_features));
  if (with_bias) bias = Tensor::uniform({out_features}, -bound, bound);
}
Tensor Linear::operator()(const Tensor& x) const { return x.linear(weight.transpose(), bias); }

Conv2d::Conv2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& ks, const IntOrTuple& stride_,
               const IntOrTuple& padding_, const IntOrTuple& dilation_, int64_t groups_, bool with_bias)
    : Conv2d(false, in_channels, out_channels, ks, stride_, padding_, dilation_, groups_, with_bias) {}

Conv2d::Conv2d(bool transposed, int64_t in_channels, int64_t out_channels, const IntOrTuple& ks,
               const IntOrTuple& stride_, const IntOrTuple& padding_, const IntOrTuple& dilation_,
               int64_t groups_, bool with_bias)
    : kernel_size(ks.make_pair(2)), stride(stride_), padding(padding_), dilation(dilation_), groups(groups_) {
  Shape ws =
      transposed ? Shape{in_channels, out_channels / groups} : Shape{out_channels, in_channels / groups};
  for (int64_t k : kernel_size) ws.push_back(k);
  weight = Tensor::kaiming_uniform(ws, kSqrt5);
  int64_t fan = 1;
  for (size_t k = 1; k < ws.size(); ++k) fan *= ws[k];
  double bound = 1 / std::sqrt(double(fan));
  if (with_bias) bias = Tensor::uniform({out_channels}, -bound, bound);
}
Tensor Conv2d::operator()(const Tensor& x) const {
  return x.conv2d(weight, bias, groups, stride, dilation, padding);
}

ConvTranspose2d::ConvTranspose2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& ks,
                                 const IntOrTuple& stride_, const IntOrTuple& padding_,
                                 const IntOrTuple& output_padding_, const IntOrTuple& dilation_,
                                 int64_t groups_, bool with_bias)
    : Conv2d(true, in_channels, out_channels, ks, stride_, padding_, dilation_, groups_, with_bias),
      output_padding(output_padding_) {}
Tensor ConvTranspose2d::operator()(const Tensor& x) const {
  return x.conv_transpose2d(weight, bias, groups, stride, dilation, padding, output_padding);
}

Conv2d Conv1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, const IntOrTuple& stride,
              const IntOrTuple& padding, const IntOrTuple& dilation, int64_t groups, bool bias) {
  return Conv2d(in_channels, out_channels, IntOrTuple(std::vector<int64_t>{kernel_size}), stride, padding,
                dilation, groups, bias);
}
ConvTranspose2d ConvTranspose1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                                const IntOrTuple& stride, const IntOrTuple& padding,
                                const IntOrTuple& output_padding, const IntOrTuple& dilation, int64_t groups,
                                bool bias) {
  return ConvTranspose2d(in_channels, out_channels, IntOrTuple(std::vector<int64_t>{kernel_size}), stride,
                         padding, output_padding, dilation, groups, bias);
}

BatchNorm2d::BatchNorm2d(int64_t sz, double eps_, bool affine_, bool track, double momentum_)
    : eps(eps_), momentum(momentum_), track_running_stats(track) {
  if (affine_) {
    weight = Tensor::ones({sz});
    bias = Tensor::zeros({sz});
  }
  running_mean = Tensor::zeros({sz});
  running_mean.set_requires_grad(false);
  running_var = Tensor::ones({sz});
  running_var.set_requires_grad(false);
  num_batches_tracked = Tensor::zeros({1});
  num_batches_tracked.set_requires_grad(false);
}
Tensor BatchNorm2d::operator()(const Tensor& x) const {
  if (Tensor::training) {
    std::vector<int> ax{0, 2, 3};
    Tensor batch_mean = x.mean(ax);
    Tensor y = x.sub(batch_mean.detach().reshape({1, -1, 1, 1}));
    Tensor batch_var = y.mul(y).mean(ax);
    Tensor batch_invstd = batch_var.add(eps).pow(-0.5);
    if (track_running_stats) {
      // The handles share the layer's tensors: the assigns update the layer's statistics.
      Tensor rm = running_mean, rv = running_var, nbt = num_batches_tracked;
      rm.assign(rm.mul(1 - momentum, true).add(batch_mean.detach().mul(momentum, true)));
      double n = double(prod(y.shape())), unbiased = momentum * n / (n - double(y.shape()[1]));
      rv.assign(rv.mul(1 - momentum, true).add(batch_var.detach().mul(unbiased, true)));
      nbt.assign(nbt.add(1));
    }
    return x.batchnorm(weight, bias, batch_mean, batch_invstd);
  }
  Tensor invstd = running_var.reshape({1, -1, 1, 1}).expand(x.shape()).add(eps).rsqrt();
  return x.batchnorm(weight, bias, running_mean, invstd);
}

LayerNorm::LayerNorm(const Shape& ns, double eps_, bool ea)
    : normalized_shape(ns), eps(eps_), elementwise_affine(ea) {
  for (size_t i = 0; i < ns.size(); ++i) axis.push_back(-1 - int(i));
  if (ea) {
    weight = Tensor::ones(ns);
    bias = Tensor::zeros(ns);
  }
}
Tensor LayerNorm::operator()(const Tensor& x) const {
  const Shape& xs = x.shape();
  size_t n = normalized_shape.size();
  // Python's x.shape[-n:] (the whole shape when n exceeds it)
  Shape tail(xs.end() - std::min(n, xs.size()), xs.end());
  if (tail != normalized_shape)
    throw Error("AssertionError", "last dimensions of " + py::tuple_repr(xs) + " must match " +
                                      py::tuple_repr(normalized_shape));
  Tensor y = x.layernorm(axis, eps);
  if (!elementwise_affine) return y;
  return y.mul(*weight).add(*bias);
}

Tensor LayerNorm2d::operator()(const Tensor& x) const {
  return LayerNorm::operator()(x.permute({0, 2, 3, 1})).permute({0, 3, 1, 2});
}

GroupNorm::GroupNorm(int64_t ng, int64_t nc, double eps_, bool affine_)
    : num_groups(ng), num_channels(nc), eps(eps_) {
  if (affine_) {
    weight = Tensor::ones({nc});
    bias = Tensor::zeros({nc});
  }
}
Tensor GroupNorm::operator()(const Tensor& x) const {
  Tensor y =
      x.reshape({x.shape()[0], num_groups, -1}).layernorm(std::vector<int>{-1}, eps).reshape(x.shape());
  return affine(y, weight, bias);
}

InstanceNorm::InstanceNorm(int64_t nf, double eps_, bool affine_) : num_features(nf), eps(eps_) {
  if (affine_) {
    weight = Tensor::ones({nf});
    bias = Tensor::zeros({nf});
  }
}
Tensor InstanceNorm::operator()(const Tensor& x) const {
  Tensor y =
      x.reshape({x.shape()[0], num_features, -1}).layernorm(std::vector<int>{-1}, eps).reshape(x.shape());
  return affine(y, weight, bias);
}

Embedding::Embedding(int64_t vocab_size, int64_t embed_size)
    : vocab_sz(vocab_size), embed_sz(embed_size), weight(Tensor::glorot_uniform({vocab_size, embed_size})) {}
Tensor Embedding::operator()(const Tensor& idx) const {
  Shape is = idx.shape();
  if (idx.numel() == 0) {
    is.push_back(embed_sz);
    return Tensor::empty(is);
  }
  Shape big = is;
  big.push_back(vocab_sz);
  big.push_back(embed_sz);
  Shape ishp = is;
  ishp.push_back(1);
  ishp.push_back(1);
  Tensor ar = Tensor::arange(Scalar::of_int(vocab_sz)).placed_like(weight);
  ar.set_requires_grad(false);
  ar = ar.reshape({1, 1, vocab_sz, 1});
  Tensor vals = weight.reshape({1, 1, vocab_sz, embed_sz}).expand(big);
  return ar.expand(big).eq(idx.reshape(ishp).expand(big)).mul(vals).sum(std::vector<int>{2});
}

} // namespace tg::nn
