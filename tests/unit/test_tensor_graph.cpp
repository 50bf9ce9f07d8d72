// Graph-level behaviour of the Tensor layer: constant folding, the Functions' graph shapes,
// requires_grad propagation, the random state, and how data is packed into buffers.
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "rng_mode.h"
#include "tensor/tensor_impl.h"
#include "util/error.h"

using namespace tg;

namespace {

Scalar I(int64_t v) { return Scalar::of_int(v); }
Scalar F(double v) { return Scalar::of_float(v); }

// How many nodes with `op` the tensor's graph reaches.
int count_ops(const Tensor& t, Op op) {
  std::set<NodeId> seen;
  std::vector<NodeId> stack{t.lazydata().id()};
  int n = 0;
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    if (!seen.insert(id).second) continue;
    const LazyNode& node = lazy_graph()[id];
    n += node.op == op;
    stack.insert(stack.end(), node.srcs.begin(), node.srcs.end());
  }
  return n;
}
const LazyNode& base_node(const Tensor& t) { return t.lazydata().base().node(); }

} // namespace

TEST(TensorConstFolding, ones_plus_zero_is_still_a_const) {
  Tensor t = Tensor::ones({2, 2}).add(I(0));
  EXPECT_TRUE(t.lazydata().is_unrealized_unmasked_const());
  EXPECT_EQ(t.lazydata(), Tensor::ones({2, 2}).lazydata());
}

TEST(TensorConstFolding, const_arithmetic_folds_to_one_const) {
  Tensor t = Tensor::ones({3}).mul(I(2)).add(I(1));
  ASSERT_TRUE(t.lazydata().is_unrealized_unmasked_const());
  EXPECT_EQ(t.lazydata().const_value().as_double(), 3.0);
}

TEST(TensorConstFolding, full_is_a_const_expanded) {
  Tensor t = Tensor::full({2, 3}, I(42));
  ASSERT_TRUE(t.lazydata().is_unrealized_unmasked_const());
  EXPECT_EQ(t.lazydata().const_value(), I(42));
}

TEST(TensorConstFolding, padded_const_is_masked) {
  Tensor t = Tensor::ones({2}).pad({std::pair<int64_t, int64_t>{1, 1}});
  EXPECT_TRUE(t.lazydata().is_unrealized_const());
  EXPECT_FALSE(t.lazydata().is_unrealized_unmasked_const());
}

TEST(TensorConstFolding, arange_of_one_element_folds) {
  EXPECT_TRUE(Tensor::arange(I(1)).lazydata().is_unrealized_const());
}

TEST(TensorGraph, default_tensor_is_an_empty_float_const) {
  Tensor t;
  EXPECT_EQ(t.shape(), Shape{0});
  EXPECT_EQ(t.dtype(), DType::Float32);
  EXPECT_TRUE(t.lazydata().is_unrealized_const());
}

TEST(TensorGraph, cast_to_same_dtype_returns_self) {
  Tensor t = Tensor::empty({2});
  EXPECT_TRUE(t.cast(DType::Float32).same(t));
}

TEST(TensorGraph, reshape_to_same_shape_returns_self) {
  Tensor t = Tensor::empty({2, 3});
  EXPECT_TRUE(t.reshape({2, -1}).same(t));
}

TEST(TensorGraph, sub_is_add_of_negation) {
  const LazyNode& n = base_node(Tensor::placeholder("a", {3}).sub(Tensor::placeholder("b", {3})));
  EXPECT_EQ(n.op, Op::ADD);
  EXPECT_EQ(lazy_graph()[n.srcs[1]].op, Op::NEG);
}

TEST(TensorGraph, eq_is_not_of_ne) {
  const LazyNode& n = base_node(Tensor::placeholder("a", {3}).eq(F(1.0)));
  EXPECT_EQ(n.op, Op::CMPNE);
  EXPECT_EQ(lazy_graph()[n.srcs[0]].op, Op::CMPNE);
}

TEST(TensorGraph, square_pow_uses_no_exp) {
  Tensor t = Tensor::placeholder("a", {3}).pow(I(2));
  EXPECT_EQ(count_ops(t, Op::EXP2), 0);
  EXPECT_EQ(base_node(t).op, Op::MUL);
}

TEST(TensorGraph, fractional_pow_uses_exp_and_log) {
  Tensor t = Tensor::placeholder("a", {3}).pow(Tensor::placeholder("b", {3}));
  EXPECT_GE(count_ops(t, Op::EXP2), 1);
  EXPECT_GE(count_ops(t, Op::LOG2), 1);
}

TEST(TensorGraph, matmul_is_one_reduce) {
  Tensor t = Tensor::placeholder("a", {4, 8}).matmul(Tensor::placeholder("b", {8, 5}));
  EXPECT_EQ(count_ops(t, Op::SUM), 1);
  EXPECT_EQ(t.shape(), (Shape{4, 5}));
}

