#include "graph/model_ops.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <fstream>

#include "graph/onnx_dtype.h"
#include "ir/error.h"

namespace tunectl::graph {

namespace {

onnx::ModelProto read_model(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  user_check(in.good(), "cannot open ONNX model ", path);
  onnx::ModelProto model;
  user_check(model.ParseFromIstream(&in), "cannot parse ONNX model ", path, " (truncated or not an ONNX file)");
  return model;
}

bool has_core_element_type(const onnx::TypeProto& type) {
  if (type.has_tensor_type()) {
    const std::optional<ir::DType> t = dtype_from_onnx_code(type.tensor_type().elem_type());
    return t.has_value() && *t != ir::DType::Float16;  // stored by tunectl, but no core type
  }
  if (type.has_sequence_type()) return has_core_element_type(type.sequence_type().elem_type());
  if (type.has_optional_type()) return has_core_element_type(type.optional_type().elem_type());
  return false;  // maps, sparse tensors
}

}  // namespace

std::vector<std::string> model_op_types(const std::string& path) {
  const onnx::ModelProto model = read_model(path);
  std::vector<std::string> ops;
  for (const auto& node : model.graph().node()) {
    const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    std::string op = default_domain ? node.op_type() : node.domain() + ":" + node.op_type();
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(std::move(op));
  }
  return ops;
}

bool model_has_core_types(const std::string& path) {
  const onnx::ModelProto model = read_model(path);
  for (const auto* values : {&model.graph().input(), &model.graph().output()})
    for (const auto& value : *values)
      if (!has_core_element_type(value.type())) return false;
  return true;
}

}  // namespace tunectl::graph
