// Reading and writing tensors as ONNX TensorProto files (.pb), the format of
// the ONNX test data and of `tunectl run`'s inputs and outputs; raw files
// (bare little-endian data) for inputs whose shape the model fixes.
#pragma once

#include <string>

#include "graph/graph.h"
#include "runtime/ndarray.h"

namespace tunectl::graph {

struct NamedTensor {
  std::string name;  // the TensorProto's name (may be empty)
  runtime::NDArray value;
};

// UserError for a missing, truncated or unsupported file.
NamedTensor read_tensor_pb(const std::string& path);
void write_tensor_pb(const std::string& path, const std::string& name, const runtime::NDArray& value);
// A sequence or optional of tensors as ONNX's SequenceProto and OptionalProto
// files hold them (an optional sequence: an OptionalProto holding a
// SequenceProto); UserError for a file that holds another kind of value.
struct NamedComposite {
  std::string name;
  CompositeValue value;
};
NamedComposite read_composite_pb(const std::string& path, ValueKind kind);
void write_composite_pb(const std::string& path, const std::string& name, const CompositeValue& value);
// The name a SequenceProto or OptionalProto file gives its value, when the
// file parses as one of kind `kind` ("" otherwise): how `run` tells which
// input a bare FILE.pb is.
std::string composite_pb_name(const std::string& path, ValueKind kind);

// Reads bare data of the given dtype and shape; the file size must match.
runtime::NDArray read_raw_tensor(const std::string& path, ir::DType dtype, const std::vector<int64_t>& shape);

}  // namespace tunectl::graph
