// ONNX's elementwise ops, reductions and matrix products as Tensor ops (ONNX operator docs,
// tinygrad's extra/onnx_ops.py where it chose a lowering).
#include <cmath>

#include "onnx/node.h"

namespace tg {

namespace {

using Outs = std::vector<Tensor>;

Tensor fold_inputs(const Node& n, Tensor (*f)(const Tensor&, const Tensor&)) {
  Tensor acc = n.in(0);
  for (int i = 1; i < n.input_count(); ++i) acc = f(acc, n.in(i));
  return acc;
}

Tensor sum2(const Tensor& a, const Tensor& b) { return a.add(b); }

// tinygrad's Atan: a polynomial on [0, 1] and atan(x) = pi/2 - atan(1/x) beyond.
Tensor atan(const Tensor& y) {
  Tensor t1 = y.abs();
  Tensor t3 = t1.lt(1.0).where(t1, t1.reciprocal());
  Tensor t4 = t3.mul(t3);
  Tensor t0 = t4.mul(-0.013480470)
                  .add(0.057477314)
                  .mul(t4)
                  .sub(0.121239071)
                  .mul(t4)
                  .add(0.195635925)
                  .mul(t4)
                  .sub(0.332994597)
                  .mul(t4)
                  .add(0.999995630);
  t3 = t0.mul(t3);
  t3 = t1.gt(1.0).where(t3.sub(1.570796327, true), t3);
  return y.sign().mul(t3);
}

// tinygrad's Erf: Abramowitz and Stegun 7.1.26.
Tensor erf(const Tensor& x) {
  Tensor t = x.abs().mul(0.3275911).add(1.0).reciprocal();
  Tensor y = t.mul(0.254829592)
                 .add(t.pow(2.0).mul(-0.284496736))
                 .add(t.pow(3.0).mul(1.421413741))
                 .add(t.pow(4.0).mul(-1.453152027))
                 .add(t.pow(5.0).mul(1.061405429));
  Tensor z = y.mul(x.mul(x).neg().exp()).sub(1.0, true);
  return x.gt(0.0).where(z, z.neg());
}

// A binary arithmetic op whose result keeps the first input's dtype (ONNX: T, T -> T; tinygrad
// casts back, so integer division truncates).
Tensor keep_dtype(const Tensor& r, const Tensor& x) { return r.dtype() == x.dtype() ? r : r.cast(x.dtype()); }

// Pow's exponent where it is one known value, a whole or half number of at most kMaxKnownPow
// in size, and the base is float (an exporter writes GELU's x^3 as Pow(x, 3.0)): Tensor.pow of
// a number multiplies (and takes one sqrt for a half) as tinygrad's x ** 3 does, where a tensor
// exponent costs exp2(log2|x| * y) and a sign fix-up on every element (a GPT-2 block's MLP
// kernel spent half its time there) and is less exact. An exponent that would broadcast the
// base to more dims keeps the general path.
constexpr double kMaxKnownPow = 16;
std::optional<double> small_known_exponent(const Node& n, const Tensor& x) {
  const Known* k = n.maybe_known(1);
  if (!k || k->count() != 1 || k->shape.size() > x.shape().size() || !is_float(x.dtype()))
    return std::nullopt;
  double e = k->at(0).as_double();
  if (!(std::fabs(e) <= kMaxKnownPow) || std::trunc(2 * e) != 2 * e) return std::nullopt;
  return e;
}

// The determinant of the trailing n x n matrices: Gaussian elimination with partial pivoting,
// unrolled over the n columns (n is known while importing).
Tensor determinant(const Tensor& x) {
  const Shape& s = x.shape();
  int64_t n = s.back();
  size_t rank = s.size();
  Tensor a = x;
  Tensor rows = positions(n).reshape({n, 1});
  Shape batch(s.begin(), s.end() - 2);
  auto col = [&](const Tensor& m, int64_t k) { // (..., n): column k
    Padding p(rank, std::nullopt);
    p.back() = std::pair<int64_t, int64_t>(k, k + 1);
    return m.shrink(p).squeeze(-1);
  };
  auto row = [&](const Tensor& m, const Tensor& pick) { // (..., 1, n): the rows where pick holds
    return pick.where(m, 0.0).sum(std::vector<int>{int(rank) - 2}, true);
  };
  std::optional<Tensor> det;
  for (int64_t k = 0; k < n; ++k) {
    // the largest magnitude at or below the diagonal becomes the pivot row
    Tensor mag = col(a, k).abs().unsqueeze(-1);                           // (..., n, 1)
    Tensor candidates = rows.ge(Operand(k)).where(mag, -1.0);             // rows above k never win
    Tensor p = candidates.argmax(int(rank) - 2, true).cast(DType::Int64); // (..., 1, 1)
    Tensor is_k = rows.eq(Operand(k)), is_p = rows.eq(p);                 // (..., n, 1)
    Tensor rk = row(a, is_k), rp = row(a, is_p);
    a = is_k.where(rp, is_p.where(rk, a));
    Tensor flips = p.eq(Operand(k)).where(1.0, -1.0).reshape(batch);
    Tensor pivot = col(row(a, is_k), k).reshape(batch);
    Tensor safe = pivot.eq(0.0).where(1.0, pivot);
    Shape bs = batch;
    bs.push_back(1), bs.push_back(1);
    Tensor factor = col(a, k).unsqueeze(-1).div(safe.reshape(bs)); // (..., n, 1)
    a = rows.gt(Operand(k)).where(a.sub(factor.mul(row(a, is_k))), a);
    Tensor step = pivot.mul(flips);
    det = det ? det->mul(step) : step;
  }
  return det ? *det : Tensor::full(batch, Scalar::of_float(1.0), x.dtype());
}

} // namespace

// A product over axes as a tree of multiplies: the reduced axes become one, padded with 1s to a
// power of two and halved until one element is left (tg's reduce ops are SUM and MAX only).
Tensor product(const Tensor& x, const AxisArg& axes, bool keep) {
  const Shape& s = x.shape();
  std::vector<int> red;
  if (axes)
    red = *axes;
  else
    for (size_t d = 0; d < s.size(); ++d) red.push_back(int(d));
  std::vector<int> perm;
  Shape kept, keep_shape;
  for (size_t d = 0; d < s.size(); ++d)
    if (std::find(red.begin(), red.end(), int(d)) == red.end())
      perm.push_back(int(d)), kept.push_back(s[d]), keep_shape.push_back(s[d]);
    else
      keep_shape.push_back(1);
  int64_t m = 1;
  for (int d : red) perm.push_back(d), m *= s[size_t(d)];
  Shape flat = kept;
  flat.push_back(m);
  Tensor t = x.permute(perm).reshape(flat);
  int64_t p2 = 1;
  while (p2 < m) p2 *= 2;
  Padding pad(flat.size(), std::nullopt);
  pad.back() = std::pair<int64_t, int64_t>(0, p2 - m);
  if (p2 != m) t = t.pad(pad, 1.0);
  for (int64_t w = p2; w > 1; w /= 2) {
    Padding lo(flat.size(), std::nullopt), hi(flat.size(), std::nullopt);
    lo.back() = std::pair<int64_t, int64_t>(0, w / 2), hi.back() = std::pair<int64_t, int64_t>(w / 2, w);
    t = t.shrink(lo).mul(t.shrink(hi));
  }
  return t.reshape(keep ? keep_shape : kept);
}

void add_elementwise_ops(OpTable& t) {
  t["Identity"] = [](const Node& n) -> Outs { return {n.in(0)}; };
  t["Neg"] = [](const Node& n) -> Outs { return {n.in(0).neg()}; };
  t["Abs"] = [](const Node& n) -> Outs { return {n.in(0).abs()}; };
  t["Sqrt"] = [](const Node& n) -> Outs { return {n.in(0).sqrt()}; };
  t["Exp"] = [](const Node& n) -> Outs { return {n.in(0).exp()}; };
  t["Log"] = [](const Node& n) -> Outs { return {n.in(0).log()}; };
  t["Relu"] = [](const Node& n) -> Outs { return {n.in(0).relu()}; };
  t["Sigmoid"] = [](const Node& n) -> Outs { return {n.in(0).sigmoid()}; };
  t["Tanh"] = [](const Node& n) -> Outs { return {n.in(0).tanh()}; };
  t["Reciprocal"] = [](const Node& n) -> Outs { return {n.in(0).reciprocal()}; };
  t["Floor"] = [](const Node& n) -> Outs { return {n.in(0).floor()}; };
  t["Ceil"] = [](const Node& n) -> Outs { return {n.in(0).ceil()}; };
  t["Round"] = [](const Node& n) -> Outs { return {n.in(0).round()}; };
  t["Sin"] = [](const Node& n) -> Outs { return {n.in(0).sin()}; };
  t["Cos"] = [](const Node& n) -> Outs { return {n.in(0).cos()}; };
  t["Tan"] = [](const Node& n) -> Outs { return {n.in(0).tan()}; };
  t["Sinh"] = [](const Node& n) -> Outs { return {n.in(0).sinh()}; };
  t["Cosh"] = [](const Node& n) -> Outs { return {n.in(0).cosh()}; };
  t["Asinh"] = [](const Node& n) -> Outs { return {n.in(0).asinh()}; };
  t["Acosh"] = [](const Node& n) -> Outs { return {n.in(0).acosh()}; };
  t["Atanh"] = [](const Node& n) -> Outs { return {n.in(0).atanh()}; };
  t["Atan"] = [](const Node& n) -> Outs { return {atan(n.in(0))}; };
  t["Asin"] = [](const Node& n) -> Outs { // tinygrad: atan(x / sqrt(1 - x^2))
    Tensor x = n.in(0);
    return {atan(x.div(x.mul(x).sub(1.0, true).sqrt()))};
  };
  t["Acos"] = [](const Node& n) -> Outs { // tinygrad: Abramowitz and Stegun 4.4.45
    Tensor x = n.in(0), negate = x.lt(0.0).cast(x.dtype()), a = x.abs();
    Tensor r = a.mul(-0.0187293)
                   .add(0.0742610)
                   .mul(a)
                   .sub(0.2121144)
                   .mul(a)
                   .add(1.5707288)
                   .mul(a.sub(1.0, true).sqrt());
    r = r.sub(negate.mul(2.0).mul(r));
    return {negate.mul(M_PI).add(r)};
  };
  t["Erf"] = [](const Node& n) -> Outs { return {erf(n.in(0))}; };
  t["Sign"] = [](const Node& n) -> Outs { return {n.in(0).sign()}; };
  t["Softsign"] = [](const Node& n) -> Outs { return {n.in(0).softsign()}; };
  t["Not"] = [](const Node& n) -> Outs { return {n.in(0).logical_not()}; };
  t["Softplus"] = [](const Node& n) -> Outs { return {n.in(0).softplus()}; };
  t["Mish"] = [](const Node& n) -> Outs { return {n.in(0).mish()}; };
  t["Elu"] = [](const Node& n) -> Outs { return {n.in(0).elu(n.attr_float("alpha", 1.0))}; };
  t["Celu"] = [](const Node& n) -> Outs { return {n.in(0).celu(n.attr_float("alpha", 1.0))}; };
  t["LeakyRelu"] = [](const Node& n) -> Outs { return {n.in(0).leakyrelu(n.attr_float("alpha", 0.01))}; };
  t["HardSigmoid"] = [](const Node& n) -> Outs {
    return {n.in(0).mul(n.attr_float("alpha", 0.2)).add(n.attr_float("beta", 0.5)).clip(0.0, 1.0)};
  };
  t["HardSwish"] = [](const Node& n) -> Outs { // x * HardSigmoid(x, 1/6, 1/2)
    Tensor x = n.in(0);
    return {x.mul(x.mul(1.0 / 6.0).add(0.5).clip(0.0, 1.0))};
  };
  t["Gelu"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0);
    if (n.attr_string("approximate", "none") == "tanh") return {x.gelu()};
    return {x.mul(0.5).mul(erf(x.div(std::sqrt(2.0))).add(1.0))};
  };
  t["PRelu"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0), slope = n.in(1);
    // before opset 7 a slope of C values is per channel (axis 1), not broadcast from the right
    if (n.opset() < 7 && slope.ndim() == 1 && x.ndim() > 2 && slope.shape()[0] == x.shape()[1] &&
        slope.shape()[0] != 1) {
      Shape per_channel(size_t(x.ndim() - 1), 1);
      per_channel[0] = slope.shape()[0];
      slope = slope.reshape(per_channel);
    }
    return {x.lt(0.0).where(x.mul(slope), x)};
  };
  t["ThresholdedRelu"] = [](const Node& n) -> Outs {
    return {n.in(0).gt(n.attr_float("alpha", 1.0)).where(n.in(0), 0.0)};
  };
  t["Selu"] = [](const Node& n) -> Outs {
    double alpha = n.attr_float("alpha", 1.67326319217681884765625),
           gamma = n.attr_float("gamma", 1.05070102214813232421875);
    Tensor x = n.in(0);
    return {x.gt(0.0).where(x, x.exp().sub(1.0).mul(alpha)).mul(gamma)};
  };
  t["Shrink"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0);
    double bias = n.attr_float("bias", 0.0), lambd = n.attr_float("lambd", 0.5);
    return {x.lt(-lambd).where(x.add(bias), x.gt(lambd).where(x.sub(bias), 0.0))};
  };
  t["Add"] = [](const Node& n) -> Outs { return {n.in(0).add(n.in(1))}; };
  t["Sub"] = [](const Node& n) -> Outs { return {n.in(0).sub(n.in(1))}; };
  t["Mul"] = [](const Node& n) -> Outs { return {n.in(0).mul(n.in(1))}; };
  t["Div"] = [](const Node& n) -> Outs { return {keep_dtype(n.in(0).div(n.in(1)), n.in(0))}; };
  t["Pow"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0);
    if (auto e = small_known_exponent(n, x)) return {x.pow(*e)};
    return {keep_dtype(x.pow(n.in(1)), x)};
  };
  t["Equal"] = [](const Node& n) -> Outs { return {n.in(0).eq(n.in(1))}; };
  t["Less"] = [](const Node& n) -> Outs { return {n.in(0).lt(n.in(1))}; };
  t["Greater"] = [](const Node& n) -> Outs { return {n.in(0).gt(n.in(1))}; };
  t["LessOrEqual"] = [](const Node& n) -> Outs { return {n.in(0).le(n.in(1))}; };
  t["GreaterOrEqual"] = [](const Node& n) -> Outs { return {n.in(0).ge(n.in(1))}; };
  t["Where"] = [](const Node& n) -> Outs { return {n.in(0).where(n.in(1), n.in(2))}; };
  t["And"] = [](const Node& n) -> Outs { return {n.in(0).where(n.in(1), false)}; };
  t["Or"] = [](const Node& n) -> Outs { return {n.in(0).where(true, n.in(1))}; };
  t["Xor"] = [](const Node& n) -> Outs { return {n.in(0).ne(n.in(1))}; };
  t["BitShift"] = [](const Node& n) -> Outs { // x * 2^y or x // 2^y, in x's unsigned type
    Tensor x = n.in(0), y = n.in(1);
    Tensor scale = y.cast(DType::Float64).exp2().round().cast(x.dtype()); // exp2 is approximate
    std::string dir = n.attr_string("direction", "");
    if (dir == "LEFT") return {x.mul(scale)};
    if (dir == "RIGHT") return {x.div(scale, false, false)};
    n.bad("direction '" + dir + "' is neither LEFT nor RIGHT");
  };
  t["Max"] = [](const Node& n) -> Outs {
    return {fold_inputs(n, [](const Tensor& a, const Tensor& b) { return a.maximum(b); })};
  };
  t["Min"] = [](const Node& n) -> Outs {
    return {fold_inputs(n, [](const Tensor& a, const Tensor& b) { return a.minimum(b); })};
  };
  t["Sum"] = [](const Node& n) -> Outs { return {fold_inputs(n, sum2)}; };
  t["Mean"] = [](const Node& n) -> Outs { return {fold_inputs(n, sum2).div(double(n.input_count()))}; };
  t["IsNaN"] = [](const Node& n) -> Outs { return {n.in(0).ne(n.in(0))}; };
  t["IsInf"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0), pos = x.eq(INFINITY), neg = x.eq(-INFINITY);
    bool p = n.attr_int("detect_positive", 1), m = n.attr_int("detect_negative", 1);
    if (!p && !m) return {x.full_like(Scalar::of_bool(false), DType::Bool)}; // detects nothing
    return {p && m ? pos.where(true, neg) : p ? pos : neg};
  };
  t["Mod"] = [](const Node& n) -> Outs { // fmod=0: the sign of the divisor (Python's %); 1: of the dividend
    DType dt = n.in(0).dtype();
    bool ints = !is_float(dt);
    Tensor a = ints ? n.in(0).cast(DType::Float64) : n.in(0),
           b = ints ? n.in(1).cast(DType::Float64) : n.in(1);
    Tensor q = a.div(b);
    q = n.attr_int("fmod", 0) ? q.trunc() : q.floor();
    Tensor r = a.sub(q.mul(b));
    return {ints ? r.cast(dt) : r};
  };
  t["Cast"] = [](const Node& n) -> Outs {
    std::optional<DType> dt = dtype_of_onnx(int(n.attr_int("to", 0)));
    if (!dt) n.bad("cast to ONNX type " + std::to_string(n.attr_int("to", 0)) + " is not imported");
    return {n.in(0).cast(*dt)};
  };
  t["CastLike"] = [](const Node& n) -> Outs { return {n.in(0).cast(n.in(1).dtype())}; };
  t["Clip"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0);
    if (n.opset() < 11) return {x.clip(n.attr_float("min", -INFINITY), n.attr_float("max", INFINITY))};
    if (n.has_input(1)) x = x.maximum(n.in(1));
    if (n.has_input(2)) x = x.minimum(n.in(2));
    return {x};
  };

  // --- reductions ---
  t["ReduceSum"] = [](const Node& n) -> Outs {
    return {n.reduce(
        n.in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.sum(a, k); }, 1)};
  };
  t["ReduceMean"] = [](const Node& n) -> Outs {
    return {n.reduce(
        n.in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.mean(a, k); }, 1)};
  };
  t["ReduceMax"] = [](const Node& n) -> Outs {
    return {n.reduce(
        n.in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.max(a, k); }, 1)};
  };
  t["ReduceMin"] = [](const Node& n) -> Outs {
    return {n.reduce(
        n.in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.min(a, k); }, 1)};
  };
  t["ReduceProd"] = [](const Node& n) -> Outs { return {n.reduce(n.in(0), product, 1)}; };
  t["ReduceSumSquare"] = [](const Node& n) -> Outs {
    return {n.reduce(
        n.in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.square().sum(a, k); }, 1)};
  };
  t["ReduceL1"] = [](const Node& n) -> Outs {
    return {n.reduce(
        n.in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.abs().sum(a, k); }, 1)};
  };
  t["ReduceL2"] = [](const Node& n) -> Outs {
    return {n.reduce(
        n.in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.square().sum(a, k).sqrt(); }, 1)};
  };
  t["ReduceLogSum"] = [](const Node& n) -> Outs {
    return {n.reduce(
        n.in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.sum(a, k).log(); }, 1)};
  };
  t["ReduceLogSumExp"] = [](const Node& n) -> Outs {
    return {n.reduce(
        n.in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.exp().sum(a, k).log(); }, 1)};
  };
  auto arg_extreme = [](const Node& n) -> Outs {
    int axis = Node::norm_axis(n.attr_int("axis", 0), n.in(0).shape().size());
    bool keep = n.attr_int("keepdims", 1) != 0, last = n.attr_int("select_last_index", 0) != 0;
    Tensor x = last ? n.in(0).flip({axis}) : n.in(0); // the last of ties is the first when flipped
    Tensor r = (n.op() == "ArgMax" ? x.argmax(axis, keep) : x.argmin(axis, keep)).cast(DType::Int64);
    return {last ? r.sub(int64_t(n.in(0).shape()[size_t(axis)]) - 1, true) : r};
  };
  t["ArgMax"] = arg_extreme;
  t["ArgMin"] = arg_extreme;
  t["Hardmax"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0);
    int axis = Node::norm_axis(n.attr_int("axis", -1), x.shape().size());
    Shape s(x.shape().size(), 1);
    s[size_t(axis)] = x.shape()[size_t(axis)];
    Tensor positions = Tensor::arange(Scalar::of_int(0), Scalar::of_int(s[size_t(axis)])).reshape(s);
    return {x.argmax(axis, true).eq(positions).cast(x.dtype())};
  };
  t["CumSum"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0);
    int axis = Node::norm_axis(n.known(1).ints().at(0), x.shape().size());
    bool reverse = n.attr_int("reverse", 0) != 0;
    Tensor y = reverse ? x.flip({axis}).cumsum(axis).flip({axis}) : x.cumsum(axis);
    return {n.attr_int("exclusive", 0) ? y.sub(x) : y};
  };

  // --- products ---
  t["MatMul"] = [](const Node& n) -> Outs { return {n.in(0).matmul(n.in(1))}; };
  t["Det"] = [](const Node& n) -> Outs {
    const Shape& s = n.in(0).shape();
    if (s.size() < 2 || s[s.size() - 1] != s[s.size() - 2]) n.bad("the input must end in square matrices");
    return {determinant(n.in(0))};
  };
  t["Gemm"] = [](const Node& n) -> Outs {
    Tensor a = n.attr_int("transA", 0) ? n.in(0).transpose() : n.in(0);
    Tensor b = n.attr_int("transB", 0) ? n.in(1).transpose() : n.in(1);
    Tensor y = a.matmul(b).mul(n.attr_float("alpha", 1.0));
    if (n.has_input(2)) y = y.add(n.in(2).mul(n.attr_float("beta", 1.0)));
    return {y};
  };
  t["Einsum"] = [](const Node& n) -> Outs {
    return {Tensor::einsum(n.attr_string("equation", ""), n.inputs_from(0))};
  };
}

} // namespace tg
