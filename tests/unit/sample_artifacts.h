// Small artifacts that use every field: a graph, a schedule and a program consistent with
// each other, for the artifact round-trip and validation tests to edit.
#pragma once
#include <cmath>
#include <optional>

#include "io/artifact.h"

namespace tg::samples {

inline View view(Shape shape, Shape strides, int64_t offset = 0, std::optional<Mask> mask = std::nullopt,
                 bool contiguous = false) {
  return View{std::move(shape), std::move(strides), offset, std::move(mask), contiguous};
}
inline ShapeTracker st_of(std::vector<View> views) { return ShapeTracker{std::move(views)}; }
inline ShapeTracker contiguous(Shape shape) {
  Shape strides(shape.size(), 1);
  for (int i = int(shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
  return st_of({view(shape, strides, 0, std::nullopt, true)});
}

inline std::vector<uint8_t> bytes_of(std::initializer_list<int> xs) {
  std::vector<uint8_t> out;
  for (int x : xs) out.push_back(uint8_t(x));
  return out;
}

inline LazyNode node(Op op, DType dt, Shape shape, std::vector<NodeId> srcs = {}, LazyArg arg = {}) {
  LazyNode n{op, dt, shape, std::move(srcs), std::move(arg), contiguous(shape), "", {}};
  return n;
}

inline Graph sample_graph() {
  Graph g;
  LazyNode x = node(Op::EMPTY, DType::Float32, {4, 8});
  x.name = "x";
  g.nodes.push_back(x); // 0
  LazyNode lit = node(Op::COPY, DType::Int32, {3});
  lit.data = bytes_of({1, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff});
  g.nodes.push_back(lit);                                                                      // 1
  g.nodes.push_back(node(Op::LOAD_CONST, DType::Float32, {}, {}, Scalar::of_float(INFINITY))); // 2
  LazyNode perm = node(Op::VIEW, DType::Float32, {8, 4}, {0});
  perm.st =
      st_of({view({4, 8}, {8, 1}, 0, std::nullopt, true), view({8, 4}, {1, 8}, 2, Mask{{0, 8}, {1, 3}})});
  perm.moves = {{MoveOp::Permute, {1, 0}}, {MoveOp::Pad, {0, 0, -1, 1}}};
  g.nodes.push_back(perm); // 3
  LazyNode bcast = node(Op::VIEW, DType::Float32, {8, 4}, {2});
  bcast.st = st_of({view({8, 4}, {0, 0})});
  g.nodes.push_back(bcast);                                                                     // 4
  g.nodes.push_back(node(Op::ADD, DType::Float32, {8, 4}, {3, 4}));                             // 5
  g.nodes.push_back(node(Op::SUM, DType::Float32, {1, 4}, {5}, Axes{0}));                       // 6
  g.nodes.push_back(node(Op::CAST, DType::Float16, {1, 4}, {6}, DType::Float16));               // 7
  g.nodes.push_back(node(Op::LOAD_CONST, DType::Int64, {}, {}, Scalar::of_int(-5)));            // 8
  g.nodes.push_back(node(Op::LOAD_CONST, DType::Bool, {}, {}, Scalar::of_bool(true)));          // 9
  g.nodes.push_back(node(Op::LOAD_CONST, DType::Float64, {}, {}, Scalar::of_float(-INFINITY))); // 10
  g.nodes.push_back(node(Op::LOAD_CONST, DType::Float32, {}, {}, Scalar::of_float(NAN)));       // 11
  g.nodes.push_back(node(Op::LOAD_CONST, DType::Float64, {}, {}, Scalar::of_float(0.1)));       // 12
  g.nodes.push_back(node(Op::LOAD_CONST, DType::UInt64, {}, {}, Scalar::of_int(INT64_MIN)));    // 13
  for (int d = 0; d < kNumDTypes; ++d) { // every dtype, with a literal of its size
    LazyNode n = node(Op::COPY, DType(d), {2});
    std::vector<uint8_t> bytes;
    for (int i = 0; i < 2 * itemsize(DType(d)); ++i) bytes.push_back(uint8_t(i * 37 + d));
    n.data = std::move(bytes);
    n.name = "";
    g.nodes.push_back(n);
  }
  // a copy of the sum onto another device (a sharded program's COPY)
  LazyNode copy = node(Op::COPY, DType::Float32, {1, 4}, {6}, Scalar::of_int(3));
  copy.device = "CLANG:1";
  g.nodes.push_back(copy);
  g.inputs = {{"x", 0, true}};
  g.outputs = {{"out", 7}, {"lit", 1}, {"copied", NodeId(g.nodes.size() - 1)}};
  return g;
}

inline MemBuffer mem(int idx, DType dt, ShapeTracker st) { return MemBuffer{idx, dt, std::move(st)}; }

inline Schedule sample_schedule() {
  Schedule s;
  s.buffers = {
      {0, DType::Float32, 4, BufferRole::Output, "out", {}},
      {1, DType::Float32, 32, BufferRole::Input, "x", {}},
      {2, DType::Int32, 3, BufferRole::Constant, "table", bytes_of({1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0})},
      {3, DType::Float16, 4, BufferRole::Intermediate, "", {}},
      {4, DType::Int32, 3, BufferRole::Intermediate, "", {}},
  };
  s.buffers[2].dims = {3}; // a named constant: safe_load's key and shape
  // kernel 0: out[1,4] = sum over axis 0 of x.T * x.T + where-masked nan constant
  LazyOpPtr load = LazyOp::make(Op::LOAD, {}, mem(1, DType::Float32, st_of({view({8, 4}, {1, 8})})));
  LazyOpPtr sq = LazyOp::make(Op::MUL, {load, load});
  ConstBuffer nan_const{Scalar::of_float(NAN), DType::Float32,
                        st_of({view({8, 4}, {0, 0}, 0, Mask{{0, 8}, {1, 2}}), view({8, 4}, {4, 1})})};
  LazyOpPtr c = LazyOp::make(Op::CONST, {}, nan_const);
  LazyOpPtr add = LazyOp::make(Op::ADD, {sq, c});
  LazyOpPtr sum = LazyOp::make(Op::SUM, {add}, Axes{0});
  LazyOpPtr store = LazyOp::make(Op::STORE, {sum}, mem(0, DType::Float32, contiguous({1, 4})));
  // kernel 1: two stores
  LazyOpPtr load_out = LazyOp::make(Op::LOAD, {}, mem(2, DType::Float32, contiguous({4})));
  LazyOpPtr cast = LazyOp::make(Op::CAST, {load_out}, DType::Float16);
  LazyOpPtr store_a = LazyOp::make(Op::STORE, {cast}, mem(0, DType::Float16, contiguous({4})));
  LazyOpPtr load_c = LazyOp::make(Op::LOAD, {}, mem(3, DType::Int32, contiguous({3})));
  ConstBuffer seven{Scalar::of_int(7), DType::Int32, st_of({view({3}, {0})})};
  LazyOpPtr add_c = LazyOp::make(Op::ADD, {load_c, LazyOp::make(Op::CONST, {}, seven)});
  LazyOpPtr store_b = LazyOp::make(Op::STORE, {add_c}, mem(1, DType::Int32, contiguous({3})));
  s.kernels = {{{store}, {0, 1}, false, {}}, {{store_a, store_b}, {3, 4, 0, 2}, false, {}, "CLANG:2"}};
  s.buffers[3].device = s.buffers[4].device = "CLANG:2";
  s.inputs = {{"x", 1, {4, 8}, DType::Float32}};
  s.outputs = {{"out", 0, {1, 4}, DType::Float32}};
  return s;
}

inline Program sample_program() {
  Schedule s = sample_schedule();
  Program p;
  p.device = "CLANG";
  p.buffers = s.buffers;
  p.kernels = {
      {"r_4_8",
       "void r_4_8(float* restrict data0, const float* restrict data1, const int core_start, const int "
       "core_end) {\n  /* \"µ\" \\ */\n}\n",
       {0, 1},
       {16, 128},
       {"core_start", "core_end"},
       {4, 1, 1},
       {1, 1, 1}},
      {"E_4n1",
       "void E_4n1(half* data0, int* data1, const float* data2, const int* data3) {}\n",
       {3, 4, 0, 2},
       {8, 0, 16, 12},
       {},
       {2, 3},
       {1}},
  };
  p.kernels[1].device = "CLANG:2";
  ProgramKernel random;
  random.name = "custom_random";
  random.bufs = {1};
  random.extents = {128};
  random.custom = "random";
  random.seed = 1234;
  p.kernels.push_back(random);
  p.inputs = s.inputs;
  p.outputs = s.outputs;
  return p;
}

} // namespace tg::samples
