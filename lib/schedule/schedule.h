// schedule layer: a graph becomes kernels to launch in order over a table of buffers, as
// tinygrad 0.9.1's engine/schedule.py (fusion, realize points).
#pragma once
#include <string>
#include <vector>

#include "lazy/lazy.h"

namespace tg {

// Constant: data known at trace time (Tensor([1, 2, 3])), carried in the artifact.
// State: kept across runs of the program (Tensor.realize()); init kernels compute it first.
enum class BufferRole : uint8_t { Input, Output, Intermediate, Constant, State };

struct BufferInfo {
  int id;
  DType dtype;
  int64_t size; // elements
  BufferRole role;
  std::string name; // input/output/state name; a constant's safetensors key; "" for intermediates
  Blob data;        // Constant only: the initial contents, size * itemsize bytes (shared, never copied)
  // A named constant's tensor shape (what safe_load read), so a C export can check a file's
  // tensor against it; empty for every other buffer.
  std::vector<int64_t> dims{};
  // The device it lives on ("CLANG:1"); "" for the program's default device.
  std::string device{};
};

struct ScheduleKernel {
  std::vector<LazyOpPtr> ast; // STORE roots; MemBuffer idx i refers to bufs[i]
  std::vector<int> bufs;      // BufferInfo ids: outputs first, then inputs
  bool init = false;          // computes a state's first value: skipped when states are loaded
  std::string name;           // tinygrad's name before optimizing ("r_64_8"): codegen's name_kernels
  std::string device{};       // its outputs' device; "" for the default (a COPY runs on its target)
};

struct NamedBuffer {
  std::string name;
  int buffer;
  Shape shape;
  DType dtype;
};

struct Schedule {
  std::vector<BufferInfo> buffers;
  std::vector<ScheduleKernel> kernels;
  std::vector<NamedBuffer> inputs;
  std::vector<NamedBuffer> outputs;
  std::vector<NamedBuffer> states; // in the graph's order; init kernels come first
  std::vector<VarBinding> vars;    // the graph's symbolic variables
};

struct ScheduleOptions {
  // Realize an elementwise value that several kernels would each compute again (a recurrence's
  // state), where it is large (schedule.cpp, share_recomputed), and let a reduce's kernel write
  // where its epilogue's paths meet (reconverge); false: fuse exactly as tinygrad 0.9.1 does
  // (tg-schedule --recompute).
  bool share = true;
};

Schedule schedule_graph(const Graph& graph, const ScheduleOptions& options = {});

} // namespace tg
