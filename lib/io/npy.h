// io layer, .npy: numpy's array file format (versions 1.0, 2.0, 3.0) to and from a HostBuffer.
// Reads little- and big-endian data in C or Fortran order (converted to little-endian C
// order); writes little-endian C order, version 1.0 (2.0 when the header needs it).
// dtypes: bool, int8..int64, uint8..uint64, float16, float32, float64; bfloat16 has no numpy
// dtype and is an error. Errors are tg::Error naming the file.
#pragma once
#include <string>
#include <string_view>

#include "io/host_buffer.h"

namespace tg {

HostBuffer read_npy(const std::string& path);
// `name` is what error messages call the input ("x.npy").
HostBuffer read_npy_bytes(std::string_view bytes, std::string_view name = "<npy>");
std::string npy_bytes(const HostBuffer& buffer, std::string_view name = "<npy>");

// A .npy file's header and where its data lies in `bytes` (which it does not own): for reading
// one slice of a large, memory-mapped array at a time (io/npy_steps.h).
struct NpyView {
  DType dtype;
  Shape shape;
  bool fortran_order = false; // with more than one dimension
  bool big_endian = false;
  const uint8_t* data = nullptr;
  size_t bytes = 0;
};
NpyView view_npy(std::string_view bytes, std::string_view name);
HostBuffer npy_view_to_buffer(const NpyView& view); // little-endian, C order
// Atomic: a failed write leaves no partial file.
void write_npy(const std::string& path, const HostBuffer& buffer);

} // namespace tg
