#include "graph/operator_table.h"

#include <algorithm>

#include <onnx/defs/schema.h>

#include "graph/import.h"
#include "graph/onnx_opset_compat.h"

namespace tunectl::graph {

namespace {

OperatorInfo describe(const std::string& op, OpClass cls) {
  OperatorInfo info{op, cls, 0, kMaxOpset};
  const int library_max = onnx_library_max_opset();
  if (auto it = ops_newer_than_library().find(op); it != ops_newer_than_library().end()) {
    info.first_opset = it->second;
    return info;
  }
  for (int v = 1; v <= library_max && info.first_opset == 0; ++v)
    if (const onnx::OpSchema* s = onnx::OpSchemaRegistry::Schema(op, v, onnx::ONNX_DOMAIN)) info.first_opset = s->SinceVersion();
  internal_check(info.first_opset > 0, "operator table: ONNX has no schema for ", op);
  const onnx::OpSchema* latest = onnx::OpSchemaRegistry::Schema(op, library_max, onnx::ONNX_DOMAIN);
  if (latest && latest->Deprecated()) info.last_opset = latest->SinceVersion() - 1;
  return info;
}

}  // namespace

std::vector<OperatorInfo> supported_operators() {
  std::vector<OperatorInfo> ops;
#define TUNECTL_DESCRIBE_OP(op, cls) ops.push_back(describe(#op, OpClass::cls));
  TUNECTL_ONNX_OPS(TUNECTL_DESCRIBE_OP)
#undef TUNECTL_DESCRIBE_OP
  std::sort(ops.begin(), ops.end(), [](const OperatorInfo& a, const OperatorInfo& b) { return a.op < b.op; });
  return ops;
}

const char* to_string(OpClass cls) {
  switch (cls) {
    case OpClass::Anchor: return "Anchor";
    case OpClass::Elementwise: return "Elementwise";
    case OpClass::Injective: return "Injective";
    case OpClass::Shape: return "Shape";
    case OpClass::Container: return "Container";
  }
  internal_fail("bad op class");
}

}  // namespace tunectl::graph
