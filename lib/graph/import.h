// graph::import: ONNX file -> Graph. Parses the protobuf (inline and external
// data; external paths must stay inside the model's folder), runs ONNX's own
// shape inference after pinning symbolic input dimensions, and converts every
// node, initializer and value to tunectl's Graph. A malformed or truncated
// file, an unknown operator, an unsupported attribute or dtype, or a shape
// left symbolic is a UserError naming the node, op type and what is missing.
// protobuf and ONNX headers stay inside this module's .cpp files.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace tunectl::graph {

struct ImportOptions {
  // Pins the dimensions of graph inputs: name -> full shape (from
  // `--input-shape name=1x3x224x224`). Needed when an input has symbolic dims.
  std::map<std::string, std::vector<int64_t>> input_shapes;
};

Graph import_onnx(const std::string& path, const ImportOptions& options = {});

// Parses "name=1x3x224x224" into an ImportOptions entry; UserError when malformed.
void parse_input_shape(const std::string& spec, ImportOptions& options);

}  // namespace tunectl::graph
