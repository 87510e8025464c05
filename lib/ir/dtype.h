// Scalar element types of the IR. Every expression has exactly one; vector
// widths are a code generation concern (vectorized loops), not an IR type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tunectl::ir {

#define TUNECTL_DTYPES(X) \
  X(Bool, "bool", 1)      \
  X(Int32, "int32", 4)    \
  X(Int64, "int64", 8)    \
  X(Float32, "float32", 4) \
  X(Float64, "float64", 8)

enum class DType : uint8_t {
#define TUNECTL_DTYPE_ENUM(name, text, bytes) name,
  TUNECTL_DTYPES(TUNECTL_DTYPE_ENUM)
#undef TUNECTL_DTYPE_ENUM
};

std::string_view to_string(DType t);
// Throws UserError for an unknown name.
DType dtype_from_string(std::string_view s);
int dtype_bytes(DType t);
inline bool is_float(DType t) { return t == DType::Float32 || t == DType::Float64; }
inline bool is_int(DType t) { return t == DType::Int32 || t == DType::Int64; }

// The type of loop variables and all index arithmetic.
inline constexpr DType kIndexType = DType::Int64;

}  // namespace tunectl::ir
