// Maps keyed by variable identity, the currency of every analysis over the IR
// (substitution, bounds, intervals): two variables with one name are still
// different variables.
#pragma once

#include <unordered_map>
#include <unordered_set>

#include "ir/expr.h"

namespace tunectl::ir {

template <class T>
using VarMap = std::unordered_map<Var, T, VarHash, VarEqual>;
using VarSet = std::unordered_set<Var, VarHash, VarEqual>;

}  // namespace tunectl::ir
