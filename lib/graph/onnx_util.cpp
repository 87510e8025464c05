#include "graph/onnx_util.h"

#include <bit>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "graph/onnx_dtype.h"
#include "ir/error.h"
#include "ir/printer.h"

namespace tunectl::graph {

// ONNX stores raw_data little-endian; NDArray holds host order.
static_assert(std::endian::native == std::endian::little, "tensor I/O assumes a little-endian host");

namespace {

std::string dims_string(const onnx::TensorProto& proto) {
  return ir::shape_to_string({proto.dims().begin(), proto.dims().end()});
}

// Copies a typed repeated field into the array element by element. Typed,
// not through double: int64 data such as Slice's INT64_MAX ends must survive.
template <typename T, typename Field>
void copy_field(const Field& field, runtime::NDArray& out) {
  T* p = out.data<T>();
  for (int64_t i = 0; i < out.num_elements(); ++i) p[i] = static_cast<T>(field.Get(static_cast<int>(i)));
}

// The element count of the typed field that holds this dtype's data (ONNX
// keeps the integers narrower than 32 bits and bool in int32_data, uint32
// and uint64 in uint64_data).
int typed_field_size(const onnx::TensorProto& proto, ir::DType dtype) {
  switch (dtype) {
    case ir::DType::Float32: return proto.float_data_size();
    case ir::DType::Float64: return proto.double_data_size();
    case ir::DType::Int64: return proto.int64_data_size();
    case ir::DType::UInt32:
    case ir::DType::UInt64: return proto.uint64_data_size();
    case ir::DType::Int8:
    case ir::DType::UInt8:
    case ir::DType::Int16:
    case ir::DType::UInt16:
    case ir::DType::Int32:
    case ir::DType::Float16:  // the 16 bits of each value
    case ir::DType::Bool: return proto.int32_data_size();
  }
  internal_fail("bad dtype");
}

}  // namespace

std::string read_binary_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  user_check(in.good(), "cannot open ", what, " '", path, "'");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  user_check(!in.bad(), "cannot read ", what, " '", path, "'");
  return std::move(bytes).str();
}

std::string read_protobuf_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  user_check(ec || size <= static_cast<uintmax_t>(INT_MAX), what, " '", path, "' has ", size,
             " bytes, past the 2 GiB that one protobuf message may have; a model this large keeps its weights "
             "as external data (onnx.save_model(..., save_as_external_data=True))");
  return read_binary_file(path, what);
}

std::string onnx_node_name(const onnx::NodeProto& node, int index) {
  return node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
}

std::string describe_onnx_node(const onnx::NodeProto& node, int index) {
  return "node '" + onnx_node_name(node, index) + "' (" + node.op_type() + ")";
}

ir::DType dtype_from_onnx(int32_t elem_type, const std::string& what) {
  if (std::optional<ir::DType> t = dtype_from_onnx_code(elem_type)) return *t;
  std::string type_name = onnx::TensorProto::DataType_IsValid(elem_type)
                              ? onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(elem_type))
                              : "#" + std::to_string(elem_type);
  user_fail(what, " has element type ", type_name, "; tunectl supports ", kSupportedOnnxTypes);
}

int32_t dtype_to_onnx(ir::DType dtype) { return onnx_code(dtype); }

runtime::NDArray tensor_from_proto(const onnx::TensorProto& proto, const std::string& what) {
  internal_check(proto.data_location() != onnx::TensorProto::EXTERNAL, what, " still refers to external data");
  ir::DType dtype = dtype_from_onnx(proto.data_type(), what);
  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  const int64_t elements = runtime::checked_element_count(shape, what);
  // The data is checked against the shape before a buffer of that shape is made.
  if (proto.has_raw_data()) {
    const uint64_t bytes = static_cast<uint64_t>(elements) * ir::dtype_bytes(dtype);
    user_check(proto.raw_data().size() == bytes, what, " with shape ", dims_string(proto), " and type ",
               ir::to_string(dtype), " needs ", bytes, " bytes of data, but raw_data has ", proto.raw_data().size());
  } else {
    const int have = typed_field_size(proto, dtype);
    user_check(have == elements, what, " with shape ", dims_string(proto), " needs ", elements,
               " elements, but its data field has ", have);
  }
  runtime::NDArray out(dtype, shape);
  if (proto.has_raw_data()) {
    std::memcpy(out.raw(), proto.raw_data().data(), out.num_bytes());
    if (dtype == ir::DType::Bool) {
      // Any non-zero byte is true; NDArray's bools are exactly 0 or 1.
      auto* p = out.data<uint8_t>();
      for (int64_t i = 0; i < out.num_elements(); ++i) p[i] = p[i] != 0;
    }
    return out;
  }
  switch (dtype) {
    case ir::DType::Float32: copy_field<float>(proto.float_data(), out); break;
    case ir::DType::Float64: copy_field<double>(proto.double_data(), out); break;
    case ir::DType::Int64: copy_field<int64_t>(proto.int64_data(), out); break;
    case ir::DType::UInt32:
    case ir::DType::UInt64:
      for (int64_t i = 0; i < out.num_elements(); ++i)
        out.set_int(i, static_cast<int64_t>(proto.uint64_data(static_cast<int>(i))));
      break;
    case ir::DType::Float16:
      for (int64_t i = 0; i < out.num_elements(); ++i)
        out.data<uint16_t>()[i] = static_cast<uint16_t>(proto.int32_data(static_cast<int>(i)));
      break;
    default:  // the int32_data types; set_int wraps to the width (bool: 0 or 1)
      for (int64_t i = 0; i < out.num_elements(); ++i) out.set_int(i, proto.int32_data(static_cast<int>(i)));
      break;
  }
  return out;
}

void tensor_to_proto(const runtime::NDArray& value, const std::string& name, onnx::TensorProto* proto) {
  proto->Clear();
  proto->set_name(name);
  proto->set_data_type(dtype_to_onnx(value.dtype()));
  for (int64_t d : value.shape()) proto->add_dims(d);
  proto->set_raw_data(value.raw(), value.num_bytes());
}

}  // namespace tunectl::graph
