#include "graph/tensor_proto.h"

#include <algorithm>
#include <fstream>

#include "graph/onnx_util.h"
#include "ir/error.h"

namespace tunectl::graph {

NamedTensor read_tensor_pb(const std::string& path) {
  std::string bytes = read_protobuf_file(path, "tensor file");
  onnx::TensorProto proto;
  user_check(proto.ParseFromString(bytes), "'", path, "' is not a valid ONNX TensorProto file (truncated or corrupt)");
  // Random bytes can parse as a message with unknown fields only; a tensor
  // file always names its element type.
  user_check(proto.has_data_type() && proto.data_type() != onnx::TensorProto::UNDEFINED, "'", path,
             "' is not a valid ONNX TensorProto file: no element type");
  user_check(proto.data_location() != onnx::TensorProto::EXTERNAL, "'", path,
             "': tensors with external data are not supported in tensor files");
  std::string what = "tensor '" + proto.name() + "' in '" + path + "'";
  return {proto.name(), tensor_from_proto(proto, what)};
}

void write_tensor_pb(const std::string& path, const std::string& name, const runtime::NDArray& value) {
  onnx::TensorProto proto;
  tensor_to_proto(value, name, &proto);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  system_check(out.good(), "cannot create a tensor file", "open", path);
  bool written = proto.SerializeToOstream(&out);
  out.close();
  system_check(written && out.good(), "cannot write a tensor file", "write", path);
}

runtime::NDArray read_raw_tensor(const std::string& path, ir::DType dtype, const std::vector<int64_t>& shape) {
  std::string bytes = read_binary_file(path, "raw tensor file");
  runtime::NDArray out(dtype, shape);
  user_check(bytes.size() == out.num_bytes(), "raw tensor file '", path, "' has ", bytes.size(), " bytes; a ",
             ir::to_string(dtype), " tensor of ", out.num_elements(), " elements needs ", out.num_bytes());
  std::copy(bytes.begin(), bytes.end(), static_cast<char*>(out.raw()));
  if (dtype == ir::DType::Bool) {
    auto* p = out.data<uint8_t>();
    for (int64_t i = 0; i < out.num_elements(); ++i) p[i] = p[i] != 0;
  }
  return out;
}

}  // namespace tunectl::graph
