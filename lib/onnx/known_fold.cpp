// Values of cheap ops over known inputs, so that shapes a model computes (Shape -> Gather ->
// Concat -> Reshape, Size -> Sub -> ConstantOfShape) are known while importing. See node.h.
#include <algorithm>
#include <cmath>
#include <functional>

#include "onnx/node.h"
#include "ops/exec_alu.h"

namespace tg {

namespace {

constexpr int64_t kMaxFolded = 4096; // larger values are data, not shapes

// Row-major position in `from` (broadcast to `to`) of position i of `to`.
size_t broadcast_index(size_t i, const Shape& to, const Shape& from) {
  size_t at = 0, stride = 1;
  for (size_t d = to.size(); d-- > 0;) {
    int64_t coord = int64_t(i % size_t(to[d]));
    i /= size_t(to[d]);
    size_t fd = d + from.size();
    if (fd < to.size()) continue; // from has fewer dims: broadcast
    fd -= to.size();
    if (from[fd] != 1) at += size_t(coord) * stride;
    stride *= size_t(from[fd]);
  }
  return at;
}

using ScalarFn = std::function<Scalar(const std::vector<Scalar>&)>;

std::optional<Known> elementwise(const std::vector<const Known*>& in, const Tensor& out, const ScalarFn& f) {
  std::vector<Scalar> values;
  std::vector<Scalar> args(in.size());
  for (size_t i = 0, count = size_t(prod(out.shape())); i < count; ++i) {
    for (size_t j = 0; j < in.size(); ++j) args[j] = in[j]->at(broadcast_index(i, out.shape(), in[j]->shape));
    values.push_back(f(args));
  }
  return known_values(out.dtype(), out.shape(), values);
}

// An ONNX arithmetic or comparison op on scalars through exec_alu, the ALU evaluator the lazy
// graph folds constants with, composed as the Tensor ops compose it (Sub = ADD(x, NEG y), a float
// Div = MUL(x, RECIP y)), so a folded value equals what the graph computes; integer Div
// truncates, and by zero raises (the importer then leaves the value to the graph). nullopt for an
// op it does not fold.
std::optional<ScalarFn> alu(const std::string& op, DType dt) {
  auto cmplt = [](const Scalar& x, const Scalar& y) {
    return exec_alu(Op::CMPLT, DType::Bool, {x, y}).truthy();
  };
  auto pick = [](bool b) { return Scalar::of_bool(b); };
  if (op == "Add") return [dt](const std::vector<Scalar>& a) { return exec_alu(Op::ADD, dt, {a[0], a[1]}); };
  if (op == "Sub")
    return [dt](const std::vector<Scalar>& a) {
      return exec_alu(Op::ADD, dt, {a[0], exec_alu(Op::NEG, dt, {a[1]})});
    };
  if (op == "Mul") return [dt](const std::vector<Scalar>& a) { return exec_alu(Op::MUL, dt, {a[0], a[1]}); };
  if (op == "Div" && is_float(dt))
    return [dt](const std::vector<Scalar>& a) {
      return exec_alu(Op::MUL, dt, {a[0], exec_alu(Op::RECIP, dt, {a[1]})});
    };
  if (op == "Div") return [dt](const std::vector<Scalar>& a) { return exec_alu(Op::IDIV, dt, {a[0], a[1]}); };
  if (op == "Neg") return [dt](const std::vector<Scalar>& a) { return exec_alu(Op::NEG, dt, {a[0]}); };
  if (op == "Equal")
    return [](const std::vector<Scalar>& a) {
      return Scalar::of_bool(!exec_alu(Op::CMPNE, DType::Bool, {a[0], a[1]}).truthy());
    };
  if (op == "Less") return [=](const std::vector<Scalar>& a) { return pick(cmplt(a[0], a[1])); };
  if (op == "Greater") return [=](const std::vector<Scalar>& a) { return pick(cmplt(a[1], a[0])); };
  if (op == "LessOrEqual") return [=](const std::vector<Scalar>& a) { return pick(!cmplt(a[1], a[0])); };
  if (op == "GreaterOrEqual") return [=](const std::vector<Scalar>& a) { return pick(!cmplt(a[0], a[1])); };
  if (op == "Max" || op == "Min")
    return [=, max = op == "Max"](const std::vector<Scalar>& a) {
      Scalar best = a[0];
      for (const Scalar& v : a)
        if (max ? cmplt(best, v) : cmplt(v, best)) best = v;
      return best;
    };
  return std::nullopt;
}

// The same values in a new shape: Reshape, Flatten, Squeeze, Unsqueeze, Identity.
Known reshaped(const Known& k, const Tensor& out) { return Known{k.dtype, out.shape(), k.data}; }

// Gather along `axis` (row-major index arithmetic over outer x index x inner).
std::optional<Known> gather(const Known& x, const Known& idx, int axis, const Tensor& out) {
  int64_t outer = prod(Shape(x.shape.begin(), x.shape.begin() + axis)), len = x.shape[size_t(axis)],
          inner = prod(Shape(x.shape.begin() + axis + 1, x.shape.end()));
  std::vector<int64_t> ids = idx.ints();
  std::vector<Scalar> values;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : ids) {
      if (i < 0) i += len;
      if (i < 0 || i >= len) return std::nullopt; // the Tensor path reports it
      for (int64_t k = 0; k < inner; ++k) values.push_back(x.at(size_t((o * len + i) * inner + k)));
    }
  return known_values(x.dtype, out.shape(), values);
}

std::optional<Known> concat(const std::vector<const Known*>& in, int axis, const Tensor& out) {
  const Shape& s = out.shape();
  int64_t outer = prod(Shape(s.begin(), s.begin() + axis)),
          inner = prod(Shape(s.begin() + axis + 1, s.end()));
  std::vector<Scalar> values;
  for (int64_t o = 0; o < outer; ++o)
    for (const Known* k : in) {
      int64_t block = k->shape[size_t(axis)] * inner;
      for (int64_t j = 0; j < block; ++j) values.push_back(k->at(size_t(o * block + j)));
    }
  return known_values(out.dtype(), s, values);
}

// Slice of a 1-D value, with Python's slice rules after ONNX's clamping.
std::optional<Known> slice_1d(const Node& n, const Known& x, const Tensor& out) {
  if (x.shape.size() != 1 || n.opset() < 10) return std::nullopt;
  int64_t dim = x.shape[0], start = n.known(1).ints().at(0), end = n.known(2).ints().at(0);
  int64_t step = n.has_input(4) ? n.known(4).ints().at(0) : 1;
  if (step == 0) return std::nullopt;
  auto norm = [&](int64_t v) {
    if (v < 0) v += dim;
    return step > 0 ? std::clamp<int64_t>(v, 0, dim) : std::clamp<int64_t>(v, -1, dim - 1);
  };
  std::vector<Scalar> values;
  for (int64_t i = norm(start), e = norm(end); step > 0 ? i < e : i > e; i += step)
    values.push_back(x.at(size_t(i)));
  if (int64_t(values.size()) != prod(out.shape())) return std::nullopt;
  return known_values(x.dtype, out.shape(), values);
}

} // namespace

