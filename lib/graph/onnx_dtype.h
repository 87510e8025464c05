// The ONNX element types tunectl has, by their TensorProto.DataType codes,
// in one table for the importer (onnx_util.cpp) and the converters (Cast's
// `to`), without protobuf.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/dtype.h"
#include "ir/error.h"

namespace tunectl::graph {

#define TUNECTL_ONNX_DTYPES(X)                                                                                \
  X(1, Float32) X(2, UInt8) X(3, Int8) X(4, UInt16) X(5, Int16) X(6, Int32) X(7, Int64) X(9, Bool)           \
  X(10, Float16) X(11, Float64) X(12, UInt32) X(13, UInt64)

// The names in tunectl's error messages.
inline constexpr const char* kSupportedOnnxTypes =
    "FLOAT, DOUBLE, FLOAT16, INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, UINT64 and BOOL";

inline std::optional<ir::DType> dtype_from_onnx_code(int64_t code) {
#define TUNECTL_ONNX_DTYPE_FROM(c, t) \
  if (code == (c)) return ir::DType::t;
  TUNECTL_ONNX_DTYPES(TUNECTL_ONNX_DTYPE_FROM)
#undef TUNECTL_ONNX_DTYPE_FROM
  return std::nullopt;
}

inline int32_t onnx_code(ir::DType dtype) {
#define TUNECTL_ONNX_DTYPE_TO(c, t) \
  if (dtype == ir::DType::t) return c;
  TUNECTL_ONNX_DTYPES(TUNECTL_ONNX_DTYPE_TO)
#undef TUNECTL_ONNX_DTYPE_TO
  internal_fail("no ONNX type for ", ir::to_string(dtype));
}

}  // namespace tunectl::graph
