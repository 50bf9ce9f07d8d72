// ONNX's scatter and n-dimensional gather ops, TopK and ReverseSequence as Tensor ops (ONNX
// operator docs). Positions are matched with one-hot comparisons, as tinygrad indexes: the
// cost is (updates x positions), which suits the sizes these ops see.
#include <cmath>
#include <limits>

#include "onnx/node.h"

namespace tg {

namespace {

using Outs = std::vector<Tensor>;

// idx with negative entries counted from the end of a dim of size `dim`
Tensor wrap(const Tensor& idx, int64_t dim) {
  Tensor i = idx.cast(DType::Int64);
  return i.lt(Operand(int64_t(0))).where(i.add(Operand(dim)), i);
}

// data where `hit`, combined with `contrib` (the updates that land there) by `reduction`.
// `pick(filler)` gives the updates where they land and `filler` elsewhere, summed or reduced.
Tensor combine(const Tensor& data, const Tensor& onehot, const Tensor& upd, int k_axis,
               const std::string& reduction, const Node& n) {
  Tensor hit = onehot.cast(DType::Int32).sum(std::vector<int>{k_axis}).gt(Operand(int64_t(0)));
  if (reduction == "none" || reduction == "add") {
    Tensor sum = onehot.where(upd, Scalar::of_int(0)).sum(std::vector<int>{k_axis}).cast(data.dtype());
    return reduction == "add" ? data.add(sum) : hit.where(sum, data);
  }
  if (reduction == "mul")
    return data.mul(product(onehot.where(upd, Scalar::of_int(1)), std::vector<int>{k_axis}, false));
  Tensor spread = data.unsqueeze(k_axis).expand(onehot.shape());
  if (reduction == "max") return data.maximum(onehot.where(upd, spread).max(std::vector<int>{k_axis}));
  if (reduction == "min") return data.minimum(onehot.where(upd, spread).min(std::vector<int>{k_axis}));
  n.bad("reduction '" + reduction + "' is not one of none, add, mul, max, min");
}

Outs scatter_elements(const Node& n) {
  Tensor data = n.in(0), idx = n.in(1), upd = n.in(2);
  size_t rank = data.shape().size();
  int axis = Node::norm_axis(n.attr_int("axis", 0), rank);
  int64_t len = data.shape()[size_t(axis)];
  // the scatter axis last, then one-hot over it: (..., K, N)
  std::vector<int> perm;
  for (size_t d = 0; d < rank; ++d)
    if (int(d) != axis) perm.push_back(int(d));
  perm.push_back(axis);
  std::vector<int> inverse(rank);
  for (size_t d = 0; d < rank; ++d) inverse[size_t(perm[d])] = int(d);
  Tensor ip = wrap(idx, len).permute(perm), up = upd.permute(perm), dp = data.permute(perm);
  // indices may cover less than data in the other dims: data's leading block takes the updates
  Padding crop;
  for (size_t d = 0; d + 1 < rank; ++d) crop.push_back(std::pair<int64_t, int64_t>(0, ip.shape()[d]));
  crop.push_back(std::nullopt);
  Shape oh = ip.shape();
  oh.push_back(len);
  Tensor onehot = ip.unsqueeze(-1).eq(positions(len).reshape({len})).expand(oh);
  Tensor block = dp.shrink(crop);
  Tensor done = combine(block, onehot, up.unsqueeze(-1).expand(oh), int(rank) - 1,
                        n.attr_string("reduction", "none"), n);
  Padding grow;
  for (size_t d = 0; d + 1 < rank; ++d)
    grow.push_back(std::pair<int64_t, int64_t>(0, dp.shape()[d] - ip.shape()[d]));
  grow.push_back(std::nullopt);
  bool partial = false;
  for (size_t d = 0; d + 1 < rank; ++d) partial |= ip.shape()[d] != dp.shape()[d];
  if (partial) { // the rest of data unchanged
    Tensor mask = block.ones_like().cast(DType::Bool).pad(grow);
    done = mask.where(done.pad(grow), dp);
  }
  return {done.permute(inverse)};
}

// The linear position of each index tuple (the last dim of idx) in data's first k dims.
Tensor linear_index(const Tensor& idx, const Shape& data, size_t first, size_t k) {
  Tensor lin;
  int64_t stride = 1;
  for (size_t j = k; j-- > 0;) {
    Padding pick(idx.shape().size(), std::nullopt);
    pick.back() = std::pair<int64_t, int64_t>(int64_t(j), int64_t(j) + 1);
    Tensor part = wrap(idx.shrink(pick), data[first + j]).mul(Operand(stride));
    lin = j == k - 1 ? part : lin.add(part);
    stride *= data[first + j];
  }
  return lin.squeeze(-1);
}

Outs scatter_nd(const Node& n) {
  Tensor data = n.in(0), idx = n.in(1), upd = n.in(2);
  const Shape& ds = data.shape();
  size_t k = size_t(idx.shape().back());
  int64_t l = prod(Shape(ds.begin(), ds.begin() + long(k))), r = prod(Shape(ds.begin() + long(k), ds.end()));
  int64_t m = prod(Shape(idx.shape().begin(), idx.shape().end() - 1));
  Tensor lin = linear_index(idx, ds, 0, k).reshape({m, 1});
  Tensor onehot = lin.eq(positions(l).reshape({1, l})).reshape({m, l, 1}).expand({m, l, r});
  Tensor u = upd.reshape({m, 1, r}).expand({m, l, r});
  Tensor out = combine(data.reshape({l, r}), onehot, u, 0, n.attr_string("reduction", "none"), n);
  return {out.reshape(ds)};
}

Outs gather_nd(const Node& n) {
  Tensor data = n.in(0), idx = n.in(1);
  const Shape& ds = data.shape();
  size_t b = size_t(n.attr_int("batch_dims", 0)), k = size_t(idx.shape().back());
  int64_t batch = prod(Shape(ds.begin(), ds.begin() + long(b))),
          l = prod(Shape(ds.begin() + long(b), ds.begin() + long(b + k))),
          r = prod(Shape(ds.begin() + long(b + k), ds.end()));
  int64_t m = prod(Shape(idx.shape().begin() + long(b), idx.shape().end() - 1));
  Tensor lin = linear_index(idx, ds, b, k).reshape({batch, m, 1});
  Tensor onehot = lin.eq(positions(l).reshape({1, 1, l})).reshape({batch, m, l, 1});
  Tensor picked = onehot.where(data.reshape({batch, 1, l, r}), Scalar::of_int(0)).sum(std::vector<int>{2});
  Shape out(idx.shape().begin(), idx.shape().end() - 1);
  out.insert(out.end(), ds.begin() + long(b + k), ds.end());
  return {picked.cast(data.dtype()).reshape(out)};
}

// The k largest (or smallest) along axis, ties to the lower index: k rounds of arg-extreme,
// each masking what it took.
Outs top_k(const Node& n) {
  Tensor x = n.in(0);
  int axis = Node::norm_axis(n.attr_int("axis", -1), x.shape().size());
  int64_t k = n.known(1).ints().at(0), len = x.shape()[size_t(axis)];
  if (k < 0 || k > len) n.bad("k = " + std::to_string(k) + " is outside [0, " + std::to_string(len) + "]");
  bool largest = n.attr_int("largest", 1) != 0;
  Shape along(x.shape().size(), 1);
  along[size_t(axis)] = len;
  Tensor pos = positions(len).reshape(along);
  Tensor work = largest ? x : x.neg();
  if (!is_float(x.dtype())) work = work.cast(DType::Float64); // room for -inf
  std::vector<Tensor> values, indices;
  for (int64_t i = 0; i < k; ++i) {
    Tensor at = work.argmax(axis, true).cast(DType::Int64);
    Tensor taken = pos.eq(at);
    values.push_back(taken.where(x, Scalar::of_int(0)).sum(std::vector<int>{axis}, true).cast(x.dtype()));
    indices.push_back(at);
    work = taken.where(-INFINITY, work);
  }
  if (k == 0) {
    Shape s = x.shape();
    s[size_t(axis)] = 0;
    return {Tensor::full(s, Scalar::of_int(0), x.dtype()), Tensor::full(s, Scalar::of_int(0), DType::Int64)};
  }
  return {values[0].cat(std::vector<Tensor>(values.begin() + 1, values.end()), axis),
          indices[0].cat(std::vector<Tensor>(indices.begin() + 1, indices.end()), axis)};
}

Outs reverse_sequence(const Node& n) {
  return {
      reverse_prefixes(n.in(0), n.in(1), int(n.attr_int("time_axis", 0)), int(n.attr_int("batch_axis", 1)))};
}

} // namespace

Tensor positions(int64_t n) {
  return Tensor::arange(Scalar::of_int(0), Scalar::of_int(n), Scalar::of_int(1), DType::Int64);
}

Tensor reverse_prefixes(const Tensor& x, const Tensor& lens, int time_axis, int batch_axis) {
  size_t rank = x.shape().size();
  Shape t_shape(rank, 1), b_shape(rank, 1);
  t_shape[size_t(time_axis)] = x.shape()[size_t(time_axis)],
  b_shape[size_t(batch_axis)] = x.shape()[size_t(batch_axis)];
  Tensor t = positions(t_shape[size_t(time_axis)]).reshape(t_shape),
         l = lens.cast(DType::Int64).reshape(b_shape);
  Tensor src = t.lt(l).where(l.sub(Operand(int64_t(1))).sub(t), t).expand(x.shape());
  return x.gather(time_axis, src);
}

void add_indexing_ops(OpTable& t) {
  t["ScatterElements"] = scatter_elements;
  t["Scatter"] = scatter_elements; // its older name
  t["ScatterND"] = scatter_nd;
  t["GatherND"] = gather_nd;
  t["TopK"] = top_k;
  t["ReverseSequence"] = reverse_sequence;
}

} // namespace tg
