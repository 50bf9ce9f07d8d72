// Movement: reshape/expand/permute/flip/shrink/pad with 0.9.1's checks, and the high-level
// moves built from them (__getitem__, cat, stack, repeat, split, chunk, squeeze, gather ...).
#include <algorithm>
#include <numeric>
#include <set>

#include "tensor/tensor_impl.h"
#include "util/error.h"

namespace tg {
namespace {

using Pair = std::pair<int64_t, int64_t>;

Shape slice_shape(const Shape& s, size_t from, size_t to) {
  from = std::min(from, s.size()), to = std::min(to, s.size());
  return from < to ? Shape(s.begin() + from, s.begin() + to) : Shape{};
}
Shape concat(Shape a, const Shape& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
SymbolicPadding symbolic(const Padding& arg) {
  SymbolicPadding sym;
  for (const auto& p : arg)
    sym.push_back(p ? std::optional(std::pair<sint, sint>(p->first, p->second)) : std::nullopt);
  return sym;
}

} // namespace

Tensor Tensor::reshape(const Shape& shape_in) const {
  Shape new_shape = shape_in;
  for (size_t k = 0; k < new_shape.size(); ++k)
    if (new_shape[k] == kKeepDim) {
      if (k >= shape().size()) fail("IndexError", "tuple index out of range");
      new_shape[k] = shape()[k];
    }
  auto c = std::count(new_shape.begin(), new_shape.end(), -1);
  if (c > 1)
    fail("RuntimeError", "only one dimension can be inferred using -1, getting " + py::tuple_repr(new_shape));
  if (c) {
    Shape others;
    for (const sint& s : new_shape)
      if (!(s == -1)) others.push_back(s);
    sint inferred;
    if (!all_int(shape()) && all_int(others) && prod(others) > 0) // a variable batch: (n*192)//3 = n*64
      inferred = sint(sym_prod(shape()).expr().floordiv(prod(others)));
    else
      inferred = py::floordiv(-prod(shape()), prod(new_shape));
    for (sint& s : new_shape)
      if (s == -1) s = inferred;
  }
  return new_shape != shape() ? apply<fn::Reshape>({*this}, new_shape) : *this;
}

Tensor Tensor::expand(const Shape& shape_in) const {
  size_t n = std::max(shape().size(), shape_in.size());
  Shape from(n - shape().size(), 1), to(n - shape_in.size(), 1), out;
  from = concat(from, shape()), to = concat(to, shape_in);
  for (size_t k = 0; k < n; ++k) out.push_back(to[k] == -1 || to[k] == kKeepDim ? from[k] : to[k]);
  return broadcast_to(*this, out);
}

Tensor Tensor::permute(const std::vector<int>& order) const {
  std::vector<int> order_arg;
  for (int x : order) order_arg.push_back(py::resolve_dim(x, ndim()));
  std::vector<int> sorted = order_arg, identity(ndim());
  std::sort(sorted.begin(), sorted.end());
  std::iota(identity.begin(), identity.end(), 0);
  if (sorted != identity)
    fail("RuntimeError", "order is not a valid permutation, getting " + py::tuple_repr(order_arg));
  return apply<fn::Permute>({*this}, order_arg);
}

Tensor Tensor::flip(const std::vector<int>& axis) const {
  std::vector<int> axis_arg;
  for (int x : axis) axis_arg.push_back(py::resolve_dim(x, ndim()));
  if (std::set<int>(axis_arg.begin(), axis_arg.end()).size() != axis_arg.size())
    fail("RuntimeError", "dim can appear at least once, getting " + py::tuple_repr(axis_arg));
  return apply<fn::Flip>({*this}, axis_arg);
}

Tensor Tensor::shrink(const Padding& arg) const { return shrink_symbolic(symbolic(arg)); }
Tensor Tensor::shrink_symbolic(const SymbolicPadding& arg) const {
  size_t n = std::min(arg.size(), shape().size());
  bool noop = true;
  DimPairs full;
  for (size_t k = 0; k < n; ++k) {
    std::pair<sint, sint> whole{0, shape()[k]};
    noop &= !arg[k] || *arg[k] == whole;
    full.push_back(arg[k] ? *arg[k] : whole);
  }
  return noop ? *this : apply<fn::Shrink>({*this}, full);
}

Tensor Tensor::pad(const Padding& arg, double value) const { return pad(arg, Scalar::of_float(value)); }
Tensor Tensor::pad(const Padding& arg, const Scalar& value) const {
  return pad_symbolic(symbolic(arg), value);
}
Tensor Tensor::pad_symbolic(const SymbolicPadding& arg, const Scalar& value) const {
  auto zero = [](const auto& x) { return !x || (x->first == 0 && x->second == 0); };
  if (std::all_of(arg.begin(), arg.end(), zero)) return *this;
  DimPairs narg;
  for (auto& x : arg) narg.push_back(x ? *x : std::pair<sint, sint>{0, 0});
  Tensor ret = apply<fn::Pad>({*this}, narg);
  if (value.as_double() == 0) return ret;
  return ret.add(apply<fn::Pad>({ones_like()}, narg).where(Scalar::of_int(0), value));
}

Tensor slice_pad(const Tensor& t, const std::vector<std::optional<Pair>>& arg, const Scalar& value) {
  // (a dim it leaves alone, None, may be symbolic: pad2d of a variable batch)
  SymbolicPadding padding, shrink;
  for (size_t k = 0; k < arg.size() && k < t.shape().size(); ++k) {
    if (!arg[k]) {
      padding.push_back(std::pair<sint, sint>{0, 0});
      shrink.push_back(std::pair<sint, sint>{0, t.shape()[k]});
      continue;
    }
    int64_t s = t.shape()[k];
    auto [l, r] = *arg[k];
    int64_t before = std::max<int64_t>(0, -l), after = std::max<int64_t>(0, r - s);
    padding.push_back(std::pair<sint, sint>{before, after});
    shrink.push_back(std::pair<sint, sint>{l + before, r + before});
  }
  return t.pad_symbolic(padding, value).shrink_symbolic(shrink);
}

Tensor Tensor::pad2d(const std::vector<int64_t>& padding, double value) const {
  return pad2d(padding, Scalar::of_float(value));
}
Tensor Tensor::pad2d(const std::vector<int64_t>& padding, const Scalar& value) const {
  std::vector<std::optional<Pair>> slc;
  size_t pairs = padding.size() / 2;
  for (size_t k = 0; k < pairs && k < shape().size(); ++k) {
    int64_t s = shape()[shape().size() - 1 - k];
    slc.push_back(Pair{-padding[2 * k], s + padding[2 * k + 1]});
  }
  std::reverse(slc.begin(), slc.end());
  std::vector<std::optional<Pair>> arg;
  // self.shape[:-(len(padding)//2)]: with no pairs Python's [:-0] keeps nothing
  size_t keep = pairs == 0 ? 0 : (shape().size() > pairs ? shape().size() - pairs : 0);
  for (size_t k = 0; k < keep; ++k) arg.push_back(std::nullopt); // (0, s): kept whole, maybe symbolic
  arg.insert(arg.end(), slc.begin(), slc.end());
  return slice_pad(*this, arg, value);
}

Tensor Tensor::transpose(int dim0, int dim1) const {
  std::vector<int> order(ndim());
  std::iota(order.begin(), order.end(), 0);
  auto at = [&](int d) -> int& {
    if (d < -ndim() || d >= ndim()) fail("IndexError", "list index out of range");
    return order[d < 0 ? d + ndim() : d];
  };
  std::swap(at(dim0), at(dim1));
  return permute(order);
}

Tensor Tensor::flatten(int start_dim, int end_dim) const {
  int s = py::resolve_dim(start_dim, ndim()), e = py::resolve_dim(end_dim, ndim());
  Shape mid = slice_shape(shape(), s, e + 1);
  return reshape(
      concat(concat(slice_shape(shape(), 0, s), {prod(mid)}), slice_shape(shape(), e + 1, shape().size())));
}

Tensor Tensor::unflatten(int dim, const Shape& sizes) const {
  int d = py::resolve_dim(dim, ndim());
  return reshape(
      concat(concat(slice_shape(shape(), 0, d), sizes), slice_shape(shape(), d + 1, shape().size())));
}

Tensor Tensor::squeeze(std::optional<int> dim) const {
  if (!dim) {
    Shape s;
    for (int64_t x : shape())
      if (x != 1) s.push_back(x);
    return reshape(s);
  }
  int d = py::resolve_dim(*dim, ndim());
  if (!ndim() || shape()[d] != 1) return *this;
  return reshape(concat(slice_shape(shape(), 0, d), slice_shape(shape(), d + 1, shape().size())));
}

Tensor Tensor::unsqueeze(int dim) const {
  int d = py::resolve_dim(dim, ndim(), true);
  return reshape(concat(concat(slice_shape(shape(), 0, d), {1}), slice_shape(shape(), d, shape().size())));
}

Tensor Tensor::cat(const std::vector<Tensor>& others, int dim_in) const {
  int dim = py::resolve_dim(dim_in, ndim());
  for (const Tensor& y : others) {
    bool ok = y.ndim() == ndim();
    for (int k = 0; ok && k < ndim(); ++k) ok = k == dim || y.shape()[k] == shape()[k];
    check(ok, "AssertionError", "");
  }
  // _resolve_dim lets dim 0 through on a 0-d tensor; cat_dims' s.shape[dim] then fails
  check(ndim() > 0, "IndexError", "tuple index out of range");
  std::vector<Tensor> args{*this};
  args.insert(args.end(), others.begin(), others.end());
  sint total = 0; // (symbolic along a symbolic axis: each part padded by symbolic amounts)
  for (const Tensor& t : args) total += t.shape()[dim];
  std::optional<Tensor> ret;
  sint offset = 0;
  for (const Tensor& t : args) {
    SymbolicPadding p(ndim());
    p[dim] = std::pair<sint, sint>{offset, total - offset - t.shape()[dim]};
    offset += t.shape()[dim];
    Tensor padded = t.pad_symbolic(p, Scalar::of_float(0.0));
    ret = ret ? ret->add(padded) : padded;
  }
  return *ret;
}

Tensor Tensor::stack(const std::vector<Tensor>& others, int dim) const {
  std::vector<Tensor> rest;
  for (const Tensor& t : others) rest.push_back(t.unsqueeze(dim));
  return unsqueeze(dim).cat(rest, dim);
}

Tensor Tensor::repeat(const Shape& repeats) const {
  Shape base(repeats.size() > shape().size() ? repeats.size() - shape().size() : 0, 1);
  base = concat(base, shape());
  Shape new_shape, expand_shape, final_shape;
  for (const sint& b : base) new_shape.insert(new_shape.end(), {1, b}); // (dims may be symbolic)
  for (size_t k = 0; k < std::min(base.size(), repeats.size()); ++k) {  // zip, as tinygrad's
    expand_shape.insert(expand_shape.end(), {repeats[k], base[k]});
    final_shape.push_back(repeats[k].is_int() && base[k].is_int() ? sint(size_mul(repeats[k], base[k]))
                                                                  : repeats[k] * base[k]);
  }
  return reshape(new_shape).expand(expand_shape).reshape(final_shape);
}

std::vector<Tensor> Tensor::split(const std::vector<int64_t>& sizes, int dim_in) const {
  int dim = py::resolve_dim(dim_in, ndim());
  int64_t total = std::accumulate(sizes.begin(), sizes.end(), int64_t(0));
  check(total == shape()[dim], "AssertionError",
        "expect sizes to sum exactly to " + std::to_string(shape()[dim]) + ", but got " +
            std::to_string(total));
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    std::vector<Index> idx(dim, Index::slice(std::nullopt, std::nullopt, std::nullopt));
    idx.push_back(Index::slice(start, start + s, std::nullopt));
    out.push_back(getitem(idx));
    start += s;
  }
  return out;
}

std::vector<Tensor> Tensor::split(int64_t size, int dim_in) const {
  int dim = py::resolve_dim(dim_in, ndim());
  int64_t n = shape()[dim];
  std::vector<int64_t> sizes;
  for (int64_t i = 0; i < std::max<int64_t>(1, n); i += std::max<int64_t>(1, size))
    sizes.push_back(std::min(size, n - i));
  return split(sizes, dim);
}

std::vector<Tensor> Tensor::chunk(int64_t chunks, int dim_in) const {
  check(chunks > 0, "AssertionError", "expect chunks to be greater than 0, got: " + std::to_string(chunks));
  int dim = py::resolve_dim(dim_in, ndim());
  int64_t n = shape()[dim];
  if (n == 0) return split(std::vector<int64_t>(chunks, 0), dim);
  return split(py::ceildiv(n, chunks), dim);
}

Tensor Tensor::gather(int dim_in, const Tensor& index) const {
  check(index.ndim() == ndim(), "AssertionError",
        "self.ndim must equal index.ndim, self.ndim=" + std::to_string(ndim()) +
            ", index.ndim=" + std::to_string(index.ndim()));
  for (int d = 0; d < ndim(); ++d)
    check(d == dim_in || shape()[d] >= index.shape()[d], "AssertionError",
          "requires self.shape[d] >= index.shape[d] for all d != dim");
  int dim = py::resolve_dim(dim_in, ndim());
  Padding arg;
  for (int d = 0; d < ndim(); ++d)
    arg.push_back(d != dim ? std::optional(Pair{0, index.shape()[d]}) : std::nullopt);
  Tensor x = shrink(arg).unsqueeze(-1).transpose(-1, dim);
  Tensor mask = index.unsqueeze(-1).eq(Tensor::arange(Scalar::of_int(shape()[dim])).placed_like(*this));
  return mask.mul(x).sum(std::vector<int>{-1}, false, dtype());
}

} // namespace tg
