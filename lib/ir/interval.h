// Symbolic interval analysis for bound inference: given the ranges of the
// loop variables a stage iterates over, which region of a buffer does an index
// expression touch? Lowering sizes cache and attached buffers with it
// (e.g. index io*8 + ii + kh with ii in [0, 7], kh in [0, 2] covers
// [io*8, io*8 + 9] for a fixed outer io).
#pragma once

#include "ir/const_bound.h"
#include "ir/expr.h"
#include "ir/var_map.h"

namespace tunectl::ir {

// Inclusive range [min, max] of an integer expression; a null end means
// unbounded on that side (the analysis could not bound it).
struct Interval {
  Expr min, max;

  static Interval point(const Expr& e) { return {e, e}; }
  bool is_bounded() const { return min && max; }
  // Structurally a single value.
  bool is_point() const;
};

// The interval e covers while each variable in dom ranges over its interval.
// Variables missing from dom are fixed: they stay symbolic, as points.
// Endpoints are simplified, using bounds for variables that appear in them.
Interval eval_interval(const Expr& e, const VarMap<Interval>& dom, const VarMap<IntBound>& bounds = {});

// The smallest interval containing both (unbounded if either side is).
Interval union_interval(const Interval& a, const Interval& b, const VarMap<IntBound>& bounds = {});

}  // namespace tunectl::ir
