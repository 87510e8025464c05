#include "graph/model_ops.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <fstream>

#include "ir/error.h"

namespace tunectl::graph {

std::vector<std::string> model_op_types(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  user_check(in.good(), "cannot open ONNX model ", path);
  onnx::ModelProto model;
  user_check(model.ParseFromIstream(&in), "cannot parse ONNX model ", path, " (truncated or not an ONNX file)");
  std::vector<std::string> ops;
  for (const auto& node : model.graph().node()) {
    const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    std::string op = default_domain ? node.op_type() : node.domain() + ":" + node.op_type();
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(std::move(op));
  }
  return ops;
}

}  // namespace tunectl::graph
