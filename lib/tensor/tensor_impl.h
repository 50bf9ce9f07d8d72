// tensor layer, internals shared by the tensor_*.cpp files: the state behind a Tensor handle
// and the Python-semantics helpers tensor.py leans on (argument normalisation, tuple repr,
// _broadcasted). Not part of the public API.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensor/function.h"
#include "tensor/tensor.h"

namespace tg {

struct Tensor::Impl {
  LazyBuffer lazydata;
  bool follows_state = true; // lazydata() moves to a state's newest version (not for snapshots)
  std::optional<bool> requires_grad;
  std::shared_ptr<Tensor> grad;
  std::shared_ptr<Function> ctx; // set by apply_function when an input requires grad
};

namespace py {

// Python repr of a tuple of ints: "()", "(4,)", "(2, 3)".
std::string tuple_repr(const std::vector<int64_t>& v);
std::string tuple_repr(const Shape& v);
std::string tuple_repr(const std::vector<int>& v);
// Python repr of a list of ints: "[-2, 1]".
std::string list_repr(const std::vector<int64_t>& v);
// Tensor._resolve_dim: wraps negative dims, IndexError when out of range.
int resolve_dim(int dim, int ndim, bool outer = false);
// Python floor division and modulo on ints.
int64_t floordiv(int64_t a, int64_t b);
int64_t mod(int64_t a, int64_t b);
int64_t ceildiv(int64_t a, int64_t b);
int64_t round_up(int64_t n, int64_t amt);
// DType's repr: "dtypes.float", "dtypes.uchar" (the last alias tinygrad registers).
std::string dtype_repr(DType dt);
std::vector<int> argsort(const std::vector<int>& v);
// Python arithmetic on scalars, keeping int/float/bool kinds as Python does.
Scalar neg(const Scalar& a);
Scalar mul(const Scalar& a, const Scalar& b);
Scalar add(const Scalar& a, const Scalar& b);
Scalar sub(const Scalar& a, const Scalar& b);

} // namespace py

// Tensor._broadcasted: turns a Python scalar into a const tensor with 0.9.1's dtype rule,
// matches dtypes (unless match_dtype is false) and broadcasts both to a common shape.
std::pair<Tensor, Tensor> broadcasted(const Tensor& x, const Operand& y, bool reverse = false,
                                      bool match_dtype = true);
Tensor broadcast_to(const Tensor& x, const Shape& shape);
// Tensor._to_const_val: the constant an unrealized, unmasked const tensor holds, else itself.
Operand to_const_val(const Tensor& self, const Operand& x);
// Operand arithmetic as Python evaluates it: a scalar stays a scalar, a tensor builds graph.
Operand operand_neg(const Operand& x);
Operand operand_mul(const Operand& x, const Scalar& s);
Tensor as_tensor_like(const Tensor& like, const Operand& x);

// Axis arguments of reductions resolved against ndim (Tensor._reduce's normalisation).
std::vector<int> resolve_axes(const Tensor& t, const AxisArg& axis);

Tensor cumsum_impl(const Tensor& t, int axis, bool first_zero);
Tensor pool(const Tensor& t, const Shape& k, const std::vector<int64_t>& stride,
            const std::vector<int64_t>& dilation);
Tensor slice_pad(const Tensor& t, const std::vector<std::optional<std::pair<int64_t, int64_t>>>& arg,
                 const Scalar& value);

} // namespace tg
