// onnx layer, the model's bytes without its weights: protobuf copies every bytes field it
// parses (ResNet-50's 100 MB of raw_data into fresh pages), so the importer parses a copy of the
// model in which each large initializer's raw_data is empty, and takes those bytes from where
// they lie in the model file (whose pages the page cache already holds). A scan of the wire
// format (ModelProto.graph -> GraphProto.initializer -> TensorProto.raw_data) finds them.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tg {

struct StrippedModel {
  std::string bytes; // the model with each raw_data of at least min_bytes emptied
  // (initializer index in the parsed graph, its raw_data as it lies in the original bytes)
  std::vector<std::pair<int, std::string_view>> raw;
};

// nullopt when nothing is that large, or the bytes are not well-formed protobuf (the parser then
// reports it on the original bytes).
std::optional<StrippedModel> strip_raw_data(std::string_view model, size_t min_bytes);

} // namespace tg
