// Scalar element types of the IR. Every expression has exactly one; vector
// widths are a code generation concern (vectorized loops), not an IR type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tunectl::ir {

// New types go last: the enum's values are stable.
#define TUNECTL_DTYPES(X)  \
  X(Bool, "bool", 1)       \
  X(Int32, "int32", 4)     \
  X(Int64, "int64", 8)     \
  X(Float32, "float32", 4) \
  X(Float64, "float64", 8) \
  X(Int8, "int8", 1)       \
  X(UInt8, "uint8", 1)     \
  X(Int16, "int16", 2)     \
  X(UInt16, "uint16", 2)   \
  X(UInt32, "uint32", 4)   \
  X(UInt64, "uint64", 8)   \
  X(Float16, "float16", 2)

enum class DType : uint8_t {
#define TUNECTL_DTYPE_ENUM(name, text, bytes) name,
  TUNECTL_DTYPES(TUNECTL_DTYPE_ENUM)
#undef TUNECTL_DTYPE_ENUM
};

std::string_view to_string(DType t);
// Throws UserError for an unknown name.
DType dtype_from_string(std::string_view s);
int dtype_bytes(DType t);
// Float16 is a storage type: graph::convert_node computes every operator
// on it in float32 and rounds what it stores (IEEE binary16, _Float16 on the
// host).
inline bool is_float(DType t) { return t == DType::Float32 || t == DType::Float64 || t == DType::Float16; }
inline bool is_unsigned(DType t) {
  return t == DType::UInt8 || t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
}
// Every integer type, signed or unsigned (not Bool).
inline bool is_int(DType t) {
  return t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64 || is_unsigned(t);
}

// How an integer of type t is held in an int64 (immediates, the
// interpreters): v wrapped to t's width, sign-extended for signed types and
// zero-extended for unsigned ones (a uint64 keeps its bits). Bool: 0 or 1.
inline int64_t wrap_to(DType t, int64_t v) {
  const uint64_t u = static_cast<uint64_t>(v);
  switch (t) {
    case DType::Bool: return v != 0;
    case DType::Int8: return static_cast<int8_t>(u);
    case DType::UInt8: return static_cast<uint8_t>(u);
    case DType::Int16: return static_cast<int16_t>(u);
    case DType::UInt16: return static_cast<uint16_t>(u);
    case DType::Int32: return static_cast<int32_t>(u);
    case DType::UInt32: return static_cast<uint32_t>(u);
    default: return v;
  }
}

// v rounded to the precision of float type t (float32 and float16 round to
// nearest even; float64 is v itself).
inline double round_to_float(DType t, double v) {
  if (t == DType::Float32) return static_cast<double>(static_cast<float>(v));
  if (t == DType::Float16) return static_cast<double>(static_cast<_Float16>(v));
  return v;
}

// The type of loop variables and all index arithmetic.
inline constexpr DType kIndexType = DType::Int64;

}  // namespace tunectl::ir
