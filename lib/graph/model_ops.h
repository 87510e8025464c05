// A look at an ONNX file's operators without importing it: the op types of
// its main graph's nodes, so that the conformance suite can tell the node
// tests whose every operator tunectl supports (graph::is_supported_op) from
// the rest before running them. protobuf stays inside the .cpp.
#pragma once

#include <string>
#include <vector>

namespace tunectl::graph {

// Op types of the model's top-level nodes, in node order with repeats
// removed. Operators outside the default ONNX domain come back as
// "domain:OpType", which no supported op name matches. UserError when the
// file cannot be read or parsed.
std::vector<std::string> model_op_types(const std::string& path);

}  // namespace tunectl::graph
