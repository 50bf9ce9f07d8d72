// ONNX's movement, indexing and constant-making ops as Tensor ops (ONNX operator docs, tinygrad's
// extra/onnx_ops.py where it chose a lowering).
#include <algorithm>
#include <cstring>

#include "dtype/dtype_bytes.h"
#include "onnx/node.h"
#include "util/error.h"

namespace tg {

namespace {

using Outs = std::vector<Tensor>;

Index all() { return Index::slice(std::nullopt, std::nullopt, std::nullopt); }

// x indexed along `axis` by an int tensor (negative entries count from the end).
Tensor take(const Tensor& x, int axis, Tensor idx) {
  idx = idx.lt(0).where(idx.add(int64_t(x.shape()[size_t(axis)])), idx);
  std::vector<Index> index(size_t(axis), all());
  index.push_back(Index::of_tensor(idx));
  return x.getitem(index);
}

Padding only(size_t rank, size_t axis, int64_t lo, int64_t hi) {
  Padding p(rank, std::nullopt);
  p[axis] = std::pair(lo, hi);
  return p;
}

// Pad with mode edge, reflect or wrap along each axis in turn (tinygrad's Pad).
Tensor pad_mode(Tensor x, const std::vector<std::pair<int64_t, int64_t>>& pads, const std::string& mode,
                const Node& n) {
  size_t rank = x.shape().size();
  for (size_t d = 0; d < rank; ++d) {
    auto [lo, hi] = pads[d];
    if (lo == 0 && hi == 0) continue;
    int64_t s = x.shape()[d];
    std::vector<Tensor> parts;
    if (mode == "edge") {
      Shape left = x.shape(), right = x.shape();
      left[d] = lo, right[d] = hi;
      if (lo) parts.push_back(x.shrink(only(rank, d, 0, 1)).expand(left));
      parts.push_back(x);
      if (hi) parts.push_back(x.shrink(only(rank, d, s - 1, s)).expand(right));
    } else if (mode == "reflect") {
      if (lo >= s || hi >= s) n.bad("reflect pads must be smaller than the axis they pad");
      Tensor f = x.flip({int(d)});
      if (lo) parts.push_back(f.shrink(only(rank, d, s - lo - 1, s - 1)));
      parts.push_back(x);
      if (hi) parts.push_back(f.shrink(only(rank, d, 1, hi + 1)));
    } else { // wrap: whole copies around x, then the window
      int64_t before = (lo + s - 1) / s, after = (hi + s - 1) / s;
      Shape reps(rank, 1);
      reps[d] = before + 1 + after;
      x = x.repeat(reps).shrink(only(rank, d, before * s - lo, before * s + s + hi));
      continue;
    }
    x = parts[0].cat(std::vector<Tensor>(parts.begin() + 1, parts.end()), int(d));
  }
  return x;
}

} // namespace

void add_shape_ops(OpTable& t) {
  t["Constant"] = [](const Node& n) -> Outs {
    Known k;
    if (auto v = n.attr_tensor("value"))
      k = *v;
    else if (n.attr("value_float"))
      k = known_values(DType::Float32, {}, {Scalar::of_float(n.attr_float("value_float", 0))});
    else if (auto fs = n.attr_floats("value_floats")) {
      std::vector<Scalar> v;
      for (double x : *fs) v.push_back(Scalar::of_float(x));
      k = known_values(DType::Float32, {int64_t(v.size())}, v);
    } else if (n.attr("value_int"))
      k = known_ints({n.attr_int("value_int", 0)}), k.shape = {};
    else if (auto is = n.attr_ints("value_ints"))
      k = known_ints(*is);
    else
      n.bad("a Constant without a value, value_float(s) or value_int(s)");
    n.set_known(0, k);
    return {tensor_of(k)};
  };
  t["Shape"] = [](const Node& n) -> Outs {
    const Shape& s = n.in(0).shape();
    int64_t rank = int64_t(s.size());
    int64_t start = n.attr_int("start", 0), end = n.attr_int("end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank), end = std::clamp<int64_t>(end, start, rank);
    for (int64_t d = start; d < end; ++d)
      if (!s[size_t(d)].is_int())
        fail("NotImplementedError", "tg computes a Shape while tracing, and dimension " + std::to_string(d) +
                                        " is the variable " + s[size_t(d)].str() +
                                        ": give it a fixed size (tg-trace --dim NAME=N)");
    Known k = known_ints(std::vector<int64_t>(s.begin() + start, s.begin() + end));
    n.set_known(0, k);
    return {tensor_of(k)};
  };
  t["Size"] = [](const Node& n) -> Outs {
    Known k = known_ints({prod(n.in(0).shape())});
    k.shape = {};
    n.set_known(0, k);
    return {tensor_of(k)};
  };
  t["ConstantOfShape"] = [](const Node& n) -> Outs {
    std::vector<int64_t> shape = n.known(0).ints();
    Known value = n.attr_tensor("value").value_or(known_values(DType::Float32, {}, {Scalar::of_float(0)}));
    Scalar v = value.at(0);
    Shape s(shape.begin(), shape.end());
    int64_t count = prod(s);
    if (count <= 4096) n.set_known(0, known_values(value.dtype, s, std::vector<Scalar>(size_t(count), v)));
    return {Tensor::full(s, v, value.dtype)};
  };
  t["Range"] = [](const Node& n) -> Outs {
    return {Tensor::arange(n.known(0).at(0), n.known(1).at(0), n.known(2).at(0), n.known(0).dtype)};
  };
  t["EyeLike"] = [](const Node& n) -> Outs { // ones where column - row == k
    Tensor x = n.in(0);
    if (x.shape().size() != 2) n.bad("the input must be 2-D");
    DType dt = x.dtype();
    if (n.attr("dtype")) {
      std::optional<DType> d = dtype_of_onnx(int(n.attr_int("dtype", 0)));
      if (!d) n.bad("dtype " + std::to_string(n.attr_int("dtype", 0)) + " is not imported");
      dt = *d;
    }
    int64_t r = x.shape()[0], c = x.shape()[1], k = n.attr_int("k", 0);
    Tensor rows = Tensor::arange(Scalar::of_int(0), Scalar::of_int(r)).reshape({r, 1}).add(k);
    Tensor cols = Tensor::arange(Scalar::of_int(0), Scalar::of_int(c)).reshape({1, c});
    return {rows.eq(cols).cast(dt)};
  };

  t["Flatten"] = [](const Node& n) -> Outs {
    const Shape& s = n.in(0).shape();
    // axis in [-r, r]: r flattens everything into the first dim (the spec; ONNX Runtime runs it)
    int64_t r = int64_t(s.size()), given = n.attr_int("axis", 1);
    if (given < -r || given > r)
      fail("ValueError", "axis " + std::to_string(given) + " is out of range for rank " + std::to_string(r));
    int axis = int(given < 0 ? given + r : given);
    sint outer = sym_prod(Shape(s.begin(), s.begin() + axis)); // symbolic with tg-trace --dim
    return {n.in(0).reshape({outer, sym_prod(Shape(s.begin() + axis, s.end()))})};
  };
  t["Reshape"] = [](const Node& n) -> Outs {
    std::vector<int64_t> shape = n.known(1).ints();
    const Shape& s = n.in(0).shape();
    if (!n.attr_int("allowzero", 0))
      for (size_t i = 0; i < shape.size(); ++i)
        if (shape[i] == 0 && i < s.size()) shape[i] = s[i];
    return {n.in(0).reshape(shape_from_ints(shape))};
  };
  t["Transpose"] = [](const Node& n) -> Outs {
    size_t rank = n.in(0).shape().size();
    std::vector<int> perm;
    if (auto p = n.attr_ints("perm"))
      for (int64_t a : *p) perm.push_back(int(a));
    else
      for (size_t d = rank; d-- > 0;) perm.push_back(int(d));
    return {n.in(0).permute(perm)};
  };
  t["Concat"] = [](const Node& n) -> Outs {
    return {n.in(0).cat(n.inputs_from(1), Node::norm_axis(n.attr_int("axis", 0), n.in(0).shape().size()))};
  };
  t["Unsqueeze"] = [](const Node& n) -> Outs {
    std::vector<int64_t> axes = n.axes_arg(1).value_or(std::vector<int64_t>{});
    size_t rank = n.in(0).shape().size() + axes.size();
    for (int64_t& a : axes) a = Node::norm_axis(a, rank);
    std::sort(axes.begin(), axes.end());
    Tensor x = n.in(0);
    for (int64_t a : axes) x = x.unsqueeze(int(a));
    return {x};
  };
  t["Squeeze"] = [](const Node& n) -> Outs {
    const Shape& s = n.in(0).shape();
    std::optional<std::vector<int64_t>> axes = n.axes_arg(1);
    Shape out;
    for (size_t d = 0; d < s.size(); ++d) {
      bool drop = axes ? std::any_of(axes->begin(), axes->end(),
                                     [&](int64_t a) { return size_t(Node::norm_axis(a, s.size())) == d; })
                       : s[d] == 1;
      if (!drop) out.push_back(s[d]);
    }
    return {n.in(0).reshape(out)};
  };
  t["Gather"] = [](const Node& n) -> Outs {
    return {take(n.in(0), Node::norm_axis(n.attr_int("axis", 0), n.in(0).shape().size()), n.in(1))};
  };
  t["GatherElements"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0), idx = n.in(1);
    int axis = Node::norm_axis(n.attr_int("axis", 0), x.shape().size());
    idx = idx.lt(0).where(idx.add(int64_t(x.shape()[size_t(axis)])), idx);
    return {x.gather(axis, idx)};
  };
  t["Compress"] = [](const Node& n) -> Outs { // the positions where the (known) condition holds
    Tensor x = n.in(0);
    int axis = 0;
    if (n.attr("axis"))
      axis = Node::norm_axis(n.attr_int("axis", 0), x.shape().size());
    else
      x = x.flatten();
    std::vector<int64_t> cond = n.known(1).ints(), picked;
    for (size_t i = 0; i < cond.size() && int64_t(i) < x.shape()[size_t(axis)]; ++i)
      if (cond[i]) picked.push_back(int64_t(i));
    if (picked.empty()) {
      Shape s = x.shape();
      s[size_t(axis)] = 0;
      return {Tensor::full(s, Scalar::of_int(0), x.dtype())};
    }
    return {take(x, axis, tensor_of(known_ints(picked)))};
  };
  t["Slice"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0);
    const Shape& s = x.shape();
    std::vector<int64_t> starts, ends, axes, steps;
    if (n.opset() < 10) {
      starts = n.attr_ints("starts").value_or(std::vector<int64_t>{});
      ends = n.attr_ints("ends").value_or(std::vector<int64_t>{});
      axes = n.attr_ints("axes").value_or(std::vector<int64_t>{});
    } else {
      starts = n.known(1).ints(), ends = n.known(2).ints();
      if (n.has_input(3)) axes = n.known(3).ints();
      if (n.has_input(4)) steps = n.known(4).ints();
    }
    if (axes.empty())
      for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    std::vector<Index> index(s.size(), all());
    for (size_t i = 0; i < axes.size() && i < starts.size() && i < ends.size(); ++i) {
      // clamp as the ONNX spec does before Python's slice sees huge sentinels
      int64_t dim = s[size_t(Node::norm_axis(axes[i], s.size()))];
      auto clampi = [&](int64_t v) { return std::clamp<int64_t>(v, -dim - 1, dim + 1); };
      index[size_t(Node::norm_axis(axes[i], s.size()))] =
          Index::slice(clampi(starts[i]), clampi(ends[i]), steps[i]);
    }
    return {x.getitem(index)};
  };
  t["Expand"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0);
    std::vector<int64_t> shape = n.known(1).ints();
    Shape xs = x.shape();
    while (xs.size() < shape.size()) xs.insert(xs.begin(), 1);
    while (shape.size() < xs.size()) shape.insert(shape.begin(), 1);
    return {x.reshape(xs).expand(broadcast_shape({xs, Shape(shape.begin(), shape.end())}))};
  };
  t["Tile"] = [](const Node& n) -> Outs {
    std::vector<int64_t> r = n.known(1).ints();
    return {n.in(0).repeat(Shape(r.begin(), r.end()))};
  };
  t["Pad"] = [](const Node& n) -> Outs {
    std::string mode = n.attr_string("mode", "constant");
    Tensor x = n.in(0);
    size_t rank = x.shape().size();
    std::vector<int64_t> pads =
        n.opset() < 11 ? n.attr_ints("pads").value_or(std::vector<int64_t>{}) : n.known(1).ints();
    std::vector<int64_t> axes;
    if (n.has_input(3))
      for (int64_t a : n.known(3).ints()) axes.push_back(Node::norm_axis(a, rank));
    else
      for (size_t d = 0; d < rank; ++d) axes.push_back(int64_t(d));
    if (pads.size() != 2 * axes.size()) n.bad("pads needs " + std::to_string(2 * axes.size()) + " values");
    std::vector<std::pair<int64_t, int64_t>> per_axis(rank, {0, 0});
    for (size_t i = 0; i < axes.size(); ++i) per_axis[size_t(axes[i])] = {pads[i], pads[axes.size() + i]};
    // negative pads crop first
    Padding crop(rank, std::nullopt);
    bool cropped = false;
    for (size_t d = 0; d < rank; ++d) {
      auto& [lo, hi] = per_axis[d];
      if (lo < 0 || hi < 0) {
        crop[d] = std::pair(std::max<int64_t>(-lo, 0), x.shape()[d] - std::max<int64_t>(-hi, 0));
        lo = std::max<int64_t>(lo, 0), hi = std::max<int64_t>(hi, 0), cropped = true;
      }
    }
    if (cropped) x = x.shrink(crop);
    if (mode == "edge" || mode == "reflect" || mode == "wrap") return {pad_mode(x, per_axis, mode, n)};
    if (mode != "constant") n.bad("mode '" + mode + "' is not one of constant, edge, reflect, wrap");
    Scalar value = Scalar::of_float(0.0);
    if (n.opset() < 11)
      value = Scalar::of_float(n.attr_float("value", 0.0));
    else if (n.has_input(2))
      value = n.known(2).at(0);
    Padding p;
    for (auto [lo, hi] : per_axis) p.push_back(std::pair(lo, hi));
    return {x.pad(p, value)};
  };
  t["Trilu"] = [](const Node& n) -> Outs {
    int64_t k = n.has_input(1) ? n.known(1).ints().at(0) : 0;
    return {n.attr_int("upper", 1) ? n.in(0).triu(k) : n.in(0).tril(k)};
  };
  t["DepthToSpace"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0);
    const Shape& s = x.shape();
    int64_t bs = n.attr_int("blocksize", 1), b = s[0], c = s[1], h = s[2], w = s[3];
    if (n.attr_string("mode", "DCR") == "DCR")
      return {x.reshape({b, bs, bs, c / (bs * bs), h, w})
                  .permute({0, 3, 4, 1, 5, 2})
                  .reshape({b, c / (bs * bs), h * bs, w * bs})};
    return {x.reshape({b, c / (bs * bs), bs, bs, h, w})
                .permute({0, 1, 4, 2, 5, 3})
                .reshape({b, c / (bs * bs), h * bs, w * bs})};
  };
  t["SpaceToDepth"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0);
    const Shape& s = x.shape();
    int64_t bs = n.attr_int("blocksize", 1), b = s[0], c = s[1], h = s[2], w = s[3];
    return {x.reshape({b, c, h / bs, bs, w / bs, bs})
                .permute({0, 3, 5, 1, 2, 4})
                .reshape({b, c * bs * bs, h / bs, w / bs})};
  };
  t["Split"] = [](const Node& n) -> Outs {
    Tensor x = n.in(0);
    int axis = Node::norm_axis(n.attr_int("axis", 0), x.shape().size());
    int64_t dim = x.shape()[size_t(axis)], parts = n.output_count();
    std::vector<int64_t> sizes = n.attr_ints("split").value_or(std::vector<int64_t>{});
    if (sizes.empty() && n.has_input(1)) sizes = n.known(1).ints();
    if (sizes.empty()) // equal parts, the last one smaller when they do not divide
      for (int64_t i = 0, each = (dim + parts - 1) / parts; i < parts; ++i)
        sizes.push_back(std::min(each, dim - i * each));
    std::vector<Tensor> outs;
    int64_t at = 0;
    for (int64_t size : sizes) {
      outs.push_back(x.shrink(only(x.shape().size(), size_t(axis), at, at + size)));
      at += size;
    }
    return outs;
  };
  t["OneHot"] = [](const Node& n) -> Outs {
    Tensor idx = n.in(0);
    int64_t depth = n.known(1).ints().at(0);
    Tensor values = n.in(2);
    int axis = Node::norm_axis(n.attr_int("axis", -1), idx.shape().size() + 1);
    idx = idx.lt(0).where(idx.add(depth), idx).unsqueeze(axis);
    Shape s(idx.shape().size(), 1);
    s[size_t(axis)] = depth;
    Tensor positions = Tensor::arange(Scalar::of_int(0), Scalar::of_int(depth)).reshape(s);
    Tensor off = values.shrink({std::pair<int64_t, int64_t>(0, 1)}).reshape({});
    Tensor on = values.shrink({std::pair<int64_t, int64_t>(1, 2)}).reshape({});
    return {idx.eq(positions).where(on, off)};
  };
}

} // namespace tg
