// Random numbers, bit-exact with tinygrad 0.9.1 in both its modes: by default numpy's
// default_rng (custom_random: a CUSTOM buffer tg-run fills), with THREEFRY=1 in the environment
// the threefry kernels with their global seed and counter; randn by Box-Muller,
// randint/uniform/normal and the initializers on top.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <numbers>
#include <unordered_map>
#include <unordered_set>

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
  // The same for the default mode's seed: the state "_seed" holds Tensor._seed at the start of
  // a step (seed_base at trace time), and each draw of the step adds its offset.
  std::optional<Tensor> step_seed;
  int64_t seed_base = 0;
  // Draws made but not yet seeded, in creation order, and the nodes realize points have walked.
  std::vector<NodeId> pending;
  std::unordered_set<NodeId> pending_set, walked;
  int64_t pending_serial = 0;
  // THREEFRY draws of one or two values read the counter as it is when they are realized
  // (Tensor::rand): their counter constants, pending until then, and whether each holds an
  // offset from the step's state (true) or the counter itself.
  std::vector<NodeId> pending_counters;
  std::unordered_map<NodeId, bool> pending_counter_relative;
};
RngState& rng() { return lazy_graph().extension<RngState>(); }

Scalar in(int64_t v) { return Scalar::of_int(v); }

// tinygrad reads THREEFRY from the environment when it is imported.
bool& threefry_flag() {
  static bool on = [] {
    const char* v = std::getenv("THREEFRY");
    return v && std::atoll(v) != 0;
  }();
  return on;
}

// custom_random: Tensor._seed += 1 and numpy's default_rng(Tensor._seed) fills the buffer.
// tinygrad bumps the seed when the buffer is realized, so a draw is made pending (a unique
// placeholder arg) and seeded at the realize point that reaches it (realize_draws).
Tensor custom_rand(const Shape& shape, DType dtype) {
  RngState& st = rng();
  std::vector<LazyBuffer> srcs;
  if (!lazy_graph().states().empty()) {
    // A step that tg-run may repeat: the draw's seed is the state "_seed" plus an offset.
    if (!st.step_seed) {
      st.seed_base = st.seed;
      Tensor first = Tensor::from_list({Scalar::of_int(st.seed_base)}, {1}, DType::Int64, false);
      st.step_seed = Tensor(first.lazydata(), false).realize("_seed");
    }
    srcs.push_back(st.step_seed->lazydata());
  }
  Scalar pending = Scalar::of_int(std::numeric_limits<int64_t>::min() + ++st.pending_serial);
  LazyBuffer draw = LazyBuffer::loadop(Op::CUSTOM, shape, dtype, pending, srcs);
  st.pending.push_back(draw.id());
  st.pending_set.insert(draw.id());
  return Tensor(draw);
}

void seed_draw(NodeId id) {
  RngState& st = rng();
  if (!st.pending_set.erase(id)) return;
  st.seed += 1;
  if (st.seed < 0) fail("ValueError", "expected non-negative integer");
  bool relative = !lazy_graph()[id].srcs.empty();
  lazy_graph().set_draw_seed(id, relative ? st.seed - st.seed_base : st.seed);
}
// A one-element uint32 constant whose value the realize point that reaches it sets (resolve_counter).
Tensor pending_counter(bool relative) {
  RngState& st = rng();
  LazyBuffer c = LazyBuffer::from_data(std::vector<uint8_t>(4, 0), {1}, DType::UInt32, "",
                                       "rng counter pending " + std::to_string(++st.pending_serial));
  st.pending_counters.push_back(c.id());
  st.pending_counter_relative[c.id()] = relative;
  return Tensor(c, false);
}

void resolve_counter(NodeId id) {
  RngState& st = rng();
  auto it = st.pending_counter_relative.find(id);
  if (it == st.pending_counter_relative.end()) return;
  uint32_t v = it->second ? uint32_t(st.counter - st.step_base) : st.counter;
  std::vector<uint8_t> bytes(4);
  std::memcpy(bytes.data(), &v, 4); // little-endian hosts, as every buffer
  lazy_graph().resolve_host_data(id, std::move(bytes));
  st.pending_counter_relative.erase(it);
}

Scalar fl(double v) { return Scalar::of_float(v); }

Tensor uniform_impl(const Shape& shape, const Scalar& low, const Scalar& high, DType dtype) {
  return Tensor::rand(shape).mul(py::sub(high, low), true).cast(dtype).add(low);
}

} // namespace

