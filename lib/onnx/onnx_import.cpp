// ONNX import. See onnx_import.h. Op semantics follow the ONNX operator docs (opset <= 18) and
// tinygrad's extra/onnx.py where it chose a lowering.
#include "onnx/onnx_import.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>

#include "dtype/dtype_bytes.h"
#include "io/host_buffer.h"
#include "lazy/lazybuffer.h"
#include "tensor/tensor.h"
#include "util/error.h"

namespace tg {

namespace {

std::optional<DType> dtype_of_onnx(int t) {
  switch (t) {
  case onnx::TensorProto::FLOAT:
    return DType::Float32;
  case onnx::TensorProto::UINT8:
    return DType::UInt8;
  case onnx::TensorProto::INT8:
    return DType::Int8;
  case onnx::TensorProto::UINT16:
    return DType::UInt16;
  case onnx::TensorProto::INT16:
    return DType::Int16;
  case onnx::TensorProto::INT32:
    return DType::Int32;
  case onnx::TensorProto::INT64:
    return DType::Int64;
  case onnx::TensorProto::BOOL:
    return DType::Bool;
  case onnx::TensorProto::FLOAT16:
    return DType::Float16;
  case onnx::TensorProto::DOUBLE:
    return DType::Float64;
  case onnx::TensorProto::UINT32:
    return DType::UInt32;
  case onnx::TensorProto::UINT64:
    return DType::UInt64;
  case onnx::TensorProto::BFLOAT16:
    return DType::BFloat16;
  default:
    return std::nullopt;
  }
}

// A value known when the model is imported (an initializer, a Constant, a Shape): ops that take
// shapes, axes or pads read them from here.
struct Known {
  DType dtype;
  Shape shape;
  std::vector<uint8_t> data;
  std::vector<int64_t> ints() const {
    std::vector<int64_t> out;
    for (size_t i = 0; i < data.size(); i += size_t(itemsize(dtype)))
      out.push_back(load_element(&data[i], dtype).as_int());
    return out;
  }
  std::vector<double> floats() const {
    std::vector<double> out;
    for (size_t i = 0; i < data.size(); i += size_t(itemsize(dtype)))
      out.push_back(load_element(&data[i], dtype).as_double());
    return out;
  }
};

Known known_of(const onnx::TensorProto& t, const std::string& where) {
  std::optional<DType> dt = dtype_of_onnx(t.data_type());
  if (!dt)
    fail("NotImplementedError", where + ": tensor '" + t.name() + "' has ONNX data type " +
                                    std::to_string(t.data_type()) + ", which tg does not import");
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    fail("NotImplementedError", where + ": tensor '" + t.name() + "' keeps its data in an external file");
  Known k{*dt, Shape(t.dims().begin(), t.dims().end()), {}};
  for (int64_t d : k.shape)
    if (d < 0) fail("ValueError", where + ": tensor '" + t.name() + "' has a negative dimension");
  const size_t n = size_t(prod(k.shape)), isz = size_t(itemsize(*dt));
  if (t.has_raw_data()) {
    if (t.raw_data().size() != n * isz)
      fail("ValueError", where + ": tensor '" + t.name() + "' holds " + std::to_string(t.raw_data().size()) +
                             " bytes, its shape needs " + std::to_string(n * isz));
    k.data.assign(t.raw_data().begin(), t.raw_data().end());
    return k;
  }
  k.data.resize(n * isz);
  auto fill = [&](const auto& field, auto convert) {
    if (size_t(field.size()) != n)
      fail("ValueError", where + ": tensor '" + t.name() + "' holds " + std::to_string(field.size()) +
                             " values, its shape needs " + std::to_string(n));
    for (size_t i = 0; i < n; ++i) convert(&k.data[i * isz], field.Get(int(i)));
  };
  auto as_scalar = [&](uint8_t* p, auto v) {
    using V = decltype(v);
    if constexpr (std::is_floating_point_v<V>)
      store_element(p, Scalar::of_float(double(v)), *dt);
    else
      store_element(p, Scalar::of_int(int64_t(v)), *dt);
  };
  switch (*dt) {
  case DType::Float32:
    fill(t.float_data(), as_scalar);
    break;
  case DType::Float64:
    fill(t.double_data(), as_scalar);
    break;
  case DType::Int64:
    fill(t.int64_data(), as_scalar);
    break;
  case DType::UInt32:
  case DType::UInt64:
    fill(t.uint64_data(), as_scalar);
    break;
  case DType::Float16:
  case DType::BFloat16: // the bits, in int32_data
    fill(t.int32_data(), [&](uint8_t* p, int32_t v) {
      uint16_t bits = uint16_t(v);
      std::memcpy(p, &bits, 2);
    });
    break;
  default:
    fill(t.int32_data(), as_scalar);
    break;
  }
  return k;
}

Tensor tensor_of(const Known& k) { return Tensor(LazyBuffer::from_data(k.data, k.shape, k.dtype)); }

Known known_ints(const std::vector<int64_t>& v) {
  Known k{DType::Int64, Shape{int64_t(v.size())}, std::vector<uint8_t>(v.size() * 8)};
  std::memcpy(k.data.data(), v.data(), k.data.size());
  return k;
}

class Importer {
public:
  Importer(const onnx::ModelProto& model, std::string filename,
           const std::map<std::string, HostBuffer>& frozen)
      : model_(model), file_(std::move(filename)), frozen_(frozen) {
    for (const auto& o : model.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") opset_ = int(o.version());
  }

  Graph run() {
    const onnx::GraphProto& g = model_.graph();
    for (const onnx::TensorProto& init : g.initializer()) {
      Known k = known_of(init, file_);
      values_[init.name()] = tensor_of(k);
      known_[init.name()] = std::move(k);
    }
    std::vector<GraphInput> inputs;
    for (const auto& [name, hb] : frozen_) {
      bool is_input = false;
      for (const onnx::ValueInfoProto& in : g.input()) is_input |= in.name() == name;
      if (!is_input) fail("ValueError", file_ + ": --arg " + name + ": the model has no input of that name");
    }
    for (const onnx::ValueInfoProto& in : g.input()) {
      if (values_.count(in.name())) continue;                     // an initializer listed as an input too
      if (auto f = frozen_.find(in.name()); f != frozen_.end()) { // bound to a constant while tracing
        Known k{f->second.dtype, f->second.shape, f->second.data};
        values_[in.name()] = tensor_of(k);
        known_[in.name()] = std::move(k);
        continue;
      }
      const auto& tt = in.type().tensor_type();
      std::optional<DType> dt = dtype_of_onnx(tt.elem_type());
      if (!in.type().has_tensor_type() || !dt)
        fail("NotImplementedError",
             file_ + ": input '" + in.name() + "' is not a tensor of a type tg imports");
      Shape shape;
      for (const auto& d : tt.shape().dim()) {
        if (!d.has_dim_value())
          fail("NotImplementedError", file_ + ": input '" + in.name() + "' has a symbolic dimension '" +
                                          d.dim_param() + "'; tg imports fixed shapes only");
        shape.push_back(d.dim_value());
      }
      Tensor t = Tensor::placeholder(in.name(), shape, *dt);
      values_[in.name()] = t;
      inputs.push_back(GraphInput{in.name(), t.lazydata().id(), false});
    }
    for (const onnx::NodeProto& n : g.node()) {
      node_ = &n;
      std::vector<Tensor> outs = apply(n);
      for (int i = 0; i < n.output_size() && i < int(outs.size()); ++i)
        if (!n.output(i).empty()) values_[n.output(i)] = outs[size_t(i)];
    }
    std::vector<std::pair<std::string, LazyBuffer>> outputs;
    for (const onnx::ValueInfoProto& o : g.output()) {
      auto it = values_.find(o.name());
      if (it == values_.end())
        fail("ValueError", file_ + ": graph output '" + o.name() + "' is never computed");
      outputs.emplace_back(o.name(), it->second.snapshot().lazydata());
    }
    Graph graph = extract_graph(outputs, inputs, /*effects=*/true);
    lazy_graph().clear_effects();
    return graph;
  }

private:
  [[noreturn]] void bad(const std::string& why) const {
    fail("NotImplementedError", file_ + ": node '" + node_->name() + "' (" + node_->op_type() + "): " + why);
  }

  // --- a node's inputs and attributes ---
  bool has_input(int i) const { return i < node_->input_size() && !node_->input(i).empty(); }
  Tensor in(int i) const {
    if (!has_input(i)) bad("input " + std::to_string(i) + " is missing");
    auto it = values_.find(node_->input(i));
    if (it == values_.end()) bad("input '" + node_->input(i) + "' is not computed before it");
    return it->second;
  }
  const Known& known(int i) const {
    if (!has_input(i)) bad("input " + std::to_string(i) + " is missing");
    auto it = known_.find(node_->input(i));
    if (it == known_.end())
      bad("input '" + node_->input(i) +
          "' must be a constant (an initializer, a Constant, or tg-trace --arg NAME=FILE.npy)");
    return it->second;
  }
  const onnx::AttributeProto* attr(const std::string& name) const {
    for (const auto& a : node_->attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  int64_t attr_int(const std::string& name, int64_t def) const {
    const auto* a = attr(name);
    return a ? a->i() : def;
  }
  double attr_float(const std::string& name, double def) const {
    const auto* a = attr(name);
    return a ? double(a->f()) : def;
  }
  std::string attr_string(const std::string& name, const std::string& def) const {
    const auto* a = attr(name);
    return a ? a->s() : def;
  }
  std::optional<std::vector<int64_t>> attr_ints(const std::string& name) const {
    const auto* a = attr(name);
    if (!a) return std::nullopt;
    return std::vector<int64_t>(a->ints().begin(), a->ints().end());
  }
  // axes from an attribute (older opsets) or from input i (newer ones)
  std::optional<std::vector<int64_t>> axes_arg(int i) const {
    if (auto a = attr_ints("axes")) return a;
    if (has_input(i)) return known(i).ints();
    return std::nullopt;
  }

  static int norm_axis(int64_t axis, size_t rank) { return int(axis < 0 ? axis + int64_t(rank) : axis); }

  // ONNX pads (all begins, then all ends) for the trailing spatial dims, as tinygrad's padding
  // (pairs from the last dim backwards); auto_pad SAME_* computed from the sizes.
  std::vector<int64_t> spatial_padding(const Shape& x, const std::vector<int64_t>& kernel,
                                       const std::vector<int64_t>& strides,
                                       const std::vector<int64_t>& dilations) const {
    size_t nd = kernel.size();
    std::vector<int64_t> pads = attr_ints("pads").value_or(std::vector<int64_t>(2 * nd, 0));
    std::string auto_pad = attr_string("auto_pad", "NOTSET");
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      for (size_t d = 0; d < nd; ++d) {
        int64_t in = x[x.size() - nd + d], out = (in + strides[d] - 1) / strides[d];
        int64_t total =
            std::max<int64_t>((out - 1) * strides[d] + (kernel[d] - 1) * dilations[d] + 1 - in, 0);
        int64_t small = total / 2;
        pads[d] = auto_pad == "SAME_UPPER" ? small : total - small;
        pads[nd + d] = total - pads[d];
      }
    } else if (auto_pad == "VALID") {
      pads.assign(2 * nd, 0);
    }
    if (pads.size() != 2 * nd)
      bad("pads has " + std::to_string(pads.size()) + " values for " + std::to_string(nd) + " dims");
    std::vector<int64_t> out;
    for (size_t d = nd; d-- > 0;) out.push_back(pads[d]), out.push_back(pads[nd + d]);
    return out;
  }
  static Padding padding_of(const std::vector<int64_t>& tg_pads, size_t rank) {
    Padding p(rank - tg_pads.size() / 2, std::nullopt);
    for (size_t i = tg_pads.size() / 2; i-- > 0;) p.push_back(std::pair(tg_pads[2 * i], tg_pads[2 * i + 1]));
    return p;
  }

  std::vector<int64_t> kernel_arg(const Tensor& w, size_t nd) const {
    if (auto k = attr_ints("kernel_shape")) return *k;
    return std::vector<int64_t>(w.shape().end() - long(nd), w.shape().end());
  }

  Tensor reduce(const Tensor& x, const std::function<Tensor(const Tensor&, const AxisArg&, bool)>& f,
                int axes_input) {
    bool keep = attr_int("keepdims", 1) != 0;
    std::optional<std::vector<int64_t>> axes = axes_arg(axes_input);
    if (axes && axes->empty()) axes.reset();
    if (!axes && attr_int("noop_with_empty_axes", 0)) return x;
    AxisArg a;
    if (axes) {
      a = std::vector<int>();
      for (int64_t ax : *axes) a->push_back(norm_axis(ax, x.shape().size()));
    }
    return f(x, a, keep);
  }

  Tensor pool(const Tensor& x, bool is_max) {
    size_t nd = x.shape().size() - 2;
    std::vector<int64_t> kernel = kernel_arg(x, nd);
    std::vector<int64_t> strides = attr_ints("strides").value_or(std::vector<int64_t>(nd, 1));
    std::vector<int64_t> dil = attr_ints("dilations").value_or(std::vector<int64_t>(nd, 1));
    if (attr_int("ceil_mode", 0)) bad("ceil_mode=1 is not imported");
    if (node_->output_size() > 1 && !node_->output(1).empty()) bad("the Indices output is not imported");
    std::vector<int64_t> pads = spatial_padding(x.shape(), kernel, strides, dil);
    bool padded = std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; });
    IntOrTuple k(kernel), s(strides), d(dil);
    if (is_max) {
      Tensor xp = padded ? x.pad(padding_of(pads, x.shape().size()), -INFINITY) : x;
      return xp.max_pool2d(k, s, d);
    }
    Tensor xp = padded ? x.pad(padding_of(pads, x.shape().size())) : x;
    Tensor y = xp.avg_pool2d(k, s, d);
    if (padded && !attr_int("count_include_pad", 0)) // divide by the cells that are not padding
      y = y.div(x.ones_like().pad(padding_of(pads, x.shape().size())).avg_pool2d(k, s, d));
    return y;
  }

