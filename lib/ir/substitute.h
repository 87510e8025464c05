// Replacing variables by expressions: how schedule steps rewrite index
// expressions (split, fuse), how lowering instantiates compute bodies at loop
// indices, and how the simplifier drops unit loops. Unchanged subtrees stay
// shared with the input.
#pragma once

#include <vector>

#include "ir/expr.h"
#include "ir/stmt.h"
#include "ir/var_map.h"

namespace tunectl::ir {

// e with every variable in map replaced by its image (also inside Reduce
// sources). Replacements are not substituted again.
Expr substitute(const Expr& e, const VarMap<Expr>& map);
// The same over every expression of s (loop bounds, indices, values,
// conditions). Loop variables themselves are binders and are not replaced.
Stmt substitute(const Stmt& s, const VarMap<Expr>& map);

// Whether v occurs in e, or anywhere in s (bounds, indices, values,
// conditions).
bool uses_var(const Expr& e, const Var& v);
bool uses_var(const Stmt& s, const Var& v);
// Whether any variable of vars occurs in e.
bool uses_any_var(const Expr& e, const VarSet& vars);
// The distinct variables of e in order of first occurrence (left to right,
// children before parents), excluding reduction axes bound by a Reduce.
std::vector<Var> free_vars(const Expr& e);

}  // namespace tunectl::ir
