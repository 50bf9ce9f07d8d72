// What the readers refuse that a structure-aware fuzzer found reaching later stages (issue 29):
// each node kind's sources and argument, dtype rules, what a kernel AST must be to compile, and
// a program's kernels against their own sources.
#include <gtest/gtest.h>

#include "codegen/kernel_interface.h"
#include "error_of.h"
#include "io/artifact.h"
#include "io/known_programs.h"
#include "sample_artifacts.h"

using namespace tg;
using namespace tg::samples;

namespace {

std::string graph_error(const Graph& g) {
  return message_of([&] { read_graph(write_graph(g)); });
}
std::string schedule_error(const Schedule& s) {
  return message_of([&] { read_schedule(write_schedule(s)); });
}
std::string program_error(const Program& p) {
  return message_of([&] { read_program(write_program(p)); });
}

} // namespace

TEST(GraphNodeSpec, a_constant_has_no_sources) {
  Graph g = sample_graph();
  g.nodes[2].srcs = {1};
  EXPECT_EQ(graph_error(g), "invalid graph artifact: node 2 (LoadOps.CONST): needs 0 sources, has 1");
}
TEST(GraphNodeSpec, a_constant_needs_its_value) {
  Graph g = sample_graph();
  g.nodes[2].arg = {};
  EXPECT_EQ(graph_error(g),
            "invalid graph artifact: node 2 (LoadOps.CONST): needs a constant, has no argument");
}
TEST(GraphNodeSpec, contiguous_needs_a_source) {
  Graph g = sample_graph();
  g.nodes.push_back(node(Op::CONTIGUOUS, DType::Float32, {4, 8}));
  EXPECT_EQ(graph_error(g), "invalid graph artifact: node 28 (LoadOps.CONTIGUOUS): needs 1 source, has 0");
}
TEST(GraphNodeSpec, a_cast_needs_its_dtype) {
  Graph g = sample_graph();
  g.nodes[7].arg = {};
  EXPECT_EQ(graph_error(g), "invalid graph artifact: node 7 (UnaryOps.CAST): needs a dtype, has no argument");
}
TEST(GraphNodeSpec, kernel_ops_are_not_graph_nodes) {
  Graph g = sample_graph();
  g.nodes[2].op = Op::STORE;
  EXPECT_EQ(graph_error(g),
            "invalid graph artifact: node 2 (BufferOps.STORE): is a kernel op, not a graph node");
}
TEST(GraphDTypes, sources_agree_with_the_result) {
  Graph g = sample_graph();
  g.nodes[5].dtype = DType::Int32;
  EXPECT_EQ(
      graph_error(g),
      "invalid graph artifact: node 5 (BinaryOps.ADD): has a float32 source where its operands are int32");
}
TEST(GraphDTypes, bit_ops_refuse_floats) {
  Graph g = sample_graph();
  g.nodes[5].op = Op::XOR;
  EXPECT_EQ(graph_error(g),
            "invalid graph artifact: node 5 (BinaryOps.XOR): needs int or bool operands, has float32");
}

