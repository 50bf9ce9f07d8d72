// Random numbers: tinygrad 0.9.1's threefry rand (THREEFRY=1), bit-exact, with its global seed
// and counter; randn by Box-Muller, randint/uniform/normal and the initializers on top.
#include <cmath>
#include <ctime>
#include <numbers>

#include "tensor/tensor_impl.h"
#include "util/error.h"

namespace tg {
namespace {

struct RngState {
  int64_t seed = int64_t(std::time(nullptr)); // Tensor._seed
  uint32_t counter = 0;                       // Tensor._rng_counter's value
  // Once the program has states (it is a step that tg-run may repeat), draws read the counter
  // from the state "_rng_counter", which holds the trace-time counter at that point
  // (step_base) on the first step and is advanced by the draws of each step.
  std::optional<Tensor> step_counter;
  uint32_t step_base = 0;
};
RngState& rng() {
  static RngState state;
  return state;
}

Scalar in(int64_t v) { return Scalar::of_int(v); }
Scalar fl(double v) { return Scalar::of_float(v); }

Tensor uniform_impl(const Shape& shape, const Scalar& low, const Scalar& high, DType dtype) {
  return Tensor::rand(shape).mul(py::sub(high, low), true).cast(dtype).add(low);
}

} // namespace

void Tensor::manual_seed(int64_t seed) {
  rng().seed = seed;
  rng().counter = 0;
}

void Tensor::begin_program() { rng().step_counter.reset(); }

void Tensor::end_program() {
  RngState& st = rng();
  if (!st.step_counter) return;
  uint32_t drawn = st.counter - st.step_base;
  if (drawn != 0) st.step_counter->assign(st.step_counter->add(in(drawn)));
  st.step_counter.reset();
}

Tensor Tensor::rand(const Shape& shape, std::optional<DType> dtype) {
  int64_t num = prod(shape);
  if (num == 0) return zeros(shape, dtype);
  RngState& st = rng();
  int64_t half = py::ceildiv(num, 2);
  // _rng_counter is a realized one-element uint32 buffer in tinygrad; counts1 is realized too.
  Tensor counter = from_list({in(st.counter)}, {1}, DType::UInt32, false);
  if (!lazy_graph().states().empty()) {
    if (!st.step_counter) {
      st.step_base = st.counter;
      st.step_counter = Tensor(counter.lazydata(), false).realize("_rng_counter");
    }
    counter = st.step_counter->add(in(uint32_t(st.counter - st.step_base)));
  }
  Tensor counts1 = arange(in(half), std::nullopt, in(1), DType::UInt32).add(counter).contiguous();
  Tensor counts2 = counts1.add(in(half));
  st.counter = uint32_t(st.counter + uint64_t(num));

  static constexpr int rotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  int64_t ks[3] = {0x0, st.seed ^ 0x0 ^ 0x1BD11BDA, st.seed};
  Tensor x0 = counts1.add(in(ks[2])), x1 = counts2.add(in(ks[0]));
  for (int i = 0; i < 5; ++i) {
    for (int r : rotations[i % 2]) {
      Tensor sum = x0.add(x1);
      x1 = sum.xor_(x1.lshift(r).add(x1.rshift(32 - r)));
      x0 = sum;
    }
    x0 = x0.add(in(ks[i % 3]));
    x1 = x1.add(in(ks[(i + 1) % 3])).add(in(i)).add(in(1));
  }
  Tensor out = x0.cat({x1}).rshift(8).cast(DType::Float32).div(in(int64_t(1) << 24));
  out = out.getitem({Index::slice(std::nullopt, num, std::nullopt)});
  out = out.reshape(shape).cast(dtype.value_or(kDefaultFloat));
  out.set_requires_grad(std::nullopt);
  return out.contiguous();
}

Tensor Tensor::randn(const Shape& shape, std::optional<DType> dtype) {
  Shape two{2};
  two.insert(two.end(), shape.begin(), shape.end());
  Tensor src = rand(two, DType::Float32);
  Tensor s0 = src.getitem({Index::integer(0)}), s1 = src.getitem({Index::integer(1)});
  Tensor radius = s1.sub(in(1), true).log().mul(in(-2)).sqrt();
  return s0.mul(fl(2 * std::numbers::pi)).cos().mul(radius).cast(dtype.value_or(kDefaultFloat));
}

Tensor Tensor::randint(const Shape& shape, int64_t low, int64_t high) {
  return randint(shape, low, high, DType::Int32);
}
Tensor Tensor::randint(const Shape& shape, int64_t low, int64_t high, DType dtype) {
  if (!is_int(dtype)) fail("TypeError", "dtype=" + py::dtype_repr(dtype) + " must be int");
  return uniform_impl(shape, in(low), in(high), dtype);
}

Tensor Tensor::normal(const Shape& shape, double mean, double std, std::optional<DType> dtype) {
  return randn(shape, dtype).mul(fl(std), true).add(fl(mean));
}

Tensor Tensor::uniform(const Shape& shape, double low, double high, std::optional<DType> dtype) {
  return uniform_impl(shape, fl(low), fl(high), dtype.value_or(kDefaultFloat));
}

Tensor Tensor::scaled_uniform(const Shape& shape, std::optional<DType> dtype) {
  return uniform(shape, -1.0, 1.0, dtype).mul(fl(std::pow(double(prod(shape)), -0.5)));
}

Tensor Tensor::glorot_uniform(const Shape& shape, std::optional<DType> dtype) {
  Shape rest(shape.begin() + std::min<size_t>(1, shape.size()), shape.end());
  if (shape.empty()) fail("IndexError", "tuple index out of range");
  return uniform(shape, -1.0, 1.0, dtype).mul(fl(std::pow(6.0 / double(shape[0] + prod(rest)), 0.5)));
}

Tensor Tensor::kaiming_uniform(const Shape& shape, double a, std::optional<DType> dtype) {
  Shape rest(shape.begin() + std::min<size_t>(1, shape.size()), shape.end());
  double bound = std::sqrt(3.0) * std::sqrt(2.0 / (1 + a * a)) / std::sqrt(double(prod(rest)));
  return uniform(shape, -bound, bound, dtype);
}

Tensor Tensor::kaiming_normal(const Shape& shape, double a, std::optional<DType> dtype) {
  Shape rest(shape.begin() + std::min<size_t>(1, shape.size()), shape.end());
  double std = std::sqrt(2.0 / (1 + a * a)) / std::sqrt(double(prod(rest)));
  return normal(shape, 0.0, std, dtype);
}

} // namespace tg
