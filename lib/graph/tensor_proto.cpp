#include "graph/tensor_proto.h"

#include <algorithm>
#include <fstream>

#include <onnx/onnx-data_pb.h>

#include "graph/onnx_util.h"
#include "ir/error.h"

namespace tunectl::graph {

namespace {

// A tensor of a .pb file: its data inline (a file has no folder of
// external data).
runtime::NDArray tensor_in_file(const onnx::TensorProto& proto, const std::string& path, const std::string& what) {
  user_check(proto.data_location() != onnx::TensorProto::EXTERNAL, "'", path,
             "': tensors with external data are not supported in tensor files");
  return tensor_from_proto(proto, what);
}

void write_message(const std::string& path, const google::protobuf::Message& proto) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  system_check(out.good(), "cannot create a tensor file", "open", path);
  bool written = proto.SerializeToOstream(&out);
  out.close();
  system_check(written && out.good(), "cannot write a tensor file", "write", path);
}

// The tensors of a SequenceProto; UserError when it holds other values.
std::vector<runtime::NDArray> sequence_tensors(const onnx::SequenceProto& s, const std::string& path,
                                               const std::string& what) {
  user_check(s.tensor_values_size() == 0 || s.elem_type() == onnx::SequenceProto::TENSOR, what,
             " holds a sequence of something other than tensors");
  user_check(s.sparse_tensor_values_size() == 0 && s.sequence_values_size() == 0 && s.map_values_size() == 0 &&
                 s.optional_values_size() == 0,
             what, " holds a sequence of something other than tensors");
  std::vector<runtime::NDArray> out;
  for (int i = 0; i < s.tensor_values_size(); ++i)
    out.push_back(tensor_in_file(s.tensor_values(i), path, what + ", element " + std::to_string(i)));
  return out;
}

void sequence_to_proto(const std::vector<runtime::NDArray>& elements, onnx::SequenceProto* s) {
  s->set_elem_type(onnx::SequenceProto::TENSOR);
  for (const runtime::NDArray& e : elements) tensor_to_proto(e, "", s->add_tensor_values());
}

}  // namespace

NamedTensor read_tensor_pb(const std::string& path) {
  std::string bytes = read_protobuf_file(path, "tensor file");
  onnx::TensorProto proto;
  user_check(proto.ParseFromString(bytes), "'", path, "' is not a valid ONNX TensorProto file (truncated or corrupt)");
  // Random bytes can parse as a message with unknown fields only; a tensor
  // file always names its element type.
  user_check(proto.has_data_type() && proto.data_type() != onnx::TensorProto::UNDEFINED, "'", path,
             "' is not a valid ONNX TensorProto file: no element type");
  std::string what = "tensor '" + proto.name() + "' in '" + path + "'";
  return {proto.name(), tensor_in_file(proto, path, what)};
}

void write_tensor_pb(const std::string& path, const std::string& name, const runtime::NDArray& value) {
  onnx::TensorProto proto;
  tensor_to_proto(value, name, &proto);
  write_message(path, proto);
}

NamedComposite read_composite_pb(const std::string& path, ValueKind kind) {
  const std::string bytes = read_protobuf_file(path, "value file");
  const std::string what = "'" + path + "'";
  // Another message's bytes (a TensorProto's) parse too, into fields the
  // message does not have: refused, not read as an empty container.
  auto parses = [&](google::protobuf::Message& m) {
    return m.ParseFromString(bytes) && m.GetReflection()->GetUnknownFields(m).empty();
  };
  NamedComposite out;
  out.value.kind = kind;
  if (kind == ValueKind::Sequence) {
    onnx::SequenceProto s;
    user_check(parses(s), what, " is not a valid ONNX SequenceProto file (truncated, corrupt or another kind of value)");
    out.name = s.name();
    out.value.elements = sequence_tensors(s, path, what);
  } else {
    user_check(kind != ValueKind::Tensor, "read_composite_pb: a tensor is not a composite");
    onnx::OptionalProto o;
    user_check(parses(o), what, " is not a valid ONNX OptionalProto file (truncated, corrupt or another kind of value)");
    out.name = o.name();
    const bool of_sequence = kind == ValueKind::OptionalSequence;
    user_check(o.elem_type() == onnx::OptionalProto::UNDEFINED ||
                   o.elem_type() == (of_sequence ? onnx::OptionalProto::SEQUENCE : onnx::OptionalProto::TENSOR),
               what, " does not hold ", describe(kind));
    user_check(!o.has_sparse_tensor_value() && !o.has_map_value() && !o.has_optional_value() &&
                   (of_sequence ? !o.has_tensor_value() : !o.has_sequence_value()),
               what, " does not hold ", describe(kind));
    out.value.present = of_sequence ? o.has_sequence_value() : o.has_tensor_value();
    if (o.has_tensor_value()) out.value.elements.push_back(tensor_in_file(o.tensor_value(), path, what));
    if (o.has_sequence_value()) out.value.elements = sequence_tensors(o.sequence_value(), path, what);
  }
  if (!out.value.elements.empty()) out.value.dtype = out.value.elements[0].dtype();
  for (const runtime::NDArray& e : out.value.elements)
    user_check(e.dtype() == out.value.dtype, what, " holds tensors of different element types");
  return out;
}

void write_composite_pb(const std::string& path, const std::string& name, const CompositeValue& value) {
  if (value.kind == ValueKind::Sequence) {
    onnx::SequenceProto s;
    s.set_name(name);
    sequence_to_proto(value.elements, &s);
    return write_message(path, s);
  }
  internal_check(value.kind != ValueKind::Tensor, "write_composite_pb: a tensor is not a composite");
  onnx::OptionalProto o;
  o.set_name(name);
  if (value.kind == ValueKind::OptionalTensor) {
    o.set_elem_type(onnx::OptionalProto::TENSOR);
    if (value.present) tensor_to_proto(value.elements.at(0), "", o.mutable_tensor_value());
  } else {
    o.set_elem_type(onnx::OptionalProto::SEQUENCE);
    if (value.present) sequence_to_proto(value.elements, o.mutable_sequence_value());
  }
  write_message(path, o);
}

std::string composite_pb_name(const std::string& path, ValueKind kind) {
  try {
    return read_composite_pb(path, kind).name;
  } catch (const UserError&) {
    return "";
  }
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
