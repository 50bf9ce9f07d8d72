// Reductions and what tensor.py builds from them: sum/max/min/mean/var/std with 0.9.1's axis and
// acc_dtype rules, softmax family, argmax/argmin, cumsum (via _pool), triangles, matmul/dot.
#include <algorithm>
#include <numeric>

#include "tensor/tensor_impl.h"
#include "util/error.h"

namespace tg {
namespace {

using Pair = std::pair<int64_t, int64_t>;

std::string axis_repr(const std::vector<int>& axis) {
  return axis.size() == 1 ? std::to_string(axis[0]) : py::tuple_repr(axis);
}

// Tensor._reduce
Tensor reduce(const Tensor& t, Op op, const AxisArg& axis, bool keepdim) {
  std::vector<int> axes;
  if (t.ndim() == 0) {
    if (axis && std::any_of(axis->begin(), axis->end(), [](int a) { return a != -1 && a != 0; }))
      fail("IndexError", "axis=" + axis_repr(*axis) + " out of range of [-1, 0]");
  } else {
    axes = resolve_axes(t, axis);
  }
  Tensor ret = op == Op::SUM ? apply<fn::Sum>({t}, axes) : apply<fn::Max>({t}, axes);
  if (keepdim) return ret;
  Shape out;
  for (int k = 0; k < t.ndim(); ++k)
    if (std::find(axes.begin(), axes.end(), k) == axes.end()) out.push_back(t.shape()[k]);
  return ret.reshape(out);
}

// prod of the dims a keepdim reduction changes (mean's and var's element count)
sint reduced_count(const Shape& in, const Shape& kept) {
  sint n = 1;
  for (size_t k = 0; k < in.size(); ++k)
    if (in[k] != kept[k]) n = n * in[k];
  return n;
}

Tensor tri(int64_t r, int64_t c, int64_t diagonal, DType dtype) {
  if (r == 0 || c == 0 || diagonal >= c) return Tensor::zeros({r, c}, dtype);
  if (r + diagonal <= 0) return Tensor::ones({r, c}, dtype);
  int64_t s = r + c - 1;
  Tensor t = Tensor::ones({s, s}, dtype)
                 .pad({std::nullopt, Pair{0, s}})
                 .flatten()
                 .shrink({Pair{0, s * (2 * s - 1)}})
                 .reshape({s, -1})
                 .shrink({std::nullopt, Pair{0, s}});
  using I = Index;
  if (diagonal <= 0)
    return t.getitem(
        {I::slice(std::nullopt, r, std::nullopt), I::slice(-diagonal, c - diagonal, std::nullopt)});
  return t.getitem({I::slice(diagonal, r + diagonal, std::nullopt), I::slice(std::nullopt, c, std::nullopt)});
}

int64_t dim_from_end(const Shape& s, int k) {
  if (k > int(s.size())) fail("IndexError", "tuple index out of range");
  return s[s.size() - k];
}

} // namespace

std::vector<int> resolve_axes(const Tensor& t, const AxisArg& axis) {
  std::vector<int> axes;
  if (!axis) {
    axes.resize(t.ndim());
    std::iota(axes.begin(), axes.end(), 0);
    return axes;
  }
  for (int a : *axis) axes.push_back(py::resolve_dim(a, t.ndim()));
  return axes;
}

Tensor Tensor::sum(const AxisArg& axis, bool keepdim, std::optional<DType> acc_dtype) const {
  Tensor ret = reduce(cast(acc_dtype.value_or(sum_acc_dtype(dtype()))), Op::SUM, axis, keepdim);
  bool half = dtype() == DType::Float16 || dtype() == DType::BFloat16;
  return !acc_dtype && half ? ret.cast(dtype()) : ret;
}
Tensor Tensor::max(const AxisArg& axis, bool keepdim) const {
  return reduce(*this, Op::REDUCE_MAX, axis, keepdim);
}
Tensor Tensor::min(const AxisArg& axis, bool keepdim) const { return neg().max(axis, keepdim).neg(); }

Tensor Tensor::mean(const AxisArg& axis, bool keepdim) const {
  DType output_dtype = is_float(dtype()) ? dtype() : DType::Float32;
  Tensor numerator = cast(sum_acc_dtype(dtype())).sum(axis, keepdim);
  sint n = reduced_count(shape(), sum(axis, true).shape());
  if (!n.is_int()) return numerator.div(from_node(n)).cast(output_dtype); // a symbolic count
  return numerator.div(Scalar::of_int(int64_t(n))).cast(output_dtype);
}

Tensor Tensor::var(const AxisArg& axis, bool keepdim, int64_t correction) const {
  Tensor squares = sub(mean(axis, true)).square();
  sint n = reduced_count(shape(), squares.sum(axis, true).shape());
  // (symbolic: tinygrad's max(0, n - correction) keeps the node, which is then never negative)
  if (!n.is_int()) return squares.sum(axis, keepdim).div(from_node(n - correction));
  return squares.sum(axis, keepdim).div(Scalar::of_int(std::max<int64_t>(0, int64_t(n) - correction)));
}
Tensor Tensor::std(const AxisArg& axis, bool keepdim, int64_t correction) const {
  return var(axis, keepdim, correction).sqrt();
}

Tensor Tensor::softmax(int axis) const {
  Tensor m = sub(max(std::vector<int>{axis}, true));
  Tensor e = m.exp();
  return e.div(e.sum(std::vector<int>{axis}, true));
}
Tensor Tensor::log_softmax(int axis) const {
  Tensor m = sub(max(std::vector<int>{axis}, true));
  Tensor ss = m.exp().sum(std::vector<int>{axis}, true);
  return m.sub(ss.log());
}
Tensor Tensor::logsumexp(const AxisArg& axis, bool keepdim) const {
  Tensor m = max(axis, true);
  Tensor lse = sub(m).exp().sum(axis, keepdim).log();
  if (axis && axis->size() != 1)
    fail("TypeError", "'<=' not supported between instances of 'int' and 'tuple'");
  return lse.add(m.squeeze(axis ? std::optional<int>((*axis)[0]) : std::nullopt));
}

Tensor Tensor::argmax(std::optional<int> axis_in, bool keepdim) const {
  if (!axis_in) return flatten().argmax(0, false);
  int axis = py::resolve_dim(*axis_in, ndim());
  Tensor m = eq(max(std::vector<int>{axis}, true));
  Shape r{shape()[axis]};
  r.insert(r.end(), ndim() - axis - 1, 1);
  Tensor idx =
      m.mul(arange(Scalar::of_int(shape()[axis] - 1), Scalar::of_int(-1), Scalar::of_int(-1)).placed_like(*this).reshape(r));
  return idx.max(std::vector<int>{axis}, keepdim)
      .sub(Scalar::of_int(shape()[axis]), true)
      .sub(Scalar::of_int(1))
      .cast(DType::Int32);
}
Tensor Tensor::argmin(std::optional<int> axis, bool keepdim) const { return neg().argmax(axis, keepdim); }

Tensor pool(const Tensor& t, const Shape& k_, const std::vector<int64_t>& stride,
            const std::vector<int64_t>& dilation) {
  check(t.shape().size() >= k_.size(), "AssertionError",
        "can't pool " + py::tuple_repr(t.shape()) + " with " + py::tuple_repr(k_));
  size_t nk = k_.size();
  std::vector<int64_t> s_ = stride.size() == 1 ? std::vector<int64_t>(nk, stride[0]) : stride;
  std::vector<int64_t> d_ = dilation.size() == 1 ? std::vector<int64_t>(nk, dilation[0]) : dilation;
  check(s_.size() == nk && d_.size() == nk, "AssertionError",
        "stride/dilation mismatch kernel:" + py::tuple_repr(k_) + " stride:" + py::tuple_repr(s_) +
            " dilation:" + py::tuple_repr(d_));
  size_t nn = t.shape().size() - nk;
  Shape i_(t.shape().end() - nk, t.shape().end()), o_;
  for (size_t j = 0; j < nk; ++j) o_.push_back(py::ceildiv(i_[j] - d_[j] * (k_[j] - 1), s_[j]));
  Padding noop_pad(nn);
  Shape noop_shape(nn, kKeepDim);
  auto with_noop = [&](const Padding& p) {
    Padding r = noop_pad;
    r.insert(r.end(), p.begin(), p.end());
    return r;
  };
  auto shape_noop = [&](const Shape& s) {
    Shape r = noop_shape;
    r.insert(r.end(), s.begin(), s.end());
    return r;
  };
  std::vector<int> order;
  for (size_t j = 0; j < nn; ++j) order.push_back(int(j));

  bool any_big = false, any_dil = false;
  for (size_t j = 0; j < nk; ++j) any_big |= k_[j] > s_[j], any_dil |= d_[j] != 1;
  if (any_big || any_dil) {
    Shape reps(nn, 1);
    for (size_t j = 0; j < nk; ++j) reps.push_back(py::ceildiv(size_mul(k_[j], i_[j] + d_[j]), i_[j]));
    Tensor xup = t.repeat(reps);
    Padding sh1, sh2, sh3;
    Shape rs1, rs2, rs3;
    for (size_t j = 0; j < nk; ++j) {
      int64_t k = k_[j], i = i_[j], d = d_[j], o = o_[j], s = s_[j];
      sh1.push_back(Pair{0, k * (i + d)}), rs1.insert(rs1.end(), {k, i + d});
      sh2.insert(sh2.end(), {Pair{0, k}, Pair{0, o * s}}), rs2.insert(rs2.end(), {k, o, s});
      sh3.insert(sh3.end(), {Pair{0, k}, Pair{0, o}, Pair{0, 1}}), rs3.insert(rs3.end(), {k, o});
    }
    xup = xup.shrink(with_noop(sh1)).reshape(shape_noop(rs1));
    xup = xup.shrink(with_noop(sh2)).reshape(shape_noop(rs2));
    xup = xup.shrink(with_noop(sh3)).reshape(shape_noop(rs3));
    for (size_t j = 0; j < nk; ++j) order.push_back(int(nn + j * 2 + 1));
    for (size_t j = 0; j < nk; ++j) order.push_back(int(nn + j * 2));
    return xup.permute(order);
  }
  Padding pad, sh1, sh2;
  Shape rs;
  for (size_t j = 0; j < nk; ++j) {
    int64_t i = i_[j], o = o_[j], s = s_[j], k = k_[j];
    pad.push_back(Pair{0, std::max<int64_t>(0, o * s - i)});
    sh1.push_back(Pair{0, o * s});
    rs.insert(rs.end(), {o, s});
    sh2.insert(sh2.end(), {Pair{0, o}, Pair{0, k}});
  }
  Tensor xup = t.pad(with_noop(pad)).shrink(with_noop(sh1)).reshape(shape_noop(rs)).shrink(with_noop(sh2));
  for (size_t j = 0; j < nk; ++j) order.push_back(int(nn + j * 2));
  for (size_t j = 0; j < nk; ++j) order.push_back(int(nn + j * 2 + 1));
  return xup.permute(order);
}

Tensor cumsum_impl(const Tensor& t, int axis, bool first_zero) {
  int64_t n = t.shape()[axis < 0 ? axis + t.ndim() : axis];
  check(n != 0, "AssertionError", "");
  int64_t pl_sz = n - int64_t(!first_zero);
  return pool(t.transpose(axis, -1).pad2d({pl_sz, -int64_t(first_zero)}), {n}, {1}, {1})
      .sum(std::vector<int>{-1})
      .transpose(axis, -1);
}

Tensor Tensor::cumsum(int axis_in) const {
  int axis = py::resolve_dim(axis_in, ndim());
  if (ndim() == 0 || std::find(shape().begin(), shape().end(), 0) != shape().end()) return *this;
  constexpr int64_t kSplit = 256;
  int64_t n = shape()[axis];
  if (n <= kSplit * 2) return cumsum_impl(*this, axis, false);
  Tensor ret = transpose(axis, -1).pad2d({py::round_up(n, kSplit) - n, 0});
  ret = cumsum_impl(ret.unflatten(-1, {-1, kSplit}), -1, false);
  using I = Index;
  Tensor base_add = cumsum_impl(ret.getitem({I::ellipsis(), I::integer(-1)}), -1, true);
  Shape expanded = base_add.shape();
  expanded.push_back(ret.shape().back());
  base_add = base_add.unsqueeze(-1).expand(expanded);
  auto fix = [&](const Tensor& x) {
    return x.flatten(-2)
        .getitem({I::ellipsis(), I::slice(-n, std::nullopt, std::nullopt)})
        .transpose(axis, -1);
  };
  return fix(ret).add(fix(base_add));
}

Tensor Tensor::triu(int64_t diagonal) const {
  return tri(dim_from_end(shape(), 2), dim_from_end(shape(), 1), diagonal, DType::Bool)
      .placed_like(*this)
      .where(*this, Scalar::of_int(0))
      .cast(dtype());
}
Tensor Tensor::tril(int64_t diagonal) const {
  return tri(dim_from_end(shape(), 2), dim_from_end(shape(), 1), diagonal + 1, DType::Bool)
      .placed_like(*this)
      .where(Scalar::of_int(0), *this)
      .cast(dtype());
}

Tensor Tensor::dot(const Tensor& w, std::optional<DType> acc_dtype) const {
  int n1 = ndim(), n2 = w.ndim();
  check(n1 != 0 && n2 != 0, "AssertionError",
        "both arguments to matmul need to be at least 1D, but they are " + std::to_string(n1) + "D and " +
            std::to_string(n2) + "D");
  sint L = shape().back(), R = w.shape()[n2 - std::min(n2, 2)];
  check(L == R, "AssertionError",
        "Input Tensor shapes " + py::tuple_repr(shape()) + " and " + py::tuple_repr(w.shape()) +
            " cannot be multiplied (" + L.str() + " != " + R.str() + ")");
  int ones = std::min({n1 - 1, n2 - 1, 1});
  Shape xs(shape().begin(), shape().end() - 1);
  xs.insert(xs.end(), ones, 1);
  xs.push_back(L);
  Shape ws(w.shape().begin(), w.shape().end() - std::min(n2, 2));
  ws.insert(ws.end(), ones, 1);
  ws.insert(ws.end(), w.shape().end() - std::min(n2, 2), w.shape().end());
  Tensor x = reshape(xs);
  Tensor wt = w.reshape(ws).transpose(-1, -std::min(n2, 2));
  return x.mul(wt)
      .sum(std::vector<int>{-1}, false, acc_dtype)
      .cast(acc_dtype.value_or(least_upper_dtype(x.dtype(), wt.dtype())));
}

Tensor Tensor::matmul(const Tensor& x, bool reverse, std::optional<DType> acc_dtype) const {
  return reverse ? x.dot(*this, acc_dtype) : dot(x, acc_dtype);
}

} // namespace tg