bool Tensor::threefry() { return threefry_flag(); }
void Tensor::set_threefry(bool on) { threefry_flag() = on; }

void Tensor::manual_seed(int64_t seed) {
  rng().seed = seed;
  rng().counter = 0;
}

void Tensor::realize_draws(const std::vector<Tensor>& ts) {
  RngState& st = rng();
  if (st.pending_set.empty() && st.pending_counter_relative.empty()) return;
  const LazyGraph& g = lazy_graph();
  // schedule.py's order: the outputs' own bases first, then its pre-order walk (_recurse_lb)
  // in which custom_random kernels are met; they run first, in that order. A state tg made
  // where tinygrad has a lazy value (an optimizer's parameters) is walked into its init.
  std::unordered_map<NodeId, NodeId> init_of;
  for (const GraphState& s : g.states()) init_of[s.node] = s.init;
  for (const Tensor& t : ts) seed_draw(t.lazydata().base().id());
  std::vector<NodeId> stack;
  for (auto it = ts.rbegin(); it != ts.rend(); ++it) stack.push_back(it->lazydata().id());
  while (!stack.empty() && !(st.pending_set.empty() && st.pending_counter_relative.empty())) {
    NodeId id = stack.back();
    stack.pop_back();
    if (!st.walked.insert(id).second) continue;
    const LazyNode& n = g[id];
    if (n.op == Op::CUSTOM) seed_draw(id);
    if (n.is_host_data()) resolve_counter(id);
    for (auto s = n.srcs.rbegin(); s != n.srcs.rend(); ++s) stack.push_back(*s);
    if (auto init = init_of.find(id); init != init_of.end()) stack.push_back(init->second);
  }
}

void Tensor::begin_program() {
  RngState& st = rng();
  st.step_counter.reset();
  st.step_seed.reset();
  st.pending.clear();
  st.pending_set.clear();
  st.walked.clear();
  st.pending_counters.clear();
  st.pending_counter_relative.clear();
}

void Tensor::end_program() {
  RngState& st = rng();
  // Draws no realize point reached are seeded in the order they were made.
  for (NodeId id : st.pending) seed_draw(id);
  for (NodeId id : st.pending_counters) resolve_counter(id); // (all at the counter's last value)
  st.pending.clear();
  st.walked.clear();
  st.pending_counters.clear();
  if (st.step_seed) {
    int64_t drawn = st.seed - st.seed_base;
    if (drawn != 0) st.step_seed->assign(st.step_seed->add(in(drawn)));
    st.step_seed.reset();
  }
  if (!st.step_counter) return;
  uint32_t drawn = st.counter - st.step_base;
  if (drawn != 0) st.step_counter->assign(st.step_counter->add(in(drawn)));
  st.step_counter.reset();
}

Tensor Tensor::rand(const Shape& shape, std::optional<DType> dtype) {
  int64_t num = prod(shape);
  if (!threefry_flag()) {
    // numpy fills bfloat16 through float (tinygrad draws float and casts)
    if (dtype.value_or(kDefaultFloat) == DType::BFloat16)
      return rand(shape, DType::Float32).cast(DType::BFloat16);
    // a size-0 buffer is a CONST in lazy.py: nothing is drawn
    if (num == 0) return zeros(shape, dtype);
    return custom_rand(shape, dtype.value_or(kDefaultFloat));
  }
  if (num == 0) return zeros(shape, dtype);
  RngState& st = rng();
  int64_t half = py::ceildiv(num, 2);
  // _rng_counter is a realized one-element uint32 buffer in tinygrad; counts1 is realized too.
  // For one or two values tinygrad folds arange(1) + _rng_counter to the counter's own buffer,
  // which every draw's assign advances and which the threefry kernel reads when the draw is
  // realized: such a draw starts at the counter as it is then, after every draw made so far
  // (Tensor.rand(1) after manual_seed(0) is 0.32367265, not 0.21629542; two such draws realized
  // together read the same counter). Its counter is pending until a realize point sets it.
  Tensor counter = from_list({in(st.counter)}, {1}, DType::UInt32, false);
  const bool states = !lazy_graph().states().empty();
  if (states) {
    if (!st.step_counter) {
      st.step_base = st.counter; // the state's first value
      st.step_counter = Tensor(counter.lazydata(), false).realize("_rng_counter");
    }
    counter = st.step_counter->add(in(uint32_t(st.counter - st.step_base)));
  }
  if (half == 1) counter = states ? st.step_counter->add(pending_counter(true)) : pending_counter(false);
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