TEST(KernelAst, a_store_writes_each_element_once) {
  Schedule s = sample_schedule();
  LazyOpPtr load = LazyOp::make(Op::LOAD, {}, mem(1, DType::Float32, contiguous({8, 4})));
  s.kernels[0].ast = {LazyOp::make(Op::STORE, {load}, mem(0, DType::Float32, st_of({view({8, 4}, {0, 1})})))};
  EXPECT_EQ(schedule_error(s),
            "invalid schedule artifact: kernel 0 BufferOps.STORE: stores through stride 0 on "
            "dimension 0 of size 8: one element would be written 8 times");
  LazyOpPtr square = LazyOp::make(Op::LOAD, {}, mem(1, DType::Float32, contiguous({2, 2})));
  s.kernels[0].ast = {
      LazyOp::make(Op::STORE, {square}, mem(0, DType::Float32, st_of({view({2, 2}, {1, 1})})))};
  EXPECT_EQ(
      schedule_error(s),
      "invalid schedule artifact: kernel 0 BufferOps.STORE: stores through a view whose dimensions overlap");
}
TEST(KernelAst, every_listed_buffer_is_used) {
  Schedule s = sample_schedule();
  s.buffers.push_back({5, DType::Float32, 4, BufferRole::Intermediate, "", {}});
  s.kernels[0].bufs.push_back(5);
  EXPECT_EQ(schedule_error(s),
            "invalid schedule artifact: kernel 0: lists buffer 5 (index 2), which no LOAD or STORE uses");
}
TEST(BufferTable, dims_belong_to_a_named_constant_and_multiply_to_its_size) {
  const std::string why =
      "invalid schedule artifact: buffer 2: dims belong to a named constant and multiply to its size";
  Schedule s = sample_schedule();
  s.buffers[2].dims = {2, 2};
  EXPECT_EQ(schedule_error(s), why);
  s = sample_schedule();
  s.buffers[2].name.clear();
  EXPECT_EQ(schedule_error(s), why);
  s = sample_schedule();
  s.buffers[2].dims = {1, 3, int64_t(1) << 62};
  EXPECT_EQ(schedule_error(s), why);
  s = sample_schedule();
  s.buffers[3].dims = {4};
  EXPECT_EQ(schedule_error(s), "invalid schedule artifact: buffer 3: dims belong to a named constant and "
                               "multiply to its size");
}
TEST(KernelAst, a_load_reads_its_buffer_as_its_dtype) {
  Schedule s = sample_schedule();
  LazyOpPtr load = LazyOp::make(Op::LOAD, {}, mem(1, DType::Float64, contiguous({1, 4})));
  s.kernels[0].ast = {LazyOp::make(Op::STORE, {LazyOp::make(Op::CAST, {load}, DType::Float32)},
                                   mem(0, DType::Float32, contiguous({1, 4})))};
  EXPECT_EQ(
      schedule_error(s),
      "invalid schedule artifact: kernel 0 BufferOps.LOAD: reads buffer 1 as float64, which holds float32");
}
TEST(KernelAst, a_random_kernel_needs_a_view) {
  Schedule s = sample_schedule();
  ConstBuffer seed{Scalar::of_int(3), DType::Float32, ShapeTracker{}};
  s.kernels[0].ast = {LazyOp::make(Op::CUSTOM, {}, seed)};
  s.kernels[0].bufs = {0};
  EXPECT_EQ(schedule_error(s), "invalid schedule artifact: kernel 0: shapetracker has no views");
}
TEST(KernelAst, casts_need_their_dtype) {
  Schedule s = sample_schedule();
  LazyOpPtr load = LazyOp::make(Op::LOAD, {}, mem(2, DType::Float32, contiguous({4})));
  s.kernels[1].ast[0] =
      LazyOp::make(Op::STORE, {LazyOp::make(Op::CAST, {load})}, mem(0, DType::Float16, contiguous({4})));
  EXPECT_EQ(schedule_error(s), "invalid schedule artifact: kernel 1 UnaryOps.CAST: needs a dtype argument");
}

TEST(KernelInterface, reads_c_opencl_cuda_and_llvm_signatures) {
  std::string why;
  auto c = kernel_interface("void E_4(float* restrict data0, const float* restrict data1, const int n) {}",
                            "E_4", why);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->buffer_written, (std::vector<bool>{true, false}));
  EXPECT_EQ(c->ints, 1);
  EXPECT_FALSE(c->groups);
  auto cl =
      kernel_interface("__kernel void E_5_4(__global float* data0, const __global float* data1) {\n"
                       "  int gidx0 = get_group_id(0); /* 5 */\n  int lidx1 = get_local_id(0); /* 4 */\n"
                       "  int lidx2 = get_local_id(1); /* 2 */\n}",
                       "E_5_4", why);
  ASSERT_TRUE(cl);
  EXPECT_EQ(*cl->groups, (std::array<int64_t, 3>{5, 1, 1}));
  EXPECT_EQ(*cl->local, (std::array<int64_t, 3>{4, 2, 1}));
  auto cuda = kernel_interface("extern \"C\" __global__ void __launch_bounds__(4) r_4(float* data0) {\n"
                               "  int gidx0 = blockIdx.y; /* 3 */\n}",
                               "r_4", why);
  ASSERT_TRUE(cuda);
  EXPECT_EQ(*cuda->groups, (std::array<int64_t, 3>{1, 3, 1}));
  auto ir = kernel_interface(
      "define void @r_4(ptr noalias %data0, ptr noalias readonly %data1, i32 %n) #0 {\n}", "r_4", why);
  ASSERT_TRUE(ir);
  EXPECT_EQ(ir->buffer_written, (std::vector<bool>{true, false}));
  EXPECT_EQ(ir->ints, 1);
}
TEST(KernelInterface, a_missing_function_says_so) {
  std::string why;
  EXPECT_FALSE(kernel_interface("void other(float* data0) {}", "E_4", why));
  EXPECT_EQ(why, "its source defines no function E_4");
  EXPECT_FALSE(kernel_interface("void E_4(float x) {}", "E_4", why));
  EXPECT_EQ(why, "parameter 1 of E_4 is neither a buffer nor an int");
}

