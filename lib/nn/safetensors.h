// nn layer, safetensors: tinygrad 0.9.1's nn/state.py safe_load / safe_save on the real
// format — an 8-byte little-endian header length, a JSON header (name → {dtype, shape,
// data_offsets}, optional "__metadata__" of strings), then the data, little-endian C order.
// The reader checks everything and throws tg::Error naming the file; it never trusts offsets.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dtype/dtype.h"

namespace tg::nn {

struct SafeTensor {
  std::string name;
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data; // prod(shape) * itemsize bytes, little-endian C order
};

struct SafeFile {
  std::vector<SafeTensor> tensors;                           // in header order
  std::vector<std::pair<std::string, std::string>> metadata; // "__metadata__", if any
};

std::string_view safetensors_dtype_name(DType dt); // "F32", "BF16", "BOOL", ...
std::optional<DType> safetensors_dtype(std::string_view name);

// Parses a whole file's bytes; `filename` only names the file in errors.
SafeFile parse_safetensors(const std::string& bytes, const std::string& filename);
// Serializes like tinygrad's safe_save: compact JSON in the given order, offsets packed in
// order, the header padded with spaces to a multiple of 8 bytes.
std::string write_safetensors(const SafeFile& file);

SafeFile load_safetensors(const std::string& path);
void save_safetensors(const SafeFile& file, const std::string& path);

} // namespace tg::nn
