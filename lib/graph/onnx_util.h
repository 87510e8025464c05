// Helpers over ONNX protobuf messages shared by the importer and the .pb
// tensor files: TensorProto <-> runtime::NDArray (initializers, Constant
// nodes, tensor attributes, test data), dtype mapping, node naming, file
// bytes. Internal to lib/graph: only lib/graph's .cpp files include it, so
// protobuf types stay out of the public headers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "ir/dtype.h"
#include "runtime/ndarray.h"

namespace tunectl::graph {

// The whole file as bytes; UserError naming the file when it cannot be read.
std::string read_binary_file(const std::string& path, const std::string& what);

// read_binary_file for a serialized protobuf message (an ONNX model, a
// TensorProto): a file over protobuf's 2 GiB limit is refused before it is
// read, with a message that says how large models are stored.
std::string read_protobuf_file(const std::string& path, const std::string& what);

// The node's name, or "<op_type>_<index>" (index in the model's node list)
// when the model gives none; Graph nodes carry the same name.
std::string onnx_node_name(const onnx::NodeProto& node, int index);
// "node 'conv1' (Conv)", like Node::describe, for errors before a Node exists.
std::string describe_onnx_node(const onnx::NodeProto& node, int index);

// tunectl's dtype for an ONNX TensorProto::DataType (graph/onnx_dtype.h).
// Anything else (float16, strings, ...) is a UserError naming `what` (e.g.
// "value 'x'") and the ONNX type.
ir::DType dtype_from_onnx(int32_t elem_type, const std::string& what);
int32_t dtype_to_onnx(ir::DType dtype);

// The tensor's data, from raw_data or the typed repeated field its dtype uses.
// Data kept in an external file must have been loaded into raw_data already.
// UserError naming `what` for an unsupported dtype, a zero-sized dimension or
// a data size that does not match the dims.
runtime::NDArray tensor_from_proto(const onnx::TensorProto& proto, const std::string& what);
// Fills name, dims, data_type and raw_data (little-endian, bool as one byte).
void tensor_to_proto(const runtime::NDArray& value, const std::string& name, onnx::TensorProto* proto);

}  // namespace tunectl::graph
