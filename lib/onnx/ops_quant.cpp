// ONNX's quantization ops: linear (de)quantization and integer matmul/conv (ONNX operator docs).
// Rounding is half to even and results saturate to the integer type's range, as the spec says.
#include <limits>

#include "onnx/node.h"

namespace tg {

namespace {

using Outs = std::vector<Tensor>;

// A per-axis parameter (a vector along `axis`) shaped to broadcast against x; a scalar as is.
Tensor along_axis(const Tensor& v, const Tensor& x, int axis) {
  if (v.shape().empty() || prod(v.shape()) == 1) return v.reshape({});
  Shape s(x.shape().size(), 1);
  s[size_t(axis)] = v.shape()[0];
  return v.reshape(s);
}

// The axis a per-axis scale runs along; a per-tensor scale ignores the attribute.
int quant_axis(const Node& n, const Tensor& x, const Tensor& scale) {
  if (scale.shape().empty() || prod(scale.shape()) == 1) return 0;
  return Node::norm_axis(n.attr_int("axis", 1), x.shape().size());
}

std::pair<double, double> int_range(DType dt) {
  switch (dt) {
  case DType::UInt8:
    return {0, 255};
  case DType::Int8:
    return {-128, 127};
  case DType::UInt16:
    return {0, 65535};
  case DType::Int16:
    return {-32768, 32767};
  case DType::Int32:
    return {-2147483648.0, 2147483647.0};
  default:
    return {0, 0};
  }
}

// x / s rounded to float32 as a true division would: tg divides by multiplying with the
// reciprocal, which lands a quotient like -127.49999 on -127.5 and flips its rounding.
Tensor true_quotient(const Tensor& x, const Tensor& s) {
  return x.cast(DType::Float64).mul(s.cast(DType::Float64).reciprocal()).cast(DType::Float32);
}

// round(v) + zero_point, saturated to `dt` (float32 arithmetic, as the reference's).
Tensor saturate(const Tensor& v, DType dt, const Node& n) {
  auto [lo, hi] = int_range(dt);
  if (lo == hi) n.bad("quantizing to " + std::string(dtype_repr(dt)) + " is not imported");
  return v.clip(lo, hi).cast(dt);
}

Tensor quantize(const Tensor& x, const Tensor& scale, std::optional<Tensor> zero_point, DType dt, int axis,
                const Node& n) {
  Tensor y = true_quotient(x, along_axis(scale, x, axis).cast(DType::Float32)).round();
  if (zero_point) y = y.add(along_axis(*zero_point, x, axis).cast(DType::Float32));
  return saturate(y, dt, n);
}

// x - zero_point in int32 (zero_point per row of x when rows > 1: MatMulInteger's a_zero_point).
Tensor centred(const Tensor& x, const Node& n, int zp_input, int axis) {
  Tensor v = x.cast(DType::Int32);
  if (!n.has_input(zp_input)) return v;
  return v.sub(along_axis(n.in(zp_input), x, axis).cast(DType::Int32));
}

} // namespace

void add_quant_ops(OpTable& t) {
  t["QuantizeLinear"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0);
    int axis = quant_axis(n, x, n.in(1));
    std::optional<Tensor> zp;
    if (n.has_input(2)) zp = n.in(2);
    return {quantize(x, n.in(1), zp, zp ? zp->dtype() : DType::UInt8, axis, n)};
  };
  t["DequantizeLinear"] = [](const Node& n) -> Outs { // (x - zero_point) * scale, per tensor or per axis
    Tensor x = n.in(0), scale = n.in(1);
    int axis = quant_axis(n, x, scale);
    Tensor y = x.cast(DType::Float32);
    if (n.has_input(2)) y = y.sub(along_axis(n.in(2), x, axis).cast(DType::Float32));
    return {y.mul(along_axis(scale, x, axis)).cast(scale.dtype())};
  };
  t["DynamicQuantizeLinear"] = [](const Node& n) -> Outs { // uint8 over [min(0, x), max(0, x)]
    Tensor x = n.in(0).cast(DType::Float32);
    Tensor hi = x.max().maximum(0.0), lo = x.min().minimum(0.0);
    Tensor scale = hi.sub(lo).div(255.0);
    Tensor zp = true_quotient(lo, scale).sub(0.0, true).clip(0.0, 255.0).round();
    Tensor y = true_quotient(x, scale).round().add(zp).clip(0.0, 255.0);
    return {y.cast(DType::UInt8), scale, zp.cast(DType::UInt8)};
  };
  t["MatMulInteger"] = [](const Node& n) -> Outs {
    Tensor a = n.in(0), b = n.in(1);
    Tensor ac = centred(a, n, 2, int(a.shape().size()) - 2), bc = centred(b, n, 3, int(b.shape().size()) - 1);
    return {ac.matmul(bc, false, DType::Int32)};
  };
  t["QLinearMatMul"] = [](const Node& n) -> Outs { // the int32 product rescaled to y's quantization
    Tensor a = n.in(0), b = n.in(3);
    Tensor ac = centred(a, n, 2, int(a.shape().size()) - 2), bc = centred(b, n, 5, int(b.shape().size()) - 1);
    Tensor c = ac.matmul(bc, false, DType::Int32).cast(DType::Float32);
    Tensor y = c.mul(n.in(1).mul(n.in(4)).div(n.in(6))).add(n.in(7).cast(DType::Float32)).round();
    return {saturate(y, n.in(7).dtype(), n)};
  };
  t["QLinearConv"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0), w = n.in(3);
    Tensor xc = centred(x, n, 2, 1), wc = centred(w, n, 5, 0);
    size_t nd = n.spatial_rank(x);
    std::vector<int64_t> kernel = n.kernel_arg(w, nd);
    std::vector<int64_t> strides = n.attr_ints("strides").value_or(std::vector<int64_t>(nd, 1));
    std::vector<int64_t> dil = n.attr_ints("dilations").value_or(std::vector<int64_t>(nd, 1));
    std::vector<int64_t> pads = n.spatial_padding(x.shape(), kernel, strides, dil);
    Tensor c = xc.conv2d(wc, std::nullopt, n.attr_int("group", 1), IntOrTuple(strides), IntOrTuple(dil),
                         IntOrTuple(pads), DType::Int32);
    if (n.has_input(8)) {
      Shape s(c.shape().size(), 1);
      s[1] = c.shape()[1];
      c = c.add(n.in(8).cast(DType::Int32).reshape(s));
    }
    Tensor scale = along_axis(n.in(1).mul(along_axis(n.in(4), w, 0).reshape({-1})), c, 1);
    Tensor y = c.cast(DType::Float32).mul(scale.div(n.in(6))).add(n.in(7).cast(DType::Float32)).round();
    return {saturate(y, n.in(7).dtype(), n)};
  };
}

} // namespace tg
