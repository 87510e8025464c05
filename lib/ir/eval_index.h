// Fast evaluation of an integer index expression at one point, for the
// analyses that probe how an index moves (program features, the analytic
// GPU cost): loop variables take their values from env (0 when absent).
// Anything it cannot evaluate (a load inside an index) counts as 0: these
// analyses need an index's shape, not exact values.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "ir/expr.h"

namespace tunectl::ir {

using IndexEnv = std::unordered_map<const VarNode*, int64_t>;

int64_t eval_index(const Expr& e, const IndexEnv& env);

}  // namespace tunectl::ir
