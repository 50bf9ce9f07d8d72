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
// The same, keeping what it parsed: nullptr when `bytes` are not an ONNX model.
struct OnnxModel;
std::shared_ptr<const OnnxModel> parse_onnx(std::string_view bytes);
// The model's graph. An op tg does not import, a symbolic input dimension or external data is
// one clear error naming it (and the node). `frozen` binds graph inputs to constants while
// tracing (tg-trace --arg NAME=FILE.npy): ONNX passes shapes, axes and pads as tensors, which
// tg must know to build the graph.
Graph trace_onnx(const std::string& bytes, const std::string& filename,
                 const std::map<std::string, HostBuffer>& frozen = {});
// From a parsed model, whose initializers' bytes the graph's constants then share.
Graph trace_onnx(const std::shared_ptr<const OnnxModel>& model, const std::string& filename,
                 const std::map<std::string, HostBuffer>& frozen = {});

} // namespace tg
