// Python semantics tensor.py relies on: tuple reprs in messages, dim resolution, int division.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "lazy/sym_repr.h"
#include "tensor/tensor_impl.h"
#include "util/error.h"

namespace tg::py {

namespace {
template <class T> std::string seq_repr(const std::vector<T>& v, char open, char close, bool tuple) {
  std::string s(1, open);
  for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  if (tuple && v.size() == 1) s += ",";
  return s + close;
}
} // namespace

std::string tuple_repr(const std::vector<int64_t>& v) { return seq_repr(v, '(', ')', true); }
std::string tuple_repr(const Shape& v) { return shape_sym_repr(v); } // NumNode(3) as tinygrad prints
std::string tuple_repr(const std::vector<int>& v) { return seq_repr(v, '(', ')', true); }
std::string list_repr(const std::vector<int64_t>& v) { return seq_repr(v, '[', ']', false); }

int resolve_dim(int dim, int ndim, bool outer) {
  int hi = std::max(1, ndim + int(outer));
  if (!(-hi <= dim && dim < hi))
    fail("IndexError", "dim=" + std::to_string(dim) + " out of range " + list_repr({-hi, hi - 1}));
  return dim < 0 ? dim + ndim + int(outer) : dim;
}

int64_t floordiv(int64_t a, int64_t b) {
  if (b == 0) fail("ZeroDivisionError", "integer division or modulo by zero");
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t mod(int64_t a, int64_t b) { return a - floordiv(a, b) * b; }
int64_t ceildiv(int64_t a, int64_t b) { return -floordiv(-a, b); }
int64_t round_up(int64_t n, int64_t amt) { return floordiv(n + amt - 1, amt) * amt; }

std::string dtype_repr(DType dt) {
  static const char* names[] = {"bool", "char",  "uchar", "short",    "ushort", "int",   "uint",
                                "long", "ulong", "half",  "bfloat16", "float",  "double"};
  return std::string("dtypes.") + names[int(dt)];
}

std::vector<int> argsort(const std::vector<int>& v) {
  std::vector<int> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return v[a] < v[b]; });
  return idx;
}

namespace {
bool any_float(const Scalar& a, const Scalar& b) {
  return a.kind == Scalar::Kind::Float || b.kind == Scalar::Kind::Float;
}
} // namespace

Scalar neg(const Scalar& a) {
  return a.kind == Scalar::Kind::Float ? Scalar::of_float(-a.f) : Scalar::of_int(-a.as_int());
}
Scalar mul(const Scalar& a, const Scalar& b) {
  return any_float(a, b) ? Scalar::of_float(a.as_double() * b.as_double())
                         : Scalar::of_int(a.as_int() * b.as_int());
}
Scalar add(const Scalar& a, const Scalar& b) {
  return any_float(a, b) ? Scalar::of_float(a.as_double() + b.as_double())
                         : Scalar::of_int(a.as_int() + b.as_int());
}
Scalar sub(const Scalar& a, const Scalar& b) { return add(a, neg(b)); }

} // namespace tg::py
