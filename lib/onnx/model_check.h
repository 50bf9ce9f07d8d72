// onnx layer, the model's structure checked before the importer reads it: protobuf's accessors
// abort the process on an index past a repeated field (`proto.output(0)` of a node with no
// outputs), so every count and range the importer relies on is checked here first, with one
// error naming the node.
#pragma once
#include <cstdint>
#include <string>

#include "util/printable.h"

namespace onnx {
class ModelProto;
}

namespace tg {

// The newest ai.onnx opset tg accepts (ONNX 1.18 defines 23; later ones only add to them).
inline constexpr int64_t kNewestOnnxOpset = 30;

void check_onnx_model(const onnx::ModelProto& model, const std::string& file);

} // namespace tg
