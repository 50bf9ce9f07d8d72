// The Graphviz views (--dot): well-formed DOT, one cluster per kernel named as the schedule names
// it, buffers between kernels with LOAD and STORE edges.
#include <gtest/gtest.h>

#include <algorithm>

#include "codegen/codegen.h"
#include "io/dot.h"
#include "lazy/lazybuffer.h"
#include "tensor/tensor.h"

using namespace tg;

namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

Graph softmax_graph() {
  Tensor x = Tensor::placeholder("dot_x", {4, 10});
  return extract_graph({{"y", x.softmax().lazydata()}}, {{"dot_x", x.lazydata().id(), false}});
}

} // namespace

TEST(Dot, graph_view_is_one_digraph_with_named_inputs_and_outputs) {
  std::string dot = graph_to_dot(softmax_graph());
  EXPECT_EQ(dot.rfind("digraph", 0), 0u);
  EXPECT_EQ(count(dot, "{"), count(dot, "}"));
  EXPECT_NE(dot.find("input dot_x"), std::string::npos);
  EXPECT_NE(dot.find("output y"), std::string::npos);
  EXPECT_NE(dot.find("->"), std::string::npos);
}

TEST(Dot, schedule_view_has_a_cluster_per_kernel_labelled_with_its_name) {
  Schedule s = schedule_graph(softmax_graph());
  name_kernels(s);
  std::string dot = schedule_to_dot(s);
  EXPECT_EQ(count(dot, "subgraph cluster"), s.kernels.size());
  for (const ScheduleKernel& k : s.kernels) EXPECT_NE(dot.find(k.name), std::string::npos) << k.name;
  EXPECT_EQ(count(dot, "{"), count(dot, "}"));
  // the kernels hand buffers on: every kernel stores one, so there are at least as many
  // edges as kernels beyond the loads
  EXPECT_GE(count(dot, "->"), 2 * s.kernels.size());
}

TEST(Dot, a_schedule_kernel_without_a_name_is_named_from_its_ast) {
  Schedule s = schedule_graph(softmax_graph());
  std::string unnamed = schedule_to_dot(s);
  name_kernels(s);
  EXPECT_EQ(unnamed, schedule_to_dot(s));
}
