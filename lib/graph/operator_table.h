// The operators tunectl reads, with the opsets it reads them in, from the
// converters' own list (TUNECTL_ONNX_OPS) and ONNX's schema registry: what
// `tunectl ops` prints and the README's operator table is generated from.
#pragma once

#include <string>
#include <vector>

#include "graph/convert.h"

namespace tunectl::graph {

struct OperatorInfo {
  std::string op;
  OpClass cls;
  // Opsets of the default domain: from the operator's first version in ONNX
  // to kMaxOpset, or to the last opset before ONNX removed it.
  int first_opset = 0;
  int last_opset = 0;
};

// Every supported operator, in alphabetical order.
std::vector<OperatorInfo> supported_operators();

// "Anchor", "Elementwise", "Injective" or "Shape".
const char* to_string(OpClass cls);

}  // namespace tunectl::graph
