// schedule layer: a graph becomes kernels to launch in order over a table of buffers, as
// tinygrad 0.9.1's engine/schedule.py (fusion, realize points).
#pragma once
#include <string>
#include <vector>

#include "lazy/lazy.h"

namespace tg {

// Constant: data known at trace time (Tensor([1, 2, 3])), carried in the artifact.
enum class BufferRole : uint8_t { Input, Output, Intermediate, Constant };

struct BufferInfo {
  int id;
  DType dtype;
  int64_t size; // elements
  BufferRole role;
  std::string name; // input/output name; "" for intermediates
  std::vector<uint8_t> data; // Constant only: the initial contents, size * itemsize bytes
};

struct ScheduleKernel {
  std::vector<LazyOpPtr> ast; // STORE roots; MemBuffer idx i refers to bufs[i]
  std::vector<int> bufs;      // BufferInfo ids: outputs first, then inputs
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
};

Schedule schedule_graph(const Graph& graph);

} // namespace tg
