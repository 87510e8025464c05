// Constant integer bounds of an expression, given bounds of its variables.
// The simplifier uses them to prove comparisons and to drop floordiv/floormod;
// bound inference and codegen use them to size buffers and elide checks.
// Bounds are saturating: INT64_MIN and INT64_MAX stand for minus and plus
// infinity, so no computation here overflows.
#pragma once

#include <cstdint>
#include <limits>

#include "ir/expr.h"
#include "ir/var_map.h"

namespace tunectl::ir {

// Inclusive range [min, max] of an integer (or bool) value.
struct IntBound {
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  int64_t min = kNegInf;
  int64_t max = kPosInf;

  static IntBound everything() { return {kNegInf, kPosInf}; }
  static IntBound point(int64_t v) { return {v, v}; }
  bool is_point() const { return min == max; }
  bool is_finite() const { return min != kNegInf && max != kPosInf; }
  bool operator==(const IntBound&) const = default;
};

// Bounds of e (integer or bool typed; anything else yields everything).
// Variables missing from vars range over their whole type.
IntBound const_int_bound(const Expr& e, const VarMap<IntBound>& vars);

// The range [min, min + extent - 1] of a loop with constant bounds.
IntBound loop_bound(int64_t min, int64_t extent);

}  // namespace tunectl::ir
