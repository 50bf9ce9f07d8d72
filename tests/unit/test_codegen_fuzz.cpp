// Random kernel ASTs (views: permute, expand, pad, shrink; ops: add, mul, max, neg, where,
// reduces, late epilogues) run through codegen + the CLANG runtime, with and without the
// optimizer, against a direct evaluation of the AST through the ShapeTrackers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <random>

#include "device/registry.h"
#include "test_codegen_util.h"

using namespace tg;
using namespace tg::testing;

namespace {

constexpr DType F32 = DType::Float32;

struct Case {
  std::vector<LazyOpPtr> ast;
  std::vector<BufSpec> specs;           // buffer 0 = output
  std::vector<std::vector<float>> data; // per buffer (inputs only)
};

class Generator {
public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  Case make() {
    Case c;
    int rank = pick(1, 3);
    Shape full;
    for (int i = 0; i < rank; i++) full.push_back(std::vector<int64_t>{1, 2, 3, 4, 5, 8}[size_t(pick(0, 5))]);
    Shape out = full;
    bool with_reduce = pick(0, 2) != 0;
    Axes axes;
    if (with_reduce) {
      for (int i = 0; i < rank; i++)
        if (pick(0, 1)) axes.push_back(i);
      if (axes.empty()) axes.push_back(pick(0, rank - 1));
      for (int a : axes) out[size_t(a)] = 1;
    }
    c.specs.push_back({"out", F32, out, BufferRole::Output});
    c.data.push_back({});
    LazyOpPtr body = expr(c, full, 2);
    if (with_reduce) {
      body = reduce(pick(0, 1) ? Op::SUM : Op::REDUCE_MAX, body, axes);
      if (pick(0, 1)) body = alu(Op::ADD, {body, leaf(c, out)}); // late epilogue
    }
    c.ast = {store(0, F32, st_of(out), body)};
    return c;
  }

private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  LazyOpPtr expr(Case& c, const Shape& shape, int depth) {
    if (depth == 0 || pick(0, 3) == 0) return leaf(c, shape);
    switch (pick(0, 4)) {
    case 0:
      return alu(Op::ADD, {expr(c, shape, depth - 1), expr(c, shape, depth - 1)});
    case 1:
      return alu(Op::MUL, {expr(c, shape, depth - 1), expr(c, shape, depth - 1)});
    case 2:
      return alu(Op::MAX, {expr(c, shape, depth - 1), expr(c, shape, depth - 1)});
    case 3:
      return alu(Op::NEG, {expr(c, shape, depth - 1)});
    default:
      return alu(Op::WHERE,
                 {alu(Op::CMPLT, {expr(c, shape, depth - 1),
                                  cnst(Scalar::of_float(2), F32, st_of(ones(shape)).expand(shape))}),
                  expr(c, shape, depth - 1), expr(c, shape, depth - 1)});
    }
  }

  static Shape ones(const Shape& s) { return Shape(s.size(), 1); }

  // a load of a fresh input through a random view that ends in `shape`, or a constant
  LazyOpPtr leaf(Case& c, const Shape& shape) {
    if (pick(0, 5) == 0)
      return cnst(Scalar::of_float(double(pick(-3, 3))), F32, st_of(ones(shape)).expand(shape));
    Shape base = shape;
    int kind = pick(0, 4);
    int axis = pick(0, int(shape.size()) - 1);
    ShapeTracker st;
    if (kind == 1 && shape.size() > 1) { // permute: base is the reversed shape
      std::vector<int> perm;
      for (int i = int(shape.size()) - 1; i >= 0; i--) perm.push_back(i);
      base = Shape(shape.rbegin(), shape.rend());
      st = st_of(base).permute(perm);
    } else if (kind == 2) { // expand along one axis
      base[size_t(axis)] = 1;
      st = st_of(base).expand(shape);
    } else if (kind == 3 && shape[size_t(axis)] >= 3) { // pad one axis by (1, 1)
      base[size_t(axis)] -= 2;
      std::vector<std::pair<int64_t, int64_t>> arg(shape.size(), {0, 0});
      arg[size_t(axis)] = {1, 1};
      st = st_of(base).pad(arg);
    } else if (kind == 4) { // shrink one axis out of a larger buffer
      base[size_t(axis)] += 3;
      std::vector<std::pair<int64_t, int64_t>> arg;
      for (size_t i = 0; i < shape.size(); i++) arg.push_back({0, shape[i]});
      arg[size_t(axis)] = {2, 2 + shape[size_t(axis)]};
      st = st_of(base).shrink(arg);
    } else {
      st = st_of(shape);
    }
    int idx = int(c.specs.size());
    c.specs.push_back({"in" + std::to_string(idx), F32, base, BufferRole::Input});
    std::vector<float> d(size_t(prod(base)));
    for (float& f : d) f = float(pick(-4, 4));
    c.data.push_back(d);
    return load(idx, F32, st);
  }

