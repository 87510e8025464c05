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

// The opsets of the default domain tunectl reads; models of older ones are
// upgraded to kMinOpset with ONNX's version converter.
inline constexpr int kMinOpset = 6;
inline constexpr int kMaxOpset = 21;

struct ImportOptions {
  // Pins the dimensions of graph inputs: name -> full shape (from
  // `--input-shape name=1x3x224x224`). Needed when an input has symbolic dims.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Values of inputs that decide shapes (`--bind name=1,2,3`), as written;
  // graph::bound_values reads them in the input's dtype. A rank-1 input with a
  // symbolic dimension and no --input-shape takes their count as its length.
  std::map<std::string, std::vector<std::string>> bindings;
  // Shapes of the values a run is given (`run --input`): an input with
  // symbolic or unknown dimensions and no --input-shape takes its value's
  // shape (when the ranks agree); a dimension the model fixes is never
  // changed (a value that disagrees is refused when it is fed).
  std::map<std::string, std::vector<int64_t>> value_shapes;
};

Graph import_onnx(const std::string& path, const ImportOptions& options = {});

// Parses "name=1x3x224x224" into an ImportOptions entry; UserError when malformed.
void parse_input_shape(const std::string& spec, ImportOptions& options);
// Parses "name=1,2,3" into an ImportOptions binding; UserError when malformed.
void parse_binding(const std::string& spec, ImportOptions& options);

}  // namespace tunectl::graph