TEST(TensorGraph, softmax_is_a_max_and_a_sum) {
  Tensor t = Tensor::placeholder("a", {4, 8}).softmax();
  EXPECT_EQ(count_ops(t, Op::REDUCE_MAX), 1);
  EXPECT_EQ(count_ops(t, Op::SUM), 1);
}

TEST(TensorGraph, tensor_index_builds_an_arange_mask_sum) {
  Tensor idx = Tensor::from_list({I(0), I(2)}, {2});
  Tensor t = Tensor::placeholder("a", {4, 5}).getitem({Index::of_tensor(idx)});
  EXPECT_EQ(t.shape(), (Shape{2, 5}));
  EXPECT_GE(count_ops(t, Op::SUM), 1);
}

TEST(TensorGraph, contiguous_of_a_view_adds_a_copy) {
  Tensor t = Tensor::placeholder("a", {4, 5}).T().contiguous();
  EXPECT_EQ(base_node(t).op, Op::CONTIGUOUS);
}

TEST(TensorData, ints_wrap_into_uint8) {
  Tensor t = Tensor::from_list({I(300), I(-1)}, {2}, DType::UInt8);
  EXPECT_EQ(base_node(t).data, (std::vector<uint8_t>{44, 255}));
}

TEST(TensorData, floats_truncate_into_ints) {
  Tensor t = Tensor::from_list({F(2.7), F(-2.7)}, {2}, DType::Int8);
  EXPECT_EQ(base_node(t).data, (std::vector<uint8_t>{2, 254}));
}

TEST(TensorData, float16_is_packed_as_half) {
  Tensor t = Tensor::from_list({F(1.0)}, {1}, DType::Float16);
  EXPECT_EQ(base_node(t).data, (std::vector<uint8_t>{0x00, 0x3c}));
}

TEST(TensorData, bfloat16_goes_through_float32_and_a_cast) {
  Tensor t = Tensor::from_list({F(1.0)}, {1}, DType::BFloat16);
  EXPECT_EQ(t.dtype(), DType::BFloat16);
  EXPECT_EQ(base_node(t).op, Op::CAST);
  EXPECT_EQ(lazy_graph()[base_node(t).srcs[0]].dtype, DType::Float32);
}

TEST(TensorData, bools_are_one_byte) {
  Tensor t = Tensor::from_list({Scalar::of_bool(true), Scalar::of_bool(false)}, {2});
  EXPECT_EQ(base_node(t).data, (std::vector<uint8_t>{1, 0}));
}

TEST(TensorData, bytes_are_uint8_whatever_the_dtype) {
  Tensor t = Tensor::from_bytes({1, 2, 3}, DType::Float32);
  EXPECT_EQ(t.dtype(), DType::UInt8);
  EXPECT_EQ(base_node(t).data, (std::vector<uint8_t>{1, 2, 3}));
}

TEST(TensorRandom, default_rand_is_one_custom_buffer_seeded_when_realized) {
  RngMode numpy_rng(false);
  Tensor::begin_program();
  Tensor::manual_seed(7);
  Tensor a = Tensor::rand({3}), b = Tensor::rand({2, 2}, DType::Float16);
  EXPECT_EQ(a.lazydata().node().op, Op::CUSTOM);
  EXPECT_EQ(b.dtype(), DType::Float16);
  Tensor::realize_draws({b}); // b realized first: tinygrad's _seed += 1 happens then
  Tensor::end_program();
  EXPECT_EQ(std::get<Scalar>(b.lazydata().node().arg).i, 8);
  EXPECT_EQ(std::get<Scalar>(a.lazydata().node().arg).i, 9);
  EXPECT_EQ(Tensor::rand({0}).lazydata().base().node().op, Op::LOAD_CONST); // nothing drawn
}

TEST(TensorRandom, manual_seed_repeats_the_same_graph) {
  RngMode threefry(true);
  Tensor::manual_seed(42);
  Tensor a = Tensor::rand({5});
  Tensor b = Tensor::rand({5});
  Tensor::manual_seed(42);
  Tensor c = Tensor::rand({5});
  EXPECT_EQ(a.lazydata(), c.lazydata());
  EXPECT_NE(a.lazydata(), b.lazydata()); // the counter moved on
}

TEST(TensorRandom, different_seeds_give_different_graphs) {
  RngMode threefry(true);
  Tensor::manual_seed(1);
  Tensor a = Tensor::rand({5});
  Tensor::manual_seed(2);
  Tensor b = Tensor::rand({5});
  EXPECT_NE(a.lazydata(), b.lazydata());
}

TEST(TensorRandom, rand_reads_the_counter_buffer) {
  RngMode threefry(true);
  Tensor::manual_seed(0);
  (void)Tensor::rand({3});
  Tensor t = Tensor::rand({4});
  // the second call reads _rng_counter == 3 from a one-element uint32 buffer
  bool found = false;
  for (const LazyNode& n : lazy_graph().nodes())
    if (n.op == Op::COPY && n.dtype == DType::UInt32 && n.data == std::vector<uint8_t>{3, 0, 0, 0})
      found = true;
  EXPECT_TRUE(found);
  EXPECT_EQ(t.dtype(), DType::Float32);
}

