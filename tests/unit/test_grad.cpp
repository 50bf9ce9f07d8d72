#include <gtest/gtest.h>

#include "error_of.h"
#include "grad/grad.h"
#include "lazy/lazybuffer.h"
#include "tensor/tensor.h"
#include "util/error.h"

using namespace tg;

namespace {

Graph graph_of(const std::vector<std::pair<std::string, Tensor>>& outs, const std::vector<Tensor>& ins) {
  std::vector<std::pair<std::string, LazyBuffer>> o;
  for (auto& [name, t] : outs) o.push_back({name, t.lazydata()});
  std::vector<GraphInput> i;
  for (const Tensor& t : ins) i.push_back({t.lazydata().node().name, t.lazydata().id(), false});
  return extract_graph(o, i);
}

const GraphOutput& output_named(const Graph& g, const std::string& name) {
  for (const GraphOutput& o : g.outputs)
    if (o.name == name) return o;
  throw std::runtime_error("no output " + name);
}

} // namespace

TEST(Grad, adds_one_output_per_input_with_the_input_shape) {
  Tensor x = Tensor::placeholder("gx1", {3, 4}), w = Tensor::placeholder("gw1", {4, 2});
  Graph g = gradient_graph(graph_of({{"loss", x.matmul(w).sum()}}, {x, w}), {"gx1", "gw1"});
  ASSERT_EQ(g.outputs.size(), 3u);
  EXPECT_EQ(g.nodes[output_named(g, "grad_gx1").node].shape, (Shape{3, 4}));
  EXPECT_EQ(g.nodes[output_named(g, "grad_gw1").node].shape, (Shape{4, 2}));
}

TEST(Grad, marks_the_differentiated_inputs_as_requiring_grad) {
  Tensor x = Tensor::placeholder("gx2", {3}), y = Tensor::placeholder("gy2", {3});
  Graph g = gradient_graph(graph_of({{"loss", x.mul(y).sum()}}, {x, y}), {"gx2"});
  EXPECT_TRUE(g.inputs[0].requires_grad);
  EXPECT_FALSE(g.inputs[1].requires_grad);
}

TEST(Grad, non_scalar_loss_is_tinygrads_assertion) {
  Tensor x = Tensor::placeholder("gx3", {3, 4});
  Graph g = graph_of({{"y", x.mul(2.0)}}, {x});
  EXPECT_EQ(error_of([&] { gradient_graph(g, {"gx3"}); }),
            "AssertionError: backward can only be called for scalar tensors, but it has shape (3, 4))");
}

TEST(Grad, input_that_does_not_reach_the_loss_gets_zeros_and_a_note) {
  Tensor x = Tensor::placeholder("gx4", {3}), y = Tensor::placeholder("gy4", {2});
  Graph g = graph_of({{"loss", x.sum()}}, {x, y});
  std::vector<std::string> notes;
  Graph out = gradient_graph(g, {"gy4"}, "", &notes);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "input 'gy4' does not reach the loss: its gradient is zeros");
  const LazyNode& grad = out.nodes[out.outputs.back().node];
  EXPECT_EQ(out.outputs.back().name, "grad_gy4");
  EXPECT_EQ(grad.shape, (Shape{2}));
}

TEST(Grad, unknown_names_are_errors) {
  Tensor x = Tensor::placeholder("gx5", {3});
  Graph g = graph_of({{"loss", x.sum()}}, {x});
  EXPECT_EQ(error_of([&] { gradient_graph(g, {"nope"}); }), "ValueError: no input or state named 'nope'");
  EXPECT_EQ(error_of([&] { gradient_graph(g, {"gx5"}, "nope"); }), "ValueError: no output named 'nope'");
}

namespace {
// Constant int32 buffers in a graph: what scatter adjoints compare (index map, range).
size_t index_maps(const Graph& g) {
  size_t n = 0;
  for (const LazyNode& node : g.nodes) n += node.op == Op::COPY && node.dtype == DType::Int32;
  return n;
}
} // namespace

TEST(Grad, window_views_take_each_movement_ops_adjoint_not_an_index_map) {
  // conv2d's input gradient: pad, expand, reshape, shrink and permute views, each with its own
  // adjoint (function.py's), costing what the forward costs
  Tensor x = Tensor::placeholder("gx6", {1, 2, 6, 6}), w = Tensor::placeholder("gw6", {3, 2, 3, 3});
  Graph g = gradient_graph(
      graph_of({{"loss", x.conv2d(w, std::nullopt, 1, IntOrTuple(1), IntOrTuple(1), IntOrTuple(1)).sum()}},
               {x, w}),
      {"gx6", "gw6"});
  EXPECT_EQ(index_maps(g), 0u);
}

TEST(Grad, a_view_whose_history_does_not_replay_falls_back_to_the_index_map) {
  // made by hand (a traced view would be interned with its true history): x padded to (6, 6),
  // with a history that claims a shrink
  auto node = [](Op op, Shape shape, std::vector<NodeId> srcs, ShapeTracker st) {
    LazyNode n{op, DType::Float32, shape, std::move(srcs), {}, std::move(st), {}, {}};
    return n;
  };
  Graph g;
  g.nodes.push_back(node(Op::EMPTY, {4, 4}, {}, ShapeTracker::from_shape({4, 4})));
  g.nodes[0].name = "gx7";
  g.nodes.push_back(node(Op::VIEW, {6, 6}, {0}, ShapeTracker::from_shape({4, 4}).pad({{1, 1}, {1, 1}})));
  g.nodes[1].moves = {{MoveOp::Shrink, {0, 1, 0, 1}}};
  g.nodes.push_back(node(Op::SUM, {1, 1}, {1}, ShapeTracker::from_shape({1, 1})));
  g.nodes[2].arg = Axes{0, 1};
  g.nodes.push_back(node(Op::VIEW, {}, {2}, ShapeTracker::from_shape({1, 1}).reshape({})));
  g.inputs = {{"gx7", 0, false}};
  g.outputs = {{"loss", 3}};
  Graph out = gradient_graph(g, {"gx7"});
  EXPECT_EQ(index_maps(out), 2u); // the index map and the range it is compared with
}
