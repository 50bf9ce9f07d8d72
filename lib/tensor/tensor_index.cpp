// __getitem__ as tensor.py 0.9.1: ints, slices and None through movement ops only (shrink,
// flip, pad, reshape); int tensors through arange masks and a sum.
#include <algorithm>
#include <map>

#include "tensor/tensor_impl.h"
#include "util/error.h"

namespace tg {
namespace {

using Pair = std::pair<int64_t, int64_t>;

std::string opt_repr(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "None"; }

// Python's slice.indices(length).
std::tuple<int64_t, int64_t, int64_t> slice_indices(const Index& ix, int64_t length) {
  int64_t step = ix.step.value_or(1);
  int64_t lower = step < 0 ? -1 : 0, upper = step < 0 ? length - 1 : length;
  auto clamp = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = *v < 0 ? *v + length : *v;
    return std::clamp(x, lower, upper);
  };
  return {clamp(ix.start, step < 0 ? upper : lower), clamp(ix.stop, step < 0 ? lower : upper), step};
}

} // namespace

Tensor Tensor::getitem(const std::vector<Index>& indices_in) const {
  // A 0-d const tensor used as an index acts as its Python value.
  std::vector<Index> indices;
  std::optional<std::string> bad_type; // a float or bool index, rejected after the ellipsis check
  for (const Index& ix : indices_in) {
    if (ix.kind == Index::Kind::Tensor && ix.tensor->shape().empty()) {
      Operand v = to_const_val(*this, *ix.tensor);
      if (!v.tensor) {
        if (v.value.kind == Scalar::Kind::Float) bad_type = "float";
        if (v.value.kind == Scalar::Kind::Bool) bad_type = "bool";
        indices.push_back(Index::integer(v.value.as_int()));
        continue;
      }
    }
    indices.push_back(ix);
  }

  auto count = [&](Index::Kind k) {
    return std::count_if(indices.begin(), indices.end(), [&](auto& i) { return i.kind == k; });
  };
  auto ellipsis =
      std::find_if(indices.begin(), indices.end(), [](auto& i) { return i.kind == Index::Kind::Ellipsis; });
  size_t fill_idx = ellipsis - indices.begin();
  int64_t n_ellipsis = count(Index::Kind::Ellipsis);
  int64_t num_indices = int64_t(indices.size()) - n_ellipsis - count(Index::Kind::None);
  std::vector<Index> fill(std::max<int64_t>(0, ndim() - num_indices),
                          Index::slice(std::nullopt, std::nullopt, std::nullopt));
  if (ellipsis != indices.end()) indices.erase(indices.begin() + fill_idx);
  indices.insert(indices.begin() + fill_idx, fill.begin(), fill.end());

  std::vector<int> none_dims, tensor_dims;
  std::vector<Index> filtered;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (indices[d].kind == Index::Kind::None)
      none_dims.push_back(int(d));
    else
      filtered.push_back(indices[d]);
    if (indices[d].kind == Index::Kind::Tensor) tensor_dims.push_back(int(d));
  }
  if (n_ellipsis > 1) fail("IndexError", "indices can only have a single ellipsis ('...')");
  if (bad_type) fail("IndexError", "index_type=<class '" + *bad_type + "'> not supported");
  if (num_indices > ndim())
    fail("IndexError",
         "too many num_indices=" + std::to_string(num_indices) + " for self.ndim=" + std::to_string(ndim()));

  // basic indexing: each remaining dim becomes ((start, end), stride)
  Padding new_slice;
  std::vector<int64_t> strides;
  std::vector<int> int_dims, tensor_filtered_dims;
  std::vector<Tensor> tensor_index;
  for (size_t d = 0; d < filtered.size(); ++d) {
    const Index& ix = filtered[d];
    int64_t size = shape()[d];
    if (ix.kind == Index::Kind::Int) {
      int_dims.push_back(int(d));
      if (ix.i >= size || ix.i < -size)
        fail("IndexError", "index=" + std::to_string(ix.i) + " is out of bounds on dim=" + std::to_string(d) +
                               " with size=" + std::to_string(size));
      int64_t i = ix.i >= 0 ? ix.i : size + ix.i;
      new_slice.push_back(Pair{i, i + 1}), strides.push_back(1);
    } else if (ix.kind == Index::Kind::Slice) {
      if (ix.step == 0)
        fail("ValueError", "index=slice(" + opt_repr(ix.start) + ", " + opt_repr(ix.stop) + ", " +
                               opt_repr(ix.step) + ") on dim=" + std::to_string(d) +
                               " cannot have 0 as step");
      auto [s, e, st] = slice_indices(ix, size);
      new_slice.push_back(st * (e - s) < 0 ? Pair{0, 0} : st > 0 ? Pair{s, e} : Pair{e + 1, s + 1});
      strides.push_back(st);
    } else {
      tensor_filtered_dims.push_back(int(d));
      tensor_index.push_back(*ix.tensor);
      if (!is_int(ix.tensor->dtype()))
        fail("IndexError", "index.dtype=" + py::dtype_repr(ix.tensor->dtype()) +
                               " on dim=" + std::to_string(d) +
                               " is not supported, only int tensor indexing is supported");
      new_slice.push_back(Pair{0, size}), strides.push_back(1);
    }
  }

  std::vector<int> flip_axes;
  for (size_t k = 0; k < strides.size(); ++k)
    if (strides[k] < 0) flip_axes.push_back(int(k));
  Tensor ret = shrink(new_slice).flip(flip_axes);
  if (std::any_of(strides.begin(), strides.end(), [](int64_t s) { return s != 1 && s != -1; })) {
    Padding pad_arg;
    for (size_t k = 0; k < strides.size(); ++k) {
      int64_t s = ret.shape()[k], st = std::abs(strides[k]);
      pad_arg.push_back(Pair{0, py::round_up(s, st) - s});
    }
    ret = ret.pad(pad_arg);
    Shape split;
    for (size_t k = 0; k < strides.size(); ++k) {
      int64_t st = std::abs(strides[k]);
      split.insert(split.end(), {ret.shape()[k] / st, st});
    }
    ret = ret.reshape(split);
    Padding take_first;
    Shape kept;
    for (size_t k = 0; k < strides.size(); ++k) {
      take_first.push_back(Pair{0, ret.shape()[2 * k]});
      take_first.push_back(Pair{0, 1});
      kept.push_back(ret.shape()[2 * k]);
    }
    ret = ret.shrink(take_first).reshape(kept);
  }

  // inject 1 for each None, collapse each int dim
  Shape new_shape = ret.shape();
  for (int d : none_dims) new_shape.insert(new_shape.begin() + d, 1);
  std::vector<int> dims_collapsed;
  for (auto it = int_dims.rbegin(); it != int_dims.rend(); ++it) {
    int dim = *it + int(std::count_if(none_dims.begin(), none_dims.end(), [&](int d) { return *it >= d; }));
    dims_collapsed.push_back(dim);
  }
  for (int d : dims_collapsed) new_shape.erase(new_shape.begin() + d);
  ret = ret.reshape(new_shape);

  if (tensor_index.empty()) return ret;

  // advanced indexing: one arange mask per tensor index, multiplied, then summed away
  auto calc_dim = [&](int tensor_dim) {
    return tensor_dim - int(std::count_if(dims_collapsed.begin(), dims_collapsed.end(),
                                          [&](int d) { return tensor_dim >= d; }));
  };
  std::map<int, Tensor> idx;
  std::vector<int> idx_order; // Python dict keeps insertion order
  for (size_t k = 0; k < tensor_dims.size(); ++k) {
    int dim = calc_dim(tensor_dims[k]);
    const Tensor& t = tensor_index[k];
    Tensor normalized =
        t.lt(Scalar::of_int(0)).where(Scalar::of_int(ret.shape()[dim]), Scalar::of_int(0)).add(t);
    if (!idx.count(dim)) idx_order.push_back(dim);
    idx.insert_or_assign(dim, normalized);
  }
  int first_dim = *std::min_element(idx_order.begin(), idx_order.end());
  int last_dim = *std::max_element(idx_order.begin(), idx_order.end());
  std::vector<Shape> index_shapes;
  for (int d : idx_order) index_shapes.push_back(idx.at(d).shape());
  Shape big_shape = broadcast_shape(index_shapes);
  Shape pre_reduce_shape = Shape(ret.shape().begin(), ret.shape().begin() + first_dim);
  pre_reduce_shape.insert(pre_reduce_shape.end(), big_shape.begin(), big_shape.end());
  pre_reduce_shape.insert(pre_reduce_shape.end(), ret.shape().begin() + first_dim, ret.shape().end());

  std::optional<Tensor> mask;
  for (int dim : idx_order) {
    Tensor i = idx.at(dim);
    Shape r = i.shape();
    r.insert(r.end(), ret.ndim() - first_dim, 1);
    try {
      i = i.reshape(r).expand(pre_reduce_shape);
    } catch (const Error& e) {
      if (e.kind() != "ValueError") throw;
      fail("IndexError", std::string("cannot broadcast indices: ") + e.what());
    }
    Shape ar{ret.shape()[dim]};
    ar.insert(ar.end(), ret.ndim() - dim - 1, 1);
    Tensor a = Tensor::arange(Scalar::of_int(ret.shape()[dim])).placed_like(ret).reshape(ar);
    Tensor m = i.eq(a);
    mask = mask ? mask->mul(m) : m;
  }
  Shape reshape_arg = Shape(ret.shape().begin(), ret.shape().begin() + first_dim);
  reshape_arg.insert(reshape_arg.end(), big_shape.size(), 1);
  reshape_arg.insert(reshape_arg.end(), ret.shape().begin() + first_dim, ret.shape().end());
  std::vector<int> sum_axes;
  for (int d : idx_order) sum_axes.push_back(d + int(big_shape.size()));
  ret = ret.reshape(reshape_arg).mul(*mask).sum(sum_axes, false, ret.dtype());

  bool consecutive = true;
  for (size_t k = 0; k < idx_order.size(); ++k) consecutive &= idx_order[k] == first_dim + int(k);
  consecutive &= int(idx_order.size()) == last_dim - first_dim + 1;
  if (first_dim != 0 && idx_order.size() != 1 && !consecutive) {
    std::vector<int> order;
    for (int k = first_dim; k < first_dim + int(big_shape.size()); ++k) order.push_back(k);
    for (int k = 0; k < first_dim; ++k) order.push_back(k);
    for (int k = first_dim + int(big_shape.size()); k < ret.ndim(); ++k) order.push_back(k);
    ret = ret.permute(order);
  }
  return ret;
}

} // namespace tg
