// ONNX's random ops with a seed: RandomUniform(Like), RandomNormal(Like) and Bernoulli draw from
// np.random.RandomState(seed) as ONNX's reference implementation does (MT19937, random/mt19937.h),
// while importing: the draws become constants. Without a seed the reference's numbers cannot be
// reproduced, so a seed is required.
#include <cmath>

#include "onnx/node.h"
#include "random/mt19937.h"

namespace tg {

namespace {

using Outs = std::vector<Tensor>;

Mt19937 seeded(const Node& n) {
  if (!n.attr("seed")) n.bad("a random op needs the seed attribute (tg draws its numbers while importing)");
  double seed = n.attr_float("seed", 0);
  if (!(seed >= 0 && seed < 4294967296.0)) n.bad("seed must be in [0, 2**32)");
  return Mt19937(uint32_t(int64_t(seed)));
}

// The dtype attribute (an ONNX type number), else `otherwise`.
DType dtype_attr(const Node& n, DType otherwise) {
  if (!n.attr("dtype")) return otherwise;
  std::optional<DType> dt = dtype_of_onnx(int(n.attr_int("dtype", 1)));
  if (!dt) n.bad("dtype " + std::to_string(n.attr_int("dtype", 1)) + " is not imported");
  return *dt;
}

Outs random(const Node& n, bool like, bool normal) {
  Shape shape;
  DType dt = DType::Float32;
  if (like) {
    shape = n.in(0).shape(), dt = dtype_attr(n, n.in(0).dtype());
  } else {
    std::vector<int64_t> s = n.attr_ints("shape").value_or(std::vector<int64_t>{});
    shape.assign(s.begin(), s.end()), dt = dtype_attr(n, DType::Float32);
  }
  Mt19937 rng = seeded(n);
  double a = normal ? n.attr_float("mean", 0.0) : n.attr_float("low", 0.0);
  double b = normal ? n.attr_float("scale", 1.0) : n.attr_float("high", 1.0);
  std::vector<Scalar> v;
  for (int64_t i = 0, count = prod(shape); i < count; ++i) {
    // the reference draws float64 and casts: uniform as rand() * (high - low) + low in the dtype
    double x = normal ? a + b * rng.gauss() : rng.random_sample();
    if (!normal) {
      Scalar r = known_values(dt, {}, {Scalar::of_float(x)}).at(0);
      x = r.as_double() * (b - a) + a;
    }
    v.push_back(Scalar::of_float(x));
  }
  return {tensor_of(known_values(dt, shape, v))};
}

// Bernoulli(p): RandomState.binomial(1, p), whose inversion method compares one draw u per
// element: 1 when u > 1 - p for p <= 0.5, when u <= p above.
Outs bernoulli(const Node& n) {
  Tensor p = n.in(0);
  const Known& probs = n.known(0);
  Mt19937 rng = seeded(n);
  std::vector<Scalar> v;
  for (size_t i = 0; i < probs.count(); ++i) {
    double q = probs.at(i).as_double(), u = rng.random_sample();
    v.push_back(Scalar::of_int(q <= 0.5 ? u > 1.0 - q : u <= q));
  }
  return {tensor_of(known_values(dtype_attr(n, p.dtype()), p.shape(), v))};
}

} // namespace

void add_random_ops(OpTable& t) {
  t["RandomUniform"] = [](const Node& n) { return random(n, false, false); };
  t["RandomUniformLike"] = [](const Node& n) { return random(n, true, false); };
  t["RandomNormal"] = [](const Node& n) { return random(n, false, true); };
  t["RandomNormalLike"] = [](const Node& n) { return random(n, true, true); };
  t["Bernoulli"] = bernoulli;
}

} // namespace tg
