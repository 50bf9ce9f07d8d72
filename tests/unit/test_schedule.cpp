#include <gtest/gtest.h>

#include "lazy/lazybuffer.h"
#include "schedule/schedule.h"
#include "tensor/tensor.h"

using namespace tg;

namespace {

Schedule schedule_of(const std::vector<std::pair<std::string, Tensor>>& outs, const std::vector<Tensor>& ins,
                     const ScheduleOptions& options = {}) {
  std::vector<std::pair<std::string, LazyBuffer>> o;
  for (auto& [name, t] : outs) o.push_back({name, t.lazydata()});
  std::vector<GraphInput> i;
  for (const Tensor& t : ins) i.push_back({t.lazydata().node().name, t.lazydata().id(), false});
  return schedule_graph(extract_graph(o, i), options);
}

int count_ops(const LazyOpPtr& op, Op which) {
  int n = op->op == which;
  for (auto& s : op->src) n += count_ops(s, which);
  return n;
}

} // namespace

TEST(Schedule, elementwise_chain_fuses_into_one_kernel) {
  Tensor x = Tensor::placeholder("x1", {4, 8});
  Schedule s = schedule_of({{"y", x.add(1.0).mul(2.0).exp().relu()}}, {x});
  EXPECT_EQ(s.kernels.size(), 1u);
}

TEST(Schedule, matmul_is_one_kernel) {
  Tensor a = Tensor::placeholder("a2", {16, 32}), b = Tensor::placeholder("b3", {32, 8});
  Schedule s = schedule_of({{"c", a.matmul(b)}}, {a, b});
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(count_ops(s.kernels[0].ast[0], Op::SUM), 1);
}

TEST(Schedule, softmax_takes_at_most_three_kernels) {
  Tensor x = Tensor::placeholder("x4", {4, 10});
  Schedule s = schedule_of({{"y", x.softmax()}}, {x});
  EXPECT_LE(s.kernels.size(), 3u);
  EXPECT_GE(s.kernels.size(), 1u);
}

TEST(Schedule, reduce_fuses_its_elementwise_epilogue) {
  Tensor x = Tensor::placeholder("x5", {4, 8});
  Schedule s = schedule_of({{"y", x.sum(std::vector<int>{1}).mul(3.0).add(1.0)}}, {x});
  EXPECT_EQ(s.kernels.size(), 1u);
}

// A swish after a matmul read by two kernels, a sum and an elementwise output (neither expands
// it, so nothing else realizes it): the matmul's kernel writes x * sigmoid(x), where tinygrad's
// chase stops at x (read twice) and each reader computes the sigmoid again.
TEST(Schedule, a_reduce_kernel_writes_where_its_epilogues_paths_meet) {
  Tensor x = Tensor::placeholder("x50", {8, 16}), w = Tensor::placeholder("w51", {16, 32});
  Tensor h = x.matmul(w);
  Tensor s = h.mul(h.sigmoid());
  auto exp2s = [](const Schedule& sched) {
    std::vector<int> per_kernel;
    for (const auto& k : sched.kernels) per_kernel.push_back(count_ops(k.ast[0], Op::EXP2));
    return per_kernel;
  };
  auto outs = std::vector<std::pair<std::string, Tensor>>{{"b", s.mul(s.sum(std::vector<int>{1}, true))}};
  EXPECT_EQ(exp2s(schedule_of(outs, {x, w}, {.share = false})), (std::vector<int>{0, 1, 1}));
  EXPECT_EQ(exp2s(schedule_of(outs, {x, w})), (std::vector<int>{1, 0, 0}));
  // paths that do not meet (h read raw by one reader and through a sigmoid by the other) stay
  Tensor sig = h.sigmoid();
  outs = {{"b", h.mul(sig.sum(std::vector<int>{1}, true))}};
  EXPECT_EQ(exp2s(schedule_of(outs, {x, w})), (std::vector<int>{0, 1, 0}));
}

TEST(Schedule, input_returned_directly_needs_no_kernel) {
  Tensor x = Tensor::placeholder("x6", {4});
  Schedule s = schedule_of({{"y", x}}, {x});
  EXPECT_EQ(s.kernels.size(), 0u);
  ASSERT_EQ(s.outputs.size(), 1u);
  EXPECT_EQ(s.outputs[0].buffer, s.inputs[0].buffer);
}

TEST(Schedule, transposed_output_is_made_contiguous_by_a_kernel) {
  Tensor x = Tensor::placeholder("x7", {4, 8});
  Schedule s = schedule_of({{"y", x.T()}}, {x});
  EXPECT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.outputs[0].shape, (Shape{8, 4}));
}

TEST(Schedule, constant_output_gets_a_kernel) {
  Schedule s = schedule_of({{"y", Tensor::ones({3})}}, {});
  EXPECT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.buffers[s.outputs[0].buffer].role, BufferRole::Output);
}

TEST(Schedule, list_data_becomes_a_constant_buffer) {
  Tensor t = Tensor::from_list({Scalar::of_int(1), Scalar::of_int(2), Scalar::of_int(3)}, {3});
  Schedule s = schedule_of({{"y", t.add(1)}}, {});
  ASSERT_EQ(s.kernels.size(), 1u);
  int constants = 0;
  for (auto& b : s.buffers) constants += b.role == BufferRole::Constant;
  EXPECT_EQ(constants, 1);
}

TEST(Schedule, two_outputs_sharing_a_reduce_keep_kernel_order_dependencies) {
  Tensor x = Tensor::placeholder("x8", {4, 8});
  Tensor m = x.max(std::vector<int>{1}, true);
  Schedule s = schedule_of({{"a", x.sub(m)}, {"b", m}}, {x});
  EXPECT_GE(s.kernels.size(), 1u);
  EXPECT_LE(s.kernels.size(), 2u);
}

// Each graph is its own: two programs with the same input names build side by side in one
// process, and scheduling one leaves the caller's graph as it was.
TEST(GraphScope, two_graphs_build_and_schedule_in_one_process) {
  auto program = [](LazyGraph& into, double k) {
    GraphScope scope(into);
    Tensor x = Tensor::placeholder("x", {4, 8});
    return extract_graph({{"y", x.mul(k).sum(std::vector<int>{1}).lazydata()}},
                         {{"x", x.lazydata().id(), false}});
  };
  LazyGraph a, b;
  Graph ga = program(a, 2.0), gb = program(b, 3.0);
  EXPECT_EQ(a.size(), b.size());
  size_t before = lazy_graph().size();
  Schedule sa = schedule_graph(ga), sb = schedule_graph(gb);
  EXPECT_EQ(lazy_graph().size(), before);
  ASSERT_EQ(sa.kernels.size(), 1u);
  ASSERT_EQ(sb.kernels.size(), 1u);
  EXPECT_EQ(sa.inputs[0].name, "x");
  EXPECT_EQ(sb.inputs[0].name, "x");
  EXPECT_NE(sa.kernels[0].ast[0], sb.kernels[0].ast[0]);
}