  std::mt19937 rng_;
};

// Direct evaluation of the AST at one index of the (full) shape.
double eval(const LazyOp* op, const std::vector<int64_t>& idx, const Case& c) {
  auto view_value = [&](const ShapeTracker& st, auto&& value_at) -> double {
    std::vector<Expr> e;
    for (int64_t i : idx) e.push_back(Expr(i));
    auto [index, valid] = st.expr_idxs(e);
    if (!valid.is_num() || !index.is_num()) throw std::runtime_error("non-constant index");
    return valid.num() ? value_at(index.num()) : 0.0;
  };
  switch (op->op) {
  case Op::LOAD: {
    auto& mb = std::get<MemBuffer>(op->arg);
    return view_value(mb.st, [&](int64_t i) { return double(c.data[size_t(mb.idx)].at(size_t(i))); });
  }
  case Op::CONST: {
    auto& cb = std::get<ConstBuffer>(op->arg);
    return view_value(cb.st, [&](int64_t) { return cb.val.as_double(); });
  }
  case Op::ADD:
    return eval(op->src[0].get(), idx, c) + eval(op->src[1].get(), idx, c);
  case Op::MUL:
    return eval(op->src[0].get(), idx, c) * eval(op->src[1].get(), idx, c);
  case Op::MAX:
    return std::max(eval(op->src[0].get(), idx, c), eval(op->src[1].get(), idx, c));
  case Op::NEG:
    return -eval(op->src[0].get(), idx, c);
  case Op::CMPLT:
    return eval(op->src[0].get(), idx, c) < eval(op->src[1].get(), idx, c);
  case Op::WHERE:
    return eval(op->src[0].get(), idx, c) != 0 ? eval(op->src[1].get(), idx, c)
                                               : eval(op->src[2].get(), idx, c);
  case Op::SUM:
  case Op::REDUCE_MAX: {
    // the reduce's input shape: any buffer under it
    std::function<Shape(const LazyOp*)> shape_of = [&](const LazyOp* x) -> Shape {
      if (auto* mb = std::get_if<MemBuffer>(&x->arg)) return mb->st.shape();
      if (auto* cb = std::get_if<ConstBuffer>(&x->arg)) return cb->st.shape();
      return shape_of(x->src[0].get());
    };
    Shape in = shape_of(op->src[0].get());
    const Axes& axes = std::get<Axes>(op->arg);
    double acc = op->op == Op::SUM ? 0.0 : -INFINITY;
    std::vector<int64_t> j = idx;
    std::function<void(size_t)> loop = [&](size_t a) {
      if (a == axes.size()) {
        double v = eval(op->src[0].get(), j, c);
        acc = op->op == Op::SUM ? acc + v : std::max(acc, v);
        return;
      }
      for (int64_t k = 0; k < in[size_t(axes[a])]; k++) {
        j[size_t(axes[a])] = k;
        loop(a + 1);
      }
    };
    loop(0);
    return acc;
  }
  default:
    throw std::runtime_error("eval: unsupported op");
  }
}

std::vector<float> reference(const Case& c) {
  const Shape& out = c.specs[0].shape;
  std::vector<float> r(size_t(prod(out)));
  std::vector<int64_t> idx(out.size(), 0);
  for (size_t n = 0; n < r.size(); n++) {
    int64_t rem = int64_t(n);
    for (int d = int(out.size()) - 1; d >= 0; d--) {
      idx[size_t(d)] = rem % out[size_t(d)];
      rem /= out[size_t(d)];
    }
    r[n] = float(eval(c.ast[0]->src[0].get(), idx, c));
  }
  return r;
}

} // namespace

TEST(CodegenFuzz, random_kernels_match_direct_evaluation) {
  // TG_FUZZ_SEED / TG_FUZZ_CASES widen the search when hunting a bug
  const char* seed = std::getenv("TG_FUZZ_SEED");
  const char* cases = std::getenv("TG_FUZZ_CASES");
  Generator gen(seed ? uint32_t(std::stoul(seed)) : 1234u);
  int count = cases ? std::stoi(cases) : 40;
  for (int n = 0; n < count; n++) {
    Case c = gen.make();
    std::vector<int> bufs;
    for (size_t i = 0; i < c.specs.size(); i++) bufs.push_back(int(i));
    Schedule s = make_schedule(c.specs, {{c.ast, bufs}});
    std::map<std::string, HostBuffer> inputs;
    for (size_t i = 1; i < c.specs.size(); i++)
      inputs[c.specs[i].name] = host(F32, c.specs[i].shape, c.data[i]);
    std::vector<float> want = reference(c);
    for (Optimizer opt : {Optimizer::Tinygrad, Optimizer::None, Optimizer::Tg}) {
      std::vector<float> got;
      try {
        got = values_of<float>(run(s, inputs, {opt}).at("out"));
      } catch (const std::exception& e) {
        ADD_FAILURE() << "case " << n << " optimizer=" << int(opt) << ": " << e.what() << "\n"
                      << lower_kernel(c.ast, device_renderer("CLANG"), {opt}).src;
        continue;
      }
      ASSERT_EQ(got.size(), want.size());
      bool same = got == want;
      EXPECT_TRUE(same) << "case " << n << " optimizer=" << int(opt) << "\n"
                        << lower_kernel(c.ast, device_renderer("CLANG"), {opt}).src;
      if (!same) {
        for (size_t i = 0; i < got.size(); i++)
          if (got[i] != want[i]) {
            ADD_FAILURE() << "  first difference at " << i << ": got " << got[i] << ", want " << want[i];
            break;
          }
      }
    }
  }
}