TEST(TensorRandom, randn_draws_twice_the_elements) {
  RngMode threefry(true);
  Tensor::manual_seed(0);
  (void)Tensor::randn({3});
  Tensor next = Tensor::rand({3}); // (a draw of 1 or 2 would read the counter after its advance)
  bool found = false;
  for (const LazyNode& n : lazy_graph().nodes())
    if (n.op == Op::COPY && n.dtype == DType::UInt32 && n.data == std::vector<uint8_t>{6, 0, 0, 0})
      found = true;
  EXPECT_TRUE(found);
  (void)next;
}

TEST(TensorAutograd, requires_grad_none_when_any_input_is_none) {
  Tensor a(Tensor::empty({2}).lazydata(), false), b(Tensor::empty({2}).lazydata());
  Tensor c = a.add(b);
  EXPECT_FALSE(c.requires_grad().has_value());
  EXPECT_EQ(c.impl_->ctx, nullptr);
}

TEST(TensorAutograd, requires_grad_false_when_all_false) {
  Tensor a(Tensor::empty({2}).lazydata(), false);
  EXPECT_EQ(a.mul(a).requires_grad(), std::optional<bool>(false));
}

TEST(TensorAutograd, requires_grad_true_records_the_context) {
  Tensor a = Tensor::placeholder("x", {2}, DType::Float32, true);
  Tensor c = a.mul(Tensor::empty({2}));
  EXPECT_EQ(c.requires_grad(), std::optional<bool>(true));
  ASSERT_NE(c.impl_->ctx, nullptr);
  EXPECT_EQ(c.impl_->ctx->name(), "Mul");
  EXPECT_EQ(c.impl_->ctx->parents.size(), 2u);
}

TEST(TensorAutograd, detach_drops_grad_but_keeps_data) {
  Tensor a = Tensor::placeholder("x", {2}, DType::Float32, true);
  Tensor d = a.detach();
  EXPECT_EQ(d.requires_grad(), std::optional<bool>(false));
  // the same data, through a view marked detached (so tg-grad stops there too)
  EXPECT_EQ(d.lazydata().base(), a.lazydata());
  EXPECT_TRUE(d.lazydata().is_detached());
  EXPECT_TRUE(d.reshape({1, 2}).lazydata().is_detached());
  EXPECT_EQ(d.detach().lazydata(), d.lazydata());
}

TEST(TensorAutograd, backward_fills_grads_of_the_input_shape) {
  Tensor x = Tensor::placeholder("x", {3, 4}, DType::Float32, true);
  Tensor w = Tensor::placeholder("w", {4, 2}, DType::Float32, true);
  x.matmul(w).relu().sum().backward();
  ASSERT_NE(x.grad(), nullptr);
  ASSERT_NE(w.grad(), nullptr);
  EXPECT_EQ(x.grad()->shape(), (Shape{3, 4}));
  EXPECT_EQ(w.grad()->shape(), (Shape{4, 2}));
}

TEST(TensorAutograd, backward_needs_a_scalar) {
  Tensor x = Tensor::placeholder("x", {3}, DType::Float32, true);
  try {
    x.backward();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "AssertionError");
    EXPECT_EQ(std::string(e.what()),
              "backward can only be called for scalar tensors, but it has shape (3,))");
  }
}

TEST(TensorAutograd, xor_has_no_backward) {
  fn::Xor x;
  EXPECT_THROW(x.backward(Tensor::empty({1}).lazydata()), Error);
}

TEST(TensorHelpers, broadcast_shape_takes_max_and_zero) {
  EXPECT_EQ(broadcast_shape({{3, 1}, {4}}), (Shape{3, 4}));
  EXPECT_EQ(broadcast_shape({{1, 4}, {0, 1}}), (Shape{0, 4}));
}

TEST(TensorHelpers, tuple_repr_is_pythons) {
  EXPECT_EQ(py::tuple_repr(std::vector<int64_t>{}), "()");
  EXPECT_EQ(py::tuple_repr(std::vector<int64_t>{4}), "(4,)");
  EXPECT_EQ(py::tuple_repr(std::vector<int64_t>{2, 3}), "(2, 3)");
}

TEST(TensorHelpers, resolve_dim_wraps_and_raises) {
  EXPECT_EQ(py::resolve_dim(-1, 3), 2);
  EXPECT_EQ(py::resolve_dim(-1, 0), -1); // as tensor.py: dim + ndim for a 0-d tensor
  EXPECT_EQ(py::resolve_dim(3, 3, true), 3);
  EXPECT_THROW(py::resolve_dim(3, 3), Error);
}