TEST(ProgramAgainstSource, buffers_and_variables_match_the_signature) {
  Program p = sample_program();
  p.kernels[0].bufs.pop_back();
  p.kernels[0].extents.pop_back();
  EXPECT_EQ(program_error(p),
            "invalid program artifact: kernel 0 'r_4_8': its source takes 2 buffers and 2 ints, "
            "the program passes 1 buffers and 2 variables");
}
TEST(ProgramAgainstSource, a_grid_is_the_one_the_source_was_rendered_for) {
  Program p = sample_program();
  p.device = "GPU";
  p.kernels[1].src =
      "__kernel void E_4n1(__global half* data0, __global int* data1, const __global float* data2, "
      "const __global int* data3) {\n  int gidx0 = get_group_id(0); /* 2 */\n"
      "  int gidx1 = get_group_id(1); /* 3 */\n}\n";
  EXPECT_EQ(message_of([&] { read_program(write_program(p)); }), "(no error)");
  p.kernels[1].global_size = {2, 30};
  EXPECT_EQ(program_error(p),
            "invalid program artifact: kernel 1 'E_4n1': global_size (2, 30) is not the grid its "
            "source was rendered for (3 groups on axis 1)");
}
TEST(ProgramAgainstSource, kernel_names_are_distinct) {
  Program p = sample_program();
  p.kernels.push_back(p.kernels[0]);
  EXPECT_EQ(program_error(p), "invalid program artifact: kernel 3 'r_4_8': a second kernel of this name");
}
TEST(ProgramAgainstSource, an_intermediate_is_written_before_it_is_read) {
  Program p = sample_program();
  p.kernels[1].src = "void E_4n1(half* data0, const int* data1, const float* data2, const int* data3) {}\n";
  EXPECT_EQ(program_error(p),
            "invalid program artifact: kernel 1 'E_4n1': reads buffer 4 before any kernel writes "
            "it (a kernel dropped or moved?)");
}

TEST(KnownPrograms, the_fingerprint_covers_what_kernels_touch_not_constants) {
  Program p = sample_program();
  std::string base = program_fingerprint(p);
  Program q = p;
  q.kernels[0].extents[0] = 8;
  EXPECT_NE(program_fingerprint(q), base);
  q = p;
  q.kernels[1].global_size = {2, 4};
  EXPECT_NE(program_fingerprint(q), base);
  q = p;
  std::vector<uint8_t> bytes = q.buffers[2].data.to_vector();
  bytes[0] ^= 1; // a constant's value cannot make a kernel reach further
  q.buffers[2].data = std::move(bytes);
  EXPECT_EQ(program_fingerprint(q), base);
}
// Devices: a copy between devices reads a base of its own shape on another device; names are
// tinygrad's canonical ones.
TEST(GraphNodeSpec, a_copy_between_devices_reads_another_device) {
  Graph g = sample_graph();
  g.nodes.back().device = "";
  EXPECT_EQ(graph_error(g),
            "invalid graph artifact: node 27 (LoadOps.COPY): a copy between devices needs a base of "
            "its shape and dtype on another device, and no data");
  g = sample_graph();
  g.nodes.back().srcs = {3}; // a view
  EXPECT_NE(graph_error(g), "");
}
TEST(GraphNodeSpec, device_names_are_canonical) {
  for (const char* bad : {"clang:1", "CLANG:0", "CLANG:", ":1", "CLANG:1x", "CL ANG"}) {
    Graph g = sample_graph();
    g.nodes[5].device = bad;
    EXPECT_EQ(graph_error(g),
              std::string("invalid graph artifact: node 5 (BinaryOps.ADD): bad device name '") + bad + "'")
        << bad;
  }
}
