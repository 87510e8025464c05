// The arithmetic simplifier. Schedule steps (split, fuse) leave index
// expressions like `(f // 16) * 16 + f % 16`; lowering leaves unit loops and
// conditions that loop bounds already decide. simplify() folds constants,
// puts Int64 arithmetic into a canonical sum (ir/linear_sum.h), applies
// floordiv/floormod rules that need the variables' bounds, and proves
// comparisons from those bounds. It never changes a value: when a rule's
// premise cannot be proved it does not fire.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/const_bound.h"
#include "ir/expr.h"
#include "ir/stmt.h"
#include "ir/var_map.h"

namespace tunectl::ir {

// e simplified, with each variable in bounds known to lie in its range.
// Inside a Reduce, the axes range over [0, extent).
Expr simplify(const Expr& e, const VarMap<IntBound>& bounds = {});

// Simplifies every expression of s using the ranges of enclosing loops with
// constant bounds (and of simple conditions `var < c` in the then-branch of an
// if), drops ifs whose condition is decided, replaces loops of extent 1
// (except thread bindings) by their body with the variable set to the loop
// minimum, and removes loops, allocations and branches that end up empty.
// A statement that simplifies to nothing becomes an empty Seq.
Stmt simplify(const Stmt& s);

// The coefficient c of v in e when e = c * v + (terms free of v); nullopt when
// e is not affine in v (e.g. v under floordiv, or inside a load's index).
std::optional<int64_t> linear_coefficient(const Expr& e, const Var& v);

// Whether e (bool) is provably true for all variables within bounds.
bool can_prove(const Expr& e, const VarMap<IntBound>& bounds = {});

}  // namespace tunectl::ir
