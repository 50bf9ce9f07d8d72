#include "onnx/model_check.h"

#include <cstdio>

#include <onnx/onnx_pb.h>

#include "util/error.h"
#include "util/printable.h"

namespace tg {

namespace {

void check_graph(const onnx::GraphProto& g, const std::string& file, int depth);

void check_node(const onnx::NodeProto& node, const std::string& file, int depth) {
  auto where = [&] {
    return file + ": node '" + printable(node.name()) + "' (" + printable(node.op_type()) + ")";
  };
  if (node.op_type().empty()) fail("ValueError", where() + ": has no op_type");
  if (node.output_size() == 0) fail("ValueError", where() + ": has no outputs (every ONNX node has one)");
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.has_g()) check_graph(a.g(), file, depth + 1);
    for (const onnx::GraphProto& g : a.graphs()) check_graph(g, file, depth + 1);
  }
}

void check_graph(const onnx::GraphProto& g, const std::string& file, int depth) {
  // subgraphs nest through attributes; a model can nest them as deep as it likes
  if (depth > 64) fail("ValueError", file + ": subgraphs nested more than 64 deep");
  for (const onnx::ValueInfoProto& v : g.input())
    if (v.name().empty()) fail("ValueError", file + ": a graph input has no name");
  for (const onnx::ValueInfoProto& v : g.output())
    if (v.name().empty()) fail("ValueError", file + ": a graph output has no name");
  for (const onnx::TensorProto& t : g.initializer())
    if (t.name().empty()) fail("ValueError", file + ": an initializer has no name");
  for (const onnx::NodeProto& node : g.node()) check_node(node, file, depth);
}

} // namespace

void check_onnx_model(const onnx::ModelProto& model, const std::string& file) {
  if (!model.has_graph()) fail("ValueError", file + ": the model has no graph");
  for (const onnx::OperatorSetIdProto& o : model.opset_import()) {
    bool onnx_domain = o.domain().empty() || o.domain() == "ai.onnx";
    int64_t newest = onnx_domain ? kNewestOnnxOpset : INT32_MAX;
    if (o.version() < 1 || o.version() > newest)
      fail("ValueError", file + ": opset " + std::to_string(o.version()) + " of domain '" +
                             printable(o.domain().empty() ? "ai.onnx" : o.domain()) + "' is outside 1.." +
                             std::to_string(newest));
  }
  check_graph(model.graph(), file, 0);
}

} // namespace tg