  std::vector<Tensor> apply(const onnx::NodeProto& n) {
    const std::string& op = n.op_type();
    if (!n.domain().empty() && n.domain() != "ai.onnx") bad("domain '" + n.domain() + "' is not imported");
    auto unary = [&](Tensor (Tensor::*f)() const) { return std::vector<Tensor>{(in(0).*f)()}; };
    auto variadic = [&](const std::function<Tensor(const Tensor&, const Tensor&)>& f) {
      Tensor acc = in(0);
      for (int i = 1; i < n.input_size(); ++i) acc = f(acc, in(i));
      return std::vector<Tensor>{acc};
    };
    auto sum = [](const Tensor& a, const Tensor& b) { return a.add(b); };
    if (op == "Identity" || op == "Dropout") return {in(0)};
    if (op == "Neg") return unary(&Tensor::neg);
    if (op == "Abs") return unary(&Tensor::abs);
    if (op == "Sqrt") return unary(&Tensor::sqrt);
    if (op == "Exp") return unary(&Tensor::exp);
    if (op == "Log") return unary(&Tensor::log);
    if (op == "Relu") return unary(&Tensor::relu);
    if (op == "Sigmoid") return unary(&Tensor::sigmoid);
    if (op == "Tanh") return unary(&Tensor::tanh);
    if (op == "Reciprocal") return unary(&Tensor::reciprocal);
    if (op == "Floor") return unary(&Tensor::floor);
    if (op == "Ceil") return unary(&Tensor::ceil);
    if (op == "Sin") return unary(&Tensor::sin);
    if (op == "Cos") return unary(&Tensor::cos);
    if (op == "Tan") return unary(&Tensor::tan);
    if (op == "Sign") return unary(&Tensor::sign);
    if (op == "Softsign") return unary(&Tensor::softsign);
    if (op == "Not") return unary(&Tensor::logical_not);
    if (op == "Softplus") return {in(0).softplus()};
    if (op == "Elu") return {in(0).elu(attr_float("alpha", 1.0))};
    if (op == "LeakyRelu") return {in(0).leakyrelu(attr_float("alpha", 0.01))};
    if (op == "HardSigmoid")
      return {in(0).mul(attr_float("alpha", 0.2)).add(attr_float("beta", 0.5)).clip(0.0, 1.0)};
    if (op == "PRelu") return {in(0).lt(0.0).where(in(0).mul(in(1)), in(0))};
    if (op == "Add") return {in(0).add(in(1))};
    if (op == "Sub") return {in(0).sub(in(1))};
    if (op == "Mul") return {in(0).mul(in(1))};
    if (op == "Div") return {in(0).div(in(1))};
    if (op == "Pow") return {in(0).pow(in(1))};
    if (op == "Equal") return {in(0).eq(in(1))};
    if (op == "Less") return {in(0).lt(in(1))};
    if (op == "Greater") return {in(0).gt(in(1))};
    if (op == "LessOrEqual") return {in(0).le(in(1))};
    if (op == "GreaterOrEqual") return {in(0).ge(in(1))};
    if (op == "Where") return {in(0).where(in(1), in(2))};
    if (op == "Max") return variadic([](const Tensor& a, const Tensor& b) { return a.maximum(b); });
    if (op == "Min") return variadic([](const Tensor& a, const Tensor& b) { return a.minimum(b); });
    if (op == "Sum") return variadic(sum);
    if (op == "Mean") return {variadic(sum)[0].div(double(n.input_size()))};
    if (op == "MatMul") return {in(0).matmul(in(1))};
    if (op == "Gemm") {
      Tensor a = attr_int("transA", 0) ? in(0).transpose() : in(0);
      Tensor b = attr_int("transB", 0) ? in(1).transpose() : in(1);
      Tensor y = a.matmul(b).mul(attr_float("alpha", 1.0));
      if (has_input(2)) y = y.add(in(2).mul(attr_float("beta", 1.0)));
      return {y};
    }
    if (op == "Conv") {
      Tensor x = in(0), w = in(1);
      size_t nd = x.shape().size() - 2;
      std::vector<int64_t> kernel = kernel_arg(w, nd);
      std::vector<int64_t> strides = attr_ints("strides").value_or(std::vector<int64_t>(nd, 1));
      std::vector<int64_t> dil = attr_ints("dilations").value_or(std::vector<int64_t>(nd, 1));
      std::vector<int64_t> pads = spatial_padding(x.shape(), kernel, strides, dil);
      std::optional<Tensor> bias;
      if (has_input(2)) bias = in(2);
      return {
          x.conv2d(w, bias, attr_int("group", 1), IntOrTuple(strides), IntOrTuple(dil), IntOrTuple(pads))};
    }
    if (op == "MaxPool") return {pool(in(0), true)};
    if (op == "AveragePool") return {pool(in(0), false)};
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
      std::vector<int> axes;
      for (size_t d = 2; d < in(0).shape().size(); ++d) axes.push_back(int(d));
      return {op == "GlobalAveragePool" ? in(0).mean(axes, true) : in(0).max(axes, true)};
    }
    if (op == "BatchNormalization") {
      if (attr_int("training_mode", 0)) bad("training_mode=1 is not imported");
      Tensor x = in(0);
      Shape s(x.shape().size(), 1);
      s[1] = x.shape()[1];
      Tensor invstd = in(4).add(attr_float("epsilon", 1e-5)).rsqrt().reshape(s);
      return {x.sub(in(3).reshape(s)).mul(in(1).reshape(s).mul(invstd)).add(in(2).reshape(s))};
    }
    if (op == "LayerNormalization") {
      Tensor x = in(0);
      int axis = norm_axis(attr_int("axis", -1), x.shape().size());
      std::vector<int> axes;
      for (size_t d = size_t(axis); d < x.shape().size(); ++d) axes.push_back(int(d));
      Tensor y = x.layernorm(axes, attr_float("epsilon", 1e-5)).mul(in(1));
      if (has_input(2)) y = y.add(in(2));
      return {y};
    }
    if (op == "Flatten") {
      const Shape& s = in(0).shape();
      int axis = norm_axis(attr_int("axis", 1), s.size());
      int64_t outer = prod(Shape(s.begin(), s.begin() + axis));
      return {in(0).reshape({outer, prod(Shape(s.begin() + axis, s.end()))})};
    }
    if (op == "Reshape") {
      std::vector<int64_t> shape = known(1).ints();
      const Shape& s = in(0).shape();
      if (!attr_int("allowzero", 0))
        for (size_t i = 0; i < shape.size(); ++i)
          if (shape[i] == 0 && i < s.size()) shape[i] = s[i];
      return {in(0).reshape(shape)};
    }
    if (op == "Transpose") {
      size_t rank = in(0).shape().size();
      std::vector<int> perm;
      if (auto p = attr_ints("perm"))
        for (int64_t a : *p) perm.push_back(int(a));
      else
        for (size_t d = rank; d-- > 0;) perm.push_back(int(d));
      return {in(0).permute(perm)};
    }
    if (op == "Concat") {
      std::vector<Tensor> rest;
      for (int i = 1; i < n.input_size(); ++i) rest.push_back(in(i));
      return {in(0).cat(rest, norm_axis(attr_int("axis", 0), in(0).shape().size()))};
    }
    if (op == "Softmax" || op == "LogSoftmax") {
      Tensor x = in(0);
      bool log = op == "LogSoftmax";
      if (opset_ >= 13) {
        int axis = norm_axis(attr_int("axis", -1), x.shape().size());
        return {log ? x.log_softmax(axis) : x.softmax(axis)};
      }
      // before opset 13: the input as a 2-D matrix at `axis`, normalized over its second dim
      const Shape& s = x.shape();
      int axis = norm_axis(attr_int("axis", 1), s.size());
      Tensor flat =
          x.reshape({prod(Shape(s.begin(), s.begin() + axis)), prod(Shape(s.begin() + axis, s.end()))});
      return {(log ? flat.log_softmax(-1) : flat.softmax(-1)).reshape(s)};
    }
    if (op == "ReduceSum")
      return {reduce(
          in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.sum(a, k); }, 1)};
    if (op == "ReduceMean")
      return {reduce(
          in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.mean(a, k); }, 1)};
    if (op == "ReduceMax")
      return {reduce(
          in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.max(a, k); }, 1)};
    if (op == "ReduceMin")
      return {reduce(
          in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.min(a, k); }, 1)};
    if (op == "ReduceSumSquare")
      return {reduce(
          in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.square().sum(a, k); }, 1)};
    if (op == "ReduceL2")
      return {reduce(
          in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.square().sum(a, k).sqrt(); }, 1)};
    if (op == "ArgMax" || op == "ArgMin") {
      int axis = norm_axis(attr_int("axis", 0), in(0).shape().size());
      bool keep = attr_int("keepdims", 1) != 0, last = attr_int("select_last_index", 0) != 0;
      Tensor x = last ? in(0).flip({axis}) : in(0); // the last of ties is the first when flipped
      Tensor r = (op == "ArgMax" ? x.argmax(axis, keep) : x.argmin(axis, keep)).cast(DType::Int64);
      return {last ? r.sub(in(0).shape()[size_t(axis)] - 1, true) : r};
    }
    if (op == "Unsqueeze") {
      std::vector<int64_t> axes = axes_arg(1).value_or(std::vector<int64_t>{});
      size_t rank = in(0).shape().size() + axes.size();
      for (int64_t& a : axes) a = norm_axis(a, rank);
      std::sort(axes.begin(), axes.end());
      Tensor x = in(0);
      for (int64_t a : axes) x = x.unsqueeze(int(a));
      return {x};
    }
    if (op == "Squeeze") {
      const Shape& s = in(0).shape();
      std::optional<std::vector<int64_t>> axes = axes_arg(1);
      Shape out;
      for (size_t d = 0; d < s.size(); ++d) {
        bool drop = axes ? std::any_of(axes->begin(), axes->end(),
                                       [&](int64_t a) { return size_t(norm_axis(a, s.size())) == d; })
                         : s[d] == 1;
        if (!drop) out.push_back(s[d]);
      }
      return {in(0).reshape(out)};
    }
    if (op == "Cast") {
      std::optional<DType> dt = dtype_of_onnx(int(attr_int("to", 0)));
      if (!dt) bad("cast to ONNX type " + std::to_string(attr_int("to", 0)) + " is not imported");
      return {in(0).cast(*dt)};
    }
    if (op == "Clip") {
      Tensor x = in(0);
      if (opset_ < 11) return {x.clip(attr_float("min", -INFINITY), attr_float("max", INFINITY))};
      if (has_input(1)) x = x.maximum(in(1));
      if (has_input(2)) x = x.minimum(in(2));
      return {x};
    }
    if (op == "Constant") {
      Known k;
      if (const auto* a = attr("value"))
        k = known_of(a->t(), file_);
      else if (const auto* f = attr("value_float")) {
        float v = f->f();
        k = Known{DType::Float32, {}, std::vector<uint8_t>(4)};
        std::memcpy(k.data.data(), &v, 4);
      } else if (const auto* fs = attr("value_floats")) {
        k = Known{DType::Float32, {fs->floats_size()}, std::vector<uint8_t>(size_t(fs->floats_size()) * 4)};
        std::memcpy(k.data.data(), fs->floats().data(), k.data.size());
      } else if (const auto* i = attr("value_int"))
        k = known_ints({i->i()}), k.shape = {};
      else if (const auto* is = attr("value_ints"))
        k = known_ints(std::vector<int64_t>(is->ints().begin(), is->ints().end()));
      else
        bad("a Constant without a value, value_float(s) or value_int(s)");
      known_[n.output(0)] = k;
      return {tensor_of(k)};
    }
    if (op == "Shape") {
      const Shape& s = in(0).shape();
      int64_t rank = int64_t(s.size());
      int64_t start = attr_int("start", 0), end = attr_int("end", rank);
      if (start < 0) start += rank;
      if (end < 0) end += rank;
      start = std::clamp<int64_t>(start, 0, rank), end = std::clamp<int64_t>(end, start, rank);
      Known k = known_ints(std::vector<int64_t>(s.begin() + start, s.begin() + end));
      known_[n.output(0)] = k;
      return {tensor_of(k)};
    }
    if (op == "Gather") {
      Tensor x = in(0);
      int axis = norm_axis(attr_int("axis", 0), x.shape().size());
      Tensor idx = in(1);
      idx = idx.lt(0).where(idx.add(x.shape()[size_t(axis)]), idx); // negative indices count from the end
      std::vector<Index> index(size_t(axis), Index::slice(std::nullopt, std::nullopt, std::nullopt));
      index.push_back(Index::of_tensor(idx));
      return {x.getitem(index)};
    }
    if (op == "Slice") {
      Tensor x = in(0);
      const Shape& s = x.shape();
      std::vector<int64_t> starts, ends, axes, steps;
      if (opset_ < 10) {
        starts = attr_ints("starts").value_or(std::vector<int64_t>{});
        ends = attr_ints("ends").value_or(std::vector<int64_t>{});
        axes = attr_ints("axes").value_or(std::vector<int64_t>{});
      } else {
        starts = known(1).ints(), ends = known(2).ints();
        if (has_input(3)) axes = known(3).ints();
        if (has_input(4)) steps = known(4).ints();
      }
      if (axes.empty())
        for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
      if (steps.empty()) steps.assign(starts.size(), 1);
      std::vector<Index> index(s.size(), Index::slice(std::nullopt, std::nullopt, std::nullopt));
      for (size_t i = 0; i < axes.size() && i < starts.size() && i < ends.size(); ++i) {
        // clamp as the ONNX spec does before Python's slice sees huge sentinels
        int64_t dim = s[size_t(norm_axis(axes[i], s.size()))];
        auto clampi = [&](int64_t v) { return std::clamp<int64_t>(v, -dim - 1, dim + 1); };
        index[size_t(norm_axis(axes[i], s.size()))] =
            Index::slice(clampi(starts[i]), clampi(ends[i]), steps[i]);
      }
      return {x.getitem(index)};
    }
    if (op == "Expand") {
      Tensor x = in(0);
      std::vector<int64_t> shape = known(1).ints();
      Shape xs = x.shape();
      while (xs.size() < shape.size()) xs.insert(xs.begin(), 1);
      while (shape.size() < xs.size()) shape.insert(shape.begin(), 1);
      return {x.reshape(xs).expand(broadcast_shape({xs, Shape(shape.begin(), shape.end())}))};
    }
    if (op == "Tile") {
      std::vector<int64_t> r = known(1).ints();
      return {in(0).repeat(Shape(r.begin(), r.end()))};
    }
    if (op == "Pad") {
      std::string mode = attr_string("mode", "constant");
      if (mode != "constant") bad("mode '" + mode + "' is not imported");
      std::vector<int64_t> pads =
          opset_ < 11 ? attr_ints("pads").value_or(std::vector<int64_t>{}) : known(1).ints();
      double value = opset_ < 11 ? attr_float("value", 0.0) : has_input(2) ? known(2).floats().at(0) : 0.0;
      size_t rank = in(0).shape().size();
      if (pads.size() != 2 * rank) bad("pads needs " + std::to_string(2 * rank) + " values");
      Padding p;
      for (size_t d = 0; d < rank; ++d) {
        if (pads[d] < 0 || pads[rank + d] < 0) bad("negative pads are not imported");
        p.push_back(std::pair(pads[d], pads[rank + d]));
      }
      return {in(0).pad(p, value)};
    }
    if (op == "And") return {in(0).where(in(1), false)};
    if (op == "Or") return {in(0).where(true, in(1))};
    if (op == "Xor") return {in(0).ne(in(1))};
    if (op == "IsNaN") return {in(0).ne(in(0))};
    if (op == "IsInf") {
      Tensor x = in(0), pos = x.eq(INFINITY), neg = x.eq(-INFINITY);
      bool p = attr_int("detect_positive", 1), m = attr_int("detect_negative", 1);
      if (!p && !m) return {x.full_like(Scalar::of_bool(false), DType::Bool)}; // detects nothing
      return {p && m ? pos.where(true, neg) : p ? pos : neg};
    }
    if (op == "Sinh") return unary(&Tensor::sinh);
    if (op == "Cosh") return unary(&Tensor::cosh);
    if (op == "Asinh") return unary(&Tensor::asinh);
    if (op == "Acosh") return unary(&Tensor::acosh);
    if (op == "Atanh") return unary(&Tensor::atanh);
    if (op == "Mish") return unary(&Tensor::mish);
    if (op == "Celu") return {in(0).celu(attr_float("alpha", 1.0))};
    if (op == "ThresholdedRelu") return {in(0).gt(attr_float("alpha", 1.0)).where(in(0), 0.0)};
    if (op == "Selu") {
      double alpha = attr_float("alpha", 1.67326319217681884765625),
             gamma = attr_float("gamma", 1.05070102214813232421875);
      Tensor x = in(0);
      return {x.gt(0.0).where(x, x.exp().sub(1.0).mul(alpha)).mul(gamma)};
    }
    if (op == "Shrink") {
      Tensor x = in(0);
      double bias = attr_float("bias", 0.0), lambd = attr_float("lambd", 0.5);
      return {x.lt(-lambd).where(x.add(bias), x.gt(lambd).where(x.sub(bias), 0.0))};
    }
    if (op == "CastLike") return {in(0).cast(in(1).dtype())};
    if (op == "Size") {
      Known k = known_ints({prod(in(0).shape())});
      k.shape = {};
      known_[n.output(0)] = k;
      return {tensor_of(k)};
    }
    if (op == "Range") {
      Scalar start = load_element(known(0).data.data(), known(0).dtype);
      Scalar limit = load_element(known(1).data.data(), known(1).dtype);
      Scalar delta = load_element(known(2).data.data(), known(2).dtype);
      return {Tensor::arange(start, limit, delta, known(0).dtype)};
    }
    if (op == "ReduceL1")
      return {reduce(
          in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.abs().sum(a, k); }, 1)};
    if (op == "ReduceLogSum")
      return {reduce(
          in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.sum(a, k).log(); }, 1)};
    if (op == "ReduceLogSumExp")
      return {reduce(
          in(0), [](const Tensor& x, const AxisArg& a, bool k) { return x.exp().sum(a, k).log(); }, 1)};
    if (op == "Trilu") {
      int64_t k = has_input(1) ? known(1).ints().at(0) : 0;
      return {attr_int("upper", 1) ? in(0).triu(k) : in(0).tril(k)};
    }
    if (op == "GatherElements") {
      Tensor x = in(0), idx = in(1);
      int axis = norm_axis(attr_int("axis", 0), x.shape().size());
      idx = idx.lt(0).where(idx.add(x.shape()[size_t(axis)]), idx);
      return {x.gather(axis, idx)};
    }
    if (op == "Hardmax") {
      Tensor x = in(0);
      int axis = norm_axis(attr_int("axis", -1), x.shape().size());
      Shape s(x.shape().size(), 1);
      s[size_t(axis)] = x.shape()[size_t(axis)];
      Tensor positions = Tensor::arange(Scalar::of_int(0), Scalar::of_int(s[size_t(axis)])).reshape(s);
      return {x.argmax(axis, true).eq(positions).cast(x.dtype())};
    }
    if (op == "DepthToSpace" || op == "SpaceToDepth") {
      Tensor x = in(0);
      const Shape& s = x.shape();
      int64_t bs = attr_int("blocksize", 1), b = s[0], c = s[1], h = s[2], w = s[3];
      if (op == "SpaceToDepth")
        return {x.reshape({b, c, h / bs, bs, w / bs, bs})
                    .permute({0, 3, 5, 1, 2, 4})
                    .reshape({b, c * bs * bs, h / bs, w / bs})};
      if (attr_string("mode", "DCR") == "DCR")
        return {x.reshape({b, bs, bs, c / (bs * bs), h, w})
                    .permute({0, 3, 4, 1, 5, 2})
                    .reshape({b, c / (bs * bs), h * bs, w * bs})};
      return {x.reshape({b, c / (bs * bs), bs, bs, h, w})
                  .permute({0, 1, 4, 2, 5, 3})
                  .reshape({b, c / (bs * bs), h * bs, w * bs})};
    }
    if (op == "InstanceNormalization") {
      Tensor x = in(0);
      std::vector<int> axes;
      for (size_t d = 2; d < x.shape().size(); ++d) axes.push_back(int(d));
      Shape s(x.shape().size(), 1);
      s[1] = x.shape()[1];
      Tensor mean = x.mean(axes, true), var = x.sub(mean).square().mean(axes, true);
      Tensor y = x.sub(mean).mul(var.add(attr_float("epsilon", 1e-5)).rsqrt());
      return {y.mul(in(1).reshape(s)).add(in(2).reshape(s))};
    }
    if (op == "MeanVarianceNormalization") {
      Tensor x = in(0);
      std::vector<int> axes;
      for (int64_t a : attr_ints("axes").value_or(std::vector<int64_t>{0, 2, 3}))
        axes.push_back(norm_axis(a, x.shape().size()));
      Tensor mean = x.mean(axes, true);
      return {x.sub(mean).div(x.sub(mean).square().mean(axes, true).sqrt().add(1e-9))};
    }
    if (op == "LpNormalization") {
      Tensor x = in(0);
      int axis = norm_axis(attr_int("axis", -1), x.shape().size());
      int64_t p = attr_int("p", 2);
      Tensor norm = p == 1 ? x.abs().sum(std::vector<int>{axis}, true)
                           : x.square().sum(std::vector<int>{axis}, true).sqrt();
      return {x.div(norm)};
    }
    if (op == "ConvTranspose") {
      Tensor x = in(0), w = in(1);
      size_t nd = x.shape().size() - 2;
      if (attr("output_shape") || attr_string("auto_pad", "NOTSET") != "NOTSET")
        bad("output_shape and auto_pad are not imported");
      std::vector<int64_t> kernel = kernel_arg(w, nd);
      std::vector<int64_t> strides = attr_ints("strides").value_or(std::vector<int64_t>(nd, 1));
      std::vector<int64_t> dil = attr_ints("dilations").value_or(std::vector<int64_t>(nd, 1));
      std::vector<int64_t> pads = spatial_padding(x.shape(), kernel, strides, dil);
      std::vector<int64_t> out_pad = attr_ints("output_padding").value_or(std::vector<int64_t>(nd, 0));
      std::optional<Tensor> bias;
      if (has_input(2)) bias = in(2);
      return {x.conv_transpose2d(w, bias, attr_int("group", 1), IntOrTuple(strides), IntOrTuple(dil),
                                 IntOrTuple(pads), IntOrTuple(out_pad))};
    }
    if (op == "Round") return unary(&Tensor::round);
    if (op == "ConstantOfShape") {
      std::vector<int64_t> shape = known(0).ints();
      Known value{DType::Float32, {}, std::vector<uint8_t>(4, 0)};
      if (const auto* a = attr("value")) value = known_of(a->t(), file_);
      Scalar v = load_element(value.data.data(), value.dtype);
      return {Tensor::full(Shape(shape.begin(), shape.end()), v, value.dtype)};
    }
    if (op == "Split") {
      Tensor x = in(0);
      int axis = norm_axis(attr_int("axis", 0), x.shape().size());
      int64_t dim = x.shape()[size_t(axis)], parts = n.output_size();
      std::vector<int64_t> sizes = attr_ints("split").value_or(std::vector<int64_t>{});
      if (sizes.empty() && has_input(1)) sizes = known(1).ints();
      if (sizes.empty()) // equal parts, the last one smaller when they do not divide
        for (int64_t i = 0, each = (dim + parts - 1) / parts; i < parts; ++i)
          sizes.push_back(std::min(each, dim - i * each));
      std::vector<Tensor> outs;
      int64_t at = 0;
      for (int64_t size : sizes) {
        Padding p(x.shape().size(), std::nullopt);
        p[size_t(axis)] = std::pair(at, at + size);
        outs.push_back(x.shrink(p));
        at += size;
      }
      return outs;
    }
    if (op == "CumSum") {
      Tensor x = in(0);
      int axis = norm_axis(known(1).ints().at(0), x.shape().size());
      bool reverse = attr_int("reverse", 0) != 0;
      Tensor y = reverse ? x.flip({axis}).cumsum(axis).flip({axis}) : x.cumsum(axis);
      return {attr_int("exclusive", 0) ? y.sub(x) : y};
    }
    if (op == "Einsum") {
      std::vector<Tensor> xs;
      for (int i = 0; i < n.input_size(); ++i) xs.push_back(in(i));
      return {Tensor::einsum(attr_string("equation", ""), xs)};
    }
    if (op == "OneHot") {
      Tensor idx = in(0);
      int64_t depth = known(1).ints().at(0);
      Tensor values = in(2);
      int axis = norm_axis(attr_int("axis", -1), idx.shape().size() + 1);
      idx = idx.lt(0).where(idx.add(depth), idx).unsqueeze(axis);
      Shape s(idx.shape().size(), 1);
      s[size_t(axis)] = depth;
      Tensor positions = Tensor::arange(Scalar::of_int(0), Scalar::of_int(depth)).reshape(s);
      Tensor off = values.shrink({std::pair<int64_t, int64_t>(0, 1)}).reshape({});
      Tensor on = values.shrink({std::pair<int64_t, int64_t>(1, 2)}).reshape({});
      return {idx.eq(positions).where(on, off)};
    }
    if (op == "Mod") { // fmod=0: the sign of the divisor (Python's %); fmod=1: of the dividend (C's fmod)
      DType dt = in(0).dtype();
      bool ints = !is_float(dt);
      Tensor a = ints ? in(0).cast(DType::Float64) : in(0), b = ints ? in(1).cast(DType::Float64) : in(1);
      Tensor q = a.div(b);
      q = attr_int("fmod", 0) ? q.trunc() : q.floor();
      Tensor r = a.sub(q.mul(b));
      return {ints ? r.cast(dt) : r};
    }
    if (op == "NegativeLogLikelihoodLoss") return {nll(in(0), in(1))};
    if (op == "SoftmaxCrossEntropyLoss") {
      Tensor log_prob = in(0).log_softmax(1);
      return {nll(log_prob, in(1)), log_prob};
    }
    bad("op '" + op + "' is not imported by tg");
  }

  // NegativeLogLikelihoodLoss over log-probabilities (N, C, d1..dk) and targets (N, d1..dk),
  // with the node's weight input, ignore_index and reduction.
  Tensor nll(const Tensor& log_prob, const Tensor& target) {
    std::string reduction = attr_string("reduction", "mean");
    const onnx::AttributeProto* ii = attr("ignore_index");
    Tensor valid = ii ? target.ne(Operand(ii->i())) : target.full_like(Scalar::of_bool(true), DType::Bool);
    Tensor safe = valid.where(target, Operand(int64_t(0))); // an ignored target may be out of range
    Tensor picked = log_prob.gather(1, safe.unsqueeze(1)).squeeze(1);
    Tensor w = has_input(2) ? in(2).gather(0, safe.flatten()).reshape(safe.shape()) : picked.ones_like();
    w = valid.where(w, 0.0);
    Tensor loss = picked.mul(w).neg();
    if (reduction == "none") return loss;
    if (reduction == "sum") return loss.sum();
    if (reduction == "mean") return loss.sum().div(w.sum());
    bad("reduction '" + reduction + "' is not one of none, sum, mean");
  }

  const onnx::ModelProto& model_;
  std::string file_;
  const std::map<std::string, HostBuffer>& frozen_;
  int opset_ = 1;
  const onnx::NodeProto* node_ = nullptr;
  std::map<std::string, Tensor> values_;
  std::map<std::string, Known> known_;
};

} // namespace

bool looks_like_onnx(std::string_view bytes) {
  onnx::ModelProto m;
  return !bytes.empty() && m.ParseFromArray(bytes.data(), int(std::min<size_t>(bytes.size(), INT32_MAX))) &&
         m.has_graph() && m.ir_version() > 0;
}

Graph trace_onnx(const std::string& bytes, const std::string& filename,
                 const std::map<std::string, HostBuffer>& frozen) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) fail("ValueError", filename + ": not a valid ONNX model");
  return Importer(model, filename, frozen).run();
}

} // namespace tg
