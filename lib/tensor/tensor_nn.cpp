// nn functional ops of tensor.py 0.9.1: linear, layernorm, batchnorm, dropout, one_hot,
// scaled_dot_product_attention, the losses, pooling, conv2d / conv_transpose2d (the general
// path only: tg has no winograd), einsum and multinomial. Graph construction follows tensor.py
// step by step so that the scheduled graph matches tinygrad's.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "tensor/tensor_device.h"
#include "tensor/tensor_impl.h"
#include "util/error.h"

namespace tg {

bool Tensor::training = false;

namespace {

using Pair = std::pair<int64_t, int64_t>;

Shape concat(Shape a, const Shape& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// the last n axes, as tuple(range(-n, 0))
std::vector<int> last_axes(size_t n) {
  std::vector<int> axes;
  for (int k = -int(n); k < 0; ++k) axes.push_back(k);
  return axes;
}

Tensor pool_kernel(const Tensor& t, const IntOrTuple& kernel_size, const std::optional<IntOrTuple>& stride,
                   const IntOrTuple& dilation) {
  std::vector<int64_t> k = kernel_size.make_pair(2);
  IntOrTuple s = stride ? *stride : IntOrTuple(k);
  return pool(t, shape_from_ints(k), s.make_pair(k.size()), dilation.make_pair(k.size()));
}

} // namespace

Tensor Tensor::linear(const Tensor& weight, const std::optional<Tensor>& bias) const {
  Tensor x = weight.ndim() == 1 ? mul(weight) : dot(weight);
  return bias ? x.add(*bias) : x;
}

Tensor Tensor::layernorm(const AxisArg& axis, double eps) const {
  Tensor y = sub(mean(axis, true));
  return y.mul(y.mul(y).mean(axis, true).add(eps).rsqrt());
}

Tensor Tensor::batchnorm(const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                         const Tensor& mean, const Tensor& invstd, const std::vector<int>& axis) const {
  Shape shape;
  for (int ax = 0; ax < ndim(); ++ax)
    shape.push_back(std::find(axis.begin(), axis.end(), ax) != axis.end() ? this->shape()[ax] : sint(1));
  Tensor x = sub(mean.reshape(shape));
  if (weight) x = x.mul(weight->reshape(shape));
  Tensor ret = x.mul(size_t(invstd.ndim()) == axis.size() ? invstd.reshape(shape) : invstd);
  return bias ? ret.add(bias->reshape(shape)) : ret;
}

Tensor Tensor::dropout(double p) const {
  if (!training || p == 0) return *this;
  Tensor r = draw_placed_like([&] { return Tensor::rand(shape(), kDefaultFloat); }, *this);
  r.set_requires_grad(false);
  if (p == 1.0) fail("ZeroDivisionError", "float division by zero");
  return mul(r.ge(p)).mul(1 / (1.0 - p));
}

Tensor Tensor::one_hot(int64_t num_classes) const {
  Tensor classes = Tensor::arange(Scalar::of_int(num_classes)).placed_like(*this);
  classes.set_requires_grad(false);
  return getitem({Index::ellipsis(), Index::none()}).eq(classes).where(1, 0);
}

Tensor Tensor::scaled_dot_product_attention(const Tensor& key, const Tensor& value,
                                            const std::optional<Tensor>& attn_mask, double dropout_p,
                                            bool is_causal) const {
  std::optional<Tensor> mask = attn_mask;
  if (is_causal) {
    Tensor ones = Tensor::ones({shape()[ndim() - 2], key.shape()[key.ndim() - 2]}).placed_like(*this);
    ones.set_requires_grad(false);
    mask = ones.tril(0).cast(DType::Bool);
  }
  if (mask && mask->dtype() == DType::Bool)
    mask = mask->eq(0).where(-std::numeric_limits<double>::infinity(), 0);
  DType acc = least_upper_dtype(least_upper_dtype(dtype(), key.dtype()), DType::Float32);
  Tensor qk = matmul(key.transpose(-2, -1), false, acc).div(std::sqrt(double(shape().back())));
  return (mask ? qk.add(*mask) : qk).softmax(-1).cast(dtype()).dropout(dropout_p).matmul(value);
}

Tensor Tensor::binary_crossentropy(const Tensor& y) const {
  return y.neg().mul(log()).sub(y.sub(1, true).mul(sub(1, true).log())).mean();
}

Tensor Tensor::binary_crossentropy_logits(const Tensor& y) const {
  return maximum(0).sub(y.mul(*this)).add(abs().neg().exp().add(1, true).log()).mean();
}

Tensor Tensor::sparse_categorical_crossentropy(const Tensor& Y, int64_t ignore_index,
                                               double label_smoothing) const {
  check(0.0 <= label_smoothing && label_smoothing <= 1.0, "AssertionError",
        "label_smoothing must be in [0.0, 1.0]");
  Tensor log_probs = log_softmax(), loss_mask = Y.ne(ignore_index);
  int64_t classes = shape().back();
  Tensor counter = Tensor::arange(Scalar::of_int(classes)).placed_like(*this);
  counter.set_requires_grad(false);
  Tensor y_counter = counter.unsqueeze(0).expand({Y.numel(), classes});
  Tensor y = y_counter.eq(Y.flatten().reshape({-1, 1}))
                 .mul(loss_mask.reshape({-1, 1}))
                 .reshape(concat(Y.shape(), {classes}));
  Tensor smoothing = log_probs.mean(std::vector<int>{-1}).mul(loss_mask).sum().mul(label_smoothing, true);
  return log_probs.mul(y).sum().mul(1 - label_smoothing, true).add(smoothing).neg().div(loss_mask.sum());
}

Tensor Tensor::avg_pool2d(const IntOrTuple& kernel_size, const std::optional<IntOrTuple>& stride,
                          const IntOrTuple& dilation) const {
  size_t n = kernel_size.make_pair(2).size();
  return pool_kernel(*this, kernel_size, stride, dilation).mean(last_axes(n));
}

Tensor Tensor::max_pool2d(const IntOrTuple& kernel_size, const std::optional<IntOrTuple>& stride,
                          const IntOrTuple& dilation) const {
  size_t n = kernel_size.make_pair(2).size();
  return pool_kernel(*this, kernel_size, stride, dilation).max(last_axes(n));
}

Tensor Tensor::conv2d(const Tensor& weight, const std::optional<Tensor>& bias, int64_t groups,
                      const IntOrTuple& stride, const IntOrTuple& dilation, const IntOrTuple& padding,
                      std::optional<DType> acc_dtype) const {
  if (ndim() < 2 || weight.ndim() < 2)
    fail("ValueError", "not enough values to unpack (expected 2, got " +
                           std::to_string(std::min(ndim(), weight.ndim())) + ")");
  const sint bs = shape()[0]; // a batch may be symbolic (an ONNX model traced with --dim)
  int64_t cin_ = shape()[1], cout = weight.shape()[0], cin = weight.shape()[1];
  Shape HW(weight.shape().begin() + 2, weight.shape().end());
  size_t n = HW.size();
  check(groups * cin == cin_ && ndim() == weight.ndim(), "AssertionError",
        "Input Tensor shape " + py::tuple_repr(shape()) + " does not match the shape of the weights " +
            py::tuple_repr(weight.shape()) + ". (" + std::to_string(groups * cin) + " vs. " +
            std::to_string(cin_) + ")");
  std::vector<int64_t> padding_;
  if (padding.is_int) {
    padding_.assign(2 * n, padding.values[0]);
  } else {
    size_t len = padding.values.size();
    check(len == 2 * n || len == n, "AssertionError",
          "Expected padding of length " + std::to_string(2 * n) + " or " + std::to_string(n) + ", but got " +
              std::to_string(len) + " for tensor of shape " + py::tuple_repr(shape()));
    if (len == 2 * n) {
      padding_ = padding.values;
    } else {
      for (int64_t p : padding.values) padding_.insert(padding_.end(), {p, p});
      std::reverse(padding_.begin(), padding_.end());
    }
  }
  Tensor x = pool(pad2d(padding_), HW, stride.make_pair(n), dilation.make_pair(n));
  int64_t rcout = cout / groups;
  Shape oyx(x.shape().begin() + 2, x.shape().end() - n);
  std::vector<int> order = {0, 1, 3};
  for (size_t i = 0; i < oyx.size(); ++i) order.push_back(int(4 + i));
  order.push_back(2);
  for (size_t i = 0; i < n; ++i) order.push_back(int(4 + oyx.size() + i));
  x = x.reshape(concat(concat({bs, groups, cin, 1}, oyx), HW))
          .expand(concat(concat({bs, groups, cin, rcout}, oyx), HW))
          .permute(order);
  std::vector<int> axes;
  for (size_t i = 0; i < 1 + oyx.size(); ++i) axes.push_back(-1 - int(i));
  Tensor w = weight.reshape(concat(concat(concat({1, groups, rcout}, Shape(oyx.size(), 1)), {cin}), HW));
  Tensor ret = x.mul(w).sum(axes, true, acc_dtype).reshape(concat({bs, cout}, oyx));
  return bias ? ret.add(bias->reshape(concat({1, -1}, Shape(n, 1)))) : ret;
}

Tensor Tensor::conv_transpose2d(const Tensor& weight, const std::optional<Tensor>& bias, int64_t groups,
                                const IntOrTuple& stride, const IntOrTuple& dilation,
                                const IntOrTuple& padding, const IntOrTuple& output_padding) const {
  std::vector<int> flip_axes;
  for (int k = 3; k < weight.ndim() + 1; ++k) flip_axes.push_back(k);
  Tensor x = *this, w = weight.unflatten(0, {groups, -1}).transpose(1, 2).flip(flip_axes);
  Shape HW(weight.shape().begin() + 2, weight.shape().end());
  size_t n = HW.size();
  auto s_ = stride.make_pair(n), d_ = dilation.make_pair(n), p_ = padding.make_pair(n),
       op_ = output_padding.make_pair(n);
  if (std::any_of(s_.begin(), s_.end(), [](int64_t s) { return s > 1; })) {
    Shape keep2 = {kKeepDim, kKeepDim}, rs1 = keep2, rs2 = keep2;
    for (size_t k = 2; k < size_t(x.ndim()); ++k) rs1.insert(rs1.end(), {x.shape()[k], 1});
    x = x.reshape(rs1);
    Padding pad = {std::nullopt, std::nullopt};
    for (int64_t s : s_) pad.insert(pad.end(), {std::nullopt, Pair{0, s - 1}});
    x = x.pad(pad);
    for (size_t k = 0; k < s_.size(); ++k) rs2.push_back(x.shape()[2 + 2 * k] * s_[k]);
    x = x.reshape(rs2);
    Padding sh = {std::nullopt, std::nullopt};
    for (size_t k = 0; k < s_.size() && 2 + k < size_t(x.ndim()); ++k)
      sh.push_back(Pair{0, x.shape()[2 + k] - (s_[k] - 1)});
    x = x.shrink(sh);
  }
  std::vector<int64_t> pads;
  for (size_t j = n; j-- > 0;) {
    int64_t k = HW[j], d = d_[j], p = p_[j], op = op_[j];
    pads.insert(pads.end(), {(k - 1) * d - p, (k - 1) * d - p + op});
  }
  return x.conv2d(w.flatten(0, 1), bias, groups, IntOrTuple(1), IntOrTuple(d_), IntOrTuple(pads));
}

Tensor Tensor::einsum(const std::string& raw_formula, const std::vector<Tensor>& xs,
                      std::optional<DType> acc_dtype) {
  std::string formula;
  for (char c : raw_formula)
    if (c != ' ') formula += c;
  std::string inputs_str, output;
  if (auto arrow = formula.find("->"); arrow != std::string::npos) {
    inputs_str = formula.substr(0, arrow);
    output = formula.substr(arrow + 2);
    if (output.find("->") != std::string::npos) fail("ValueError", "too many values to unpack (expected 2)");
  } else {
    inputs_str = formula;
    std::string sorted = formula;
    std::sort(sorted.begin(), sorted.end());
    for (char c : sorted)
      if (std::count(formula.begin(), formula.end(), c) == 1 && std::isalpha((unsigned char)c)) output += c;
  }
  std::vector<std::string> inputs;
  for (size_t start = 0;;) {
    size_t comma = inputs_str.find(',', start);
    inputs.push_back(inputs_str.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  check(xs.size() == inputs.size(), "AssertionError",
        "number of inputs doesn't match number of operands in formula, expected " +
            std::to_string(inputs.size()) + ", got " + std::to_string(xs.size()));
  // helpers.merge_dicts over dict(zip(letters, shape)) per operand (the last occurrence wins)
  std::map<char, int64_t> letter_val; // sorted by letter
  std::vector<std::pair<char, int64_t>> kvs;
  bool conflict = false;
  for (size_t i = 0; i < xs.size(); ++i) {
    std::map<char, int64_t> d;
    for (size_t j = 0; j < inputs[i].size() && j < xs[i].shape().size(); ++j)
      d[inputs[i][j]] = xs[i].shape()[j];
    for (auto [k, v] : d) {
      if (std::find(kvs.begin(), kvs.end(), std::make_pair(k, v)) == kvs.end()) kvs.emplace_back(k, v);
      auto [it, fresh] = letter_val.emplace(k, v);
      conflict |= !fresh && it->second != v;
    }
  }
  if (conflict) { // Python prints a set of pairs, in an order that depends on string hashing
    std::string set;
    for (auto [k, v] : kvs)
      set += (set.empty() ? "{('" : ", ('") + std::string(1, k) + "', " + std::to_string(v) + ")";
    fail("AssertionError", "cannot merge, " + set + "} contains different values for the same key");
  }
  std::optional<Tensor> product;
  for (size_t i = 0; i < xs.size(); ++i) {
    std::vector<int> order(inputs[i].size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return inputs[i][a] < inputs[i][b]; });
    Shape rs, ex;
    for (auto [letter, val] : letter_val) {
      rs.push_back(inputs[i].find(letter) != std::string::npos ? val : 1);
      ex.push_back(val);
    }
    Tensor x = xs[i].permute(order).reshape(rs).expand(ex);
    product = product ? product->mul(x) : x;
  }
  std::vector<int> out_letters(output.begin(), output.end());
  std::vector<int> rhs_order = py::argsort(py::argsort(out_letters));
  std::vector<int> axes;
  int axis = 0;
  for (auto [letter, val] : letter_val) {
    if (output.find(letter) == std::string::npos) axes.push_back(axis);
    ++axis;
  }
  return product->sum(axes, false, acc_dtype).permute(rhs_order);
}

Tensor Tensor::multinomial(int64_t num_samples, bool replacement) const {
  check(1 <= ndim() && ndim() <= 2 && num_samples > 0, "AssertionError",
        "self.ndim=" + std::to_string(ndim()) +
            " must be 1 or 2 dim, num_samples=" + std::to_string(num_samples) + " must be positive");
  check(replacement || num_samples == 1, "AssertionError", "no replacement only supports num_samples = 1");
  Tensor weight = ndim() == 1 ? unsqueeze(0) : *this;
  Tensor cw = weight.cumsum(1).float_();
  Tensor cdf = cw.div(
      cw.getitem({Index::slice(std::nullopt, std::nullopt, std::nullopt), Index::integer(-1)}).unsqueeze(1));
  Tensor unif = Tensor::rand({num_samples, cdf.shape()[0], 1});
  Tensor indices = unif.expand({-1, -1, cdf.shape()[1]}).ge(cdf).sum(std::vector<int>{2}).permute({1, 0});
  return (ndim() == 1 ? indices.squeeze(0) : indices).cast(DType::Int32);
}

} // namespace tg
