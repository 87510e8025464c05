// The auto_unroll_max_step pragma (lowering pass 6), applied to a stage's
// loops as they are made: Ansor's way of unrolling small inner loop nests
// without fixing a factor in the schedule.
#pragma once

#include <vector>

#include "lower/stage_info.h"

namespace tunectl::lower {

// Marks Unrolled the innermost serial loops of `loops` (outer to inner)
// while the product of the inner loops' extents stays at most max_step.
// Vectorized and unrolled loops count in the product and keep their kind;
// a parallel or thread-bound loop ends the walk. max_step <= 0 does nothing.
void auto_unroll(std::vector<Loop>& loops, int max_step);

}  // namespace tunectl::lower
