// nn layers of tinygrad/nn 0.9.1 (Linear, Conv1d/2d, ConvTranspose1d/2d, BatchNorm2d, LayerNorm,
// LayerNorm2d, GroupNorm, InstanceNorm, Embedding) with 0.9.1's initializers: the same random
// calls in the same order, so parameters are bit-exact after Tensor::manual_seed (THREEFRY=1).
// A default-constructed layer has no parameters drawn; set the fields and call it.
// Each layer's `fields(layer, visit)` calls visit(name, member) for its attributes, named as
// tinygrad's object has them: the one list the script binding (script/nn_bindings.cpp) reads
// and writes, so a layer's attributes are written down once.
#pragma once
#include <optional>
#include <vector>

#include "tensor/tensor.h"

namespace tg::nn {

struct Linear {
  Tensor weight;
  std::optional<Tensor> bias;
  Linear() = default;
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor operator()(const Tensor& x) const;
  template <class L, class V> static void fields(L& l, V&& visit) {
    visit("weight", l.weight);
    visit("bias", l.bias);
  }
};

struct Conv2d {
  std::vector<int64_t> kernel_size;
  IntOrTuple stride = 1, padding = 0, dilation = 1;
  int64_t groups = 1;
  Tensor weight;
  std::optional<Tensor> bias;
  Conv2d() = default;
  Conv2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
         const IntOrTuple& stride = 1, const IntOrTuple& padding = 0, const IntOrTuple& dilation = 1,
         int64_t groups = 1, bool bias = true);
  Tensor operator()(const Tensor& x) const;
  template <class L, class V> static void fields(L& c, V&& visit) {
    visit("kernel_size", c.kernel_size);
    visit("stride", c.stride);
    visit("padding", c.padding);
    visit("dilation", c.dilation);
    visit("groups", c.groups);
    visit("weight", c.weight);
    visit("bias", c.bias);
  }

protected:
  Conv2d(bool transposed, int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
         const IntOrTuple& stride, const IntOrTuple& padding, const IntOrTuple& dilation, int64_t groups,
         bool bias);
};

struct ConvTranspose2d : Conv2d {
  IntOrTuple output_padding = 0;
  ConvTranspose2d() = default;
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
                  const IntOrTuple& stride = 1, const IntOrTuple& padding = 0,
                  const IntOrTuple& output_padding = 0, const IntOrTuple& dilation = 1, int64_t groups = 1,
                  bool bias = true);
  Tensor operator()(const Tensor& x) const;
  template <class L, class V> static void fields(L& c, V&& visit) {
    Conv2d::fields(c, visit);
    visit("output_padding", c.output_padding);
  }
};

// Conv1d / ConvTranspose1d are functions in 0.9.1: a 2d layer with a one-element kernel_size.
Conv2d Conv1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, const IntOrTuple& stride = 1,
              const IntOrTuple& padding = 0, const IntOrTuple& dilation = 1, int64_t groups = 1,
              bool bias = true);
ConvTranspose2d ConvTranspose1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                                const IntOrTuple& stride = 1, const IntOrTuple& padding = 0,
                                const IntOrTuple& output_padding = 0, const IntOrTuple& dilation = 1,
                                int64_t groups = 1, bool bias = true);

// Eval mode (Tensor::training false) uses the running statistics. In training mode the batch
// statistics are used; updating the running statistics (an assign) is not supported yet, so
// training mode with track_running_stats raises NotImplementedError.
struct BatchNorm2d {
  double eps = 1e-5, momentum = 0.1;
  bool track_running_stats = true;
  std::optional<Tensor> weight, bias;
  Tensor running_mean, running_var, num_batches_tracked;
  BatchNorm2d() = default;
  explicit BatchNorm2d(int64_t sz, double eps = 1e-5, bool affine = true, bool track_running_stats = true,
                       double momentum = 0.1);
  Tensor operator()(const Tensor& x) const;
  template <class L, class V> static void fields(L& b, V&& visit) {
    visit("eps", b.eps);
    visit("track_running_stats", b.track_running_stats);
    visit("momentum", b.momentum);
    visit("weight", b.weight);
    visit("bias", b.bias);
    visit("running_mean", b.running_mean);
    visit("running_var", b.running_var);
    visit("num_batches_tracked", b.num_batches_tracked);
  }
};
using BatchNorm = BatchNorm2d;

struct LayerNorm {
  Shape normalized_shape;
  std::vector<int> axis;
  double eps = 1e-5;
  bool elementwise_affine = true;
  std::optional<Tensor> weight, bias;
  LayerNorm() = default;
  explicit LayerNorm(const Shape& normalized_shape, double eps = 1e-5, bool elementwise_affine = true);
  Tensor operator()(const Tensor& x) const;
  template <class L, class V> static void fields(L& l, V&& visit) {
    visit("normalized_shape", l.normalized_shape);
    visit("axis", l.axis);
    visit("eps", l.eps);
    visit("elementwise_affine", l.elementwise_affine);
    visit("weight", l.weight);
    visit("bias", l.bias);
  }
};

struct LayerNorm2d : LayerNorm {
  using LayerNorm::LayerNorm;
  Tensor operator()(const Tensor& x) const;
};

struct GroupNorm {
  int64_t num_groups = 1, num_channels = 1;
  double eps = 1e-5;
  std::optional<Tensor> weight, bias;
  GroupNorm() = default;
  GroupNorm(int64_t num_groups, int64_t num_channels, double eps = 1e-5, bool affine = true);
  Tensor operator()(const Tensor& x) const;
  template <class L, class V> static void fields(L& g, V&& visit) {
    visit("num_groups", g.num_groups);
    visit("num_channels", g.num_channels);
    visit("eps", g.eps);
    visit("weight", g.weight);
    visit("bias", g.bias);
  }
};

struct InstanceNorm {
  int64_t num_features = 1;
  double eps = 1e-5;
  std::optional<Tensor> weight, bias;
  InstanceNorm() = default;
  explicit InstanceNorm(int64_t num_features, double eps = 1e-5, bool affine = true);
  Tensor operator()(const Tensor& x) const;
  template <class L, class V> static void fields(L& g, V&& visit) {
    visit("num_features", g.num_features);
    visit("eps", g.eps);
    visit("weight", g.weight);
    visit("bias", g.bias);
  }
};

struct Embedding {
  int64_t vocab_sz = 0, embed_sz = 0;
  Tensor weight;
  Embedding() = default;
  Embedding(int64_t vocab_size, int64_t embed_size);
  Tensor operator()(const Tensor& idx) const;
  template <class L, class V> static void fields(L& e, V&& visit) {
    visit("vocab_sz", e.vocab_sz);
    visit("embed_sz", e.embed_sz);
    visit("weight", e.weight);
  }
};

} // namespace tg::nn
