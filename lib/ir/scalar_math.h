// Scalar semantics of the IR's integer division and math functions, in one
// place so that constant folding, the reference evaluator and the loop-IR
// interpreter agree by construction (code generation must match them too).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ir/error.h"
#include "ir/expr.h"

namespace tunectl::ir {

// floor(a / b); b != 0 and not (INT64_MIN, -1).
inline int64_t floordiv_int(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// a - b * floor(a / b): the result has the sign of b; b != 0.
inline int64_t floormod_int(int64_t a, int64_t b) {
  if (b == -1) return 0;  // INT64_MIN % -1 overflows
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// The math functions integers take (make_call allows them): abs; floor,
// ceil and round, which leave an integer as it is; and the bit functions on
// the two's complement bits of a `width`-bit type (the caller wraps the
// result to its type). A shift by the width or more gives 0; shift_right is
// logical.
template <typename I>
I eval_math_int(MathFunc f, I x, I y = 0, int width = 8 * sizeof(I)) {
  const auto bits = static_cast<uint64_t>(x), by = static_cast<uint64_t>(y);
  const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  switch (f) {
    case MathFunc::abs:
      if constexpr (std::is_signed_v<I>) return x < 0 ? -x : x;
      return x;
    case MathFunc::floor:
    case MathFunc::ceil:
    case MathFunc::round: return x;
    case MathFunc::bitwise_not: return static_cast<I>(~bits);
    case MathFunc::bitwise_and: return static_cast<I>(bits & by);
    case MathFunc::bitwise_or: return static_cast<I>(bits | by);
    case MathFunc::bitwise_xor: return static_cast<I>(bits ^ by);
    case MathFunc::shift_left: return by >= static_cast<uint64_t>(width) ? I(0) : static_cast<I>(bits << by);
    case MathFunc::shift_right: return by >= static_cast<uint64_t>(width) ? I(0) : static_cast<I>((bits & mask) >> by);
    default: internal_fail(to_string(f), " of an integer");
  }
}

// f(x) or f(x, y) in the precision of F. round is half to even (ONNX Round).
template <typename F>
F eval_math(MathFunc f, F x, F y) {
  switch (f) {
    case MathFunc::exp: return std::exp(x);
    case MathFunc::log: return std::log(x);
    case MathFunc::sqrt: return std::sqrt(x);
    case MathFunc::tanh: return std::tanh(x);
    case MathFunc::erf: return std::erf(x);
    case MathFunc::abs: return std::fabs(x);
    case MathFunc::floor: return std::floor(x);
    case MathFunc::ceil: return std::ceil(x);
    case MathFunc::round: return std::nearbyint(x);
    case MathFunc::sin: return std::sin(x);
    case MathFunc::cos: return std::cos(x);
    case MathFunc::tan: return std::tan(x);
    case MathFunc::asin: return std::asin(x);
    case MathFunc::acos: return std::acos(x);
    case MathFunc::atan: return std::atan(x);
    case MathFunc::sinh: return std::sinh(x);
    case MathFunc::cosh: return std::cosh(x);
    case MathFunc::asinh: return std::asinh(x);
    case MathFunc::acosh: return std::acosh(x);
    case MathFunc::atanh: return std::atanh(x);
    case MathFunc::pow: return std::pow(x, y);
    default: internal_fail(to_string(f), " of a float");
  }
  internal_fail("bad math function");
}

}  // namespace tunectl::ir
