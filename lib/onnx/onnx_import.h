// onnx layer: an ONNX model as a graph artifact (`tg-trace model.onnx`), as tinygrad's
// extra/onnx.py builds one from its Tensor API: graph inputs become named inputs, initializers
// constant buffers, each node the Tensor ops of its ONNX semantics, graph outputs named outputs.
// Parsed with ONNX's own protobuf classes (Debian's libonnx-dev). Each op's lowering is a
// function of a Node (node.h) in a table by name, one file per family (ops_*.cpp); values
// known while importing (initializers, Shape, and what is computed from them) live in known.h.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "io/host_buffer.h"
#include "lazy/lazy.h"

namespace tg {

// Whether `bytes` parse as an ONNX ModelProto with a graph: tg-trace picks the importer by
// content, not by the file's name.
bool looks_like_onnx(std::string_view bytes);
// The same, keeping what it parsed: nullptr when `bytes` are not an ONNX model. With an `owner`
// (what keeps `bytes` alive: the buffer tg-trace read the file into), initializers' raw data
// is not copied: the graph's constants point into `bytes`.
struct OnnxModel;
std::shared_ptr<const OnnxModel> parse_onnx(std::string_view bytes,
                                            const std::shared_ptr<const void>& owner = nullptr);
// The model's graph. An op tg does not import, a symbolic input dimension or external data is
// one clear error naming it (and the node); a symbolic input dimension needs a size in `dims`. `frozen` binds
// graph inputs to constants while tracing (tg-trace --arg NAME=FILE.npy): ONNX passes shapes, axes and pads
// as tensors, which tg must know to build the graph.
//
// `dims` sizes the inputs' symbolic dimensions (tg-trace --dim NAME=N or NAME=LO..HI): a fixed
// size, or a range that makes the dimension a program variable (tinygrad's Variable) bound to
// LO, so that one program serves every size (tg-run --var NAME=V).
struct DimRange {
  int64_t lo = 0, hi = 0; // lo == hi: a fixed size
};
Graph trace_onnx(const std::string& bytes, const std::string& filename,
                 const std::map<std::string, HostBuffer>& frozen = {},
                 const std::map<std::string, DimRange>& dims = {});
// From a parsed model, whose initializers' bytes the graph's constants then share.
Graph trace_onnx(const std::shared_ptr<const OnnxModel>& model, const std::string& filename,
                 const std::map<std::string, HostBuffer>& frozen = {},
                 const std::map<std::string, DimRange>& dims = {});
// NAME=N or NAME=LO..HI (tg-trace --dim), checked: 0 < LO <= HI <= INT32_MAX.
std::pair<std::string, DimRange> parse_dim_range(const std::string& text);

} // namespace tg