std::optional<Known> fold_known(const Node& n, const Tensor& out) {
  if (n.output_count() != 1 || n.input_count() == 0 || prod(out.shape()) > kMaxFolded) return std::nullopt;
  std::vector<const Known*> in;
  for (int i = 0; i < n.input_count(); ++i) {
    if (!n.has_input(i)) continue;
    const Known* k = n.maybe_known(i);
    if (!k) return std::nullopt;
    in.push_back(k);
  }
  const std::string& op = n.op();
  DType dt = out.dtype();
  if (op == "Identity" || op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze")
    return in[0]->dtype == dt ? std::optional<Known>(reshaped(*in[0], out)) : std::nullopt;
  if (op == "Cast" || op == "CastLike")
    return elementwise({in[0]}, out, [](const std::vector<Scalar>& a) { return a[0]; });
  if (op == "Abs")
    return elementwise(in, out, [dt](const std::vector<Scalar>& a) {
      return is_float(dt) ? Scalar::of_float(std::abs(a[0].as_double()))
                          : Scalar::of_int(std::abs(a[0].as_int()));
    });
  bool binary = op != "Neg" && op != "Max" && op != "Min";
  if (std::optional<ScalarFn> f = alu(op, in[0]->dtype); f && (!binary || in.size() == 2))
    return elementwise(in, out, *f);
  if (op == "Ceil" || op == "Floor" || op == "Relu")
    return elementwise(in, out, [&op, dt](const std::vector<Scalar>& a) {
      if (!is_float(dt)) return op == "Relu" ? Scalar::of_int(std::max<int64_t>(a[0].as_int(), 0)) : a[0];
      double x = a[0].as_double();
      return Scalar::of_float(op == "Ceil"    ? std::ceil(x)
                              : op == "Floor" ? std::floor(x)
                                              : (x > 0 ? x : 0.0));
    });
  if (op == "Where")
    return elementwise(in, out,
                       [](const std::vector<Scalar>& a) { return a[0].as_double() != 0 ? a[1] : a[2]; });
  if (op == "Not")
    return elementwise(in, out,
                       [](const std::vector<Scalar>& a) { return Scalar::of_bool(a[0].as_double() == 0); });
  if (op == "Gather" && in.size() == 2)
    return gather(*in[0], *in[1], Node::norm_axis(n.attr_int("axis", 0), in[0]->shape.size()), out);
  if (op == "Slice") return slice_1d(n, *in[0], out);
  if (op == "Range") {
    std::vector<Scalar> values;
    double start = in[0]->at(0).as_double(), delta = in[2]->at(0).as_double();
    for (int64_t i = 0, count = prod(out.shape()); i < count; ++i)
      values.push_back(is_float(dt) ? Scalar::of_float(start + double(i) * delta)
                                    : Scalar::of_int(in[0]->at(0).as_int() + i * in[2]->at(0).as_int()));
    return known_values(dt, out.shape(), values);
  }
  if ((op == "ReduceProd" || op == "ReduceSum") && in[0]->shape.size() <= 1 && prod(out.shape()) == 1) {
    bool ints = !is_float(dt), product = op == "ReduceProd";
    int64_t ia = product ? 1 : 0;
    double fa = product ? 1 : 0;
    for (size_t i = 0; i < in[0]->count(); ++i)
      product ? (ia *= in[0]->at(i).as_int(), fa *= in[0]->at(i).as_double())
              : (ia += in[0]->at(i).as_int(), fa += in[0]->at(i).as_double());
    return known_values(dt, out.shape(), {ints ? Scalar::of_int(ia) : Scalar::of_float(fa)});
  }
  if (op == "Concat") return concat(in, Node::norm_axis(n.attr_int("axis", 0), out.shape().size()), out);
  return std::nullopt;
}

} // namespace tg
