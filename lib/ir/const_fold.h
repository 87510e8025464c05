// Evaluation of a node whose operands are all immediates, in the node's own
// precision (int32 wraps at 32 bits, float32 results are rounded to float).
// The simplifier calls it first on every rebuilt node; it knows no algebra.
#pragma once

#include "ir/expr.h"

namespace tunectl::ir {

// The immediate e evaluates to, or a null Expr when an operand is not an
// immediate or the result is not well defined at compile time (division by
// zero, float to int casts out of range, min/max of NaN).
Expr const_fold(const Expr& e);

}  // namespace tunectl::ir
