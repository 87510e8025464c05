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

// True when every input and output of the model's main graph holds one of
// the core element types (float32/64, the integer types, bool), looking
// through sequence and optional types to their elements: the node tests the
// conformance target counts (float16, bfloat16, float8, int4 and strings are
// not core types, though tunectl stores float16). UserError as above.
bool model_has_core_types(const std::string& path);

}  // namespace tunectl::graph
