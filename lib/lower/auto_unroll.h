// The auto_unroll_max_step pragma (a step of schedule_to_loops), applied to
// a stage's loops before the nest is built, where the loop kinds of the
// annotation steps are decided too: Ansor's way of unrolling small inner loop
// nests without fixing a factor in the schedule. It is decided on the stage's
// own loops (the reduction's init loops copy their kinds), which the loop IR
// no longer tells apart from the loops of stages attached inside them.
#pragma once

#include <vector>

#include "lower/stage_info.h"

namespace tunectl::lower {

// Marks Unrolled the innermost serial loops of `loops` (outer to inner)
// while the product of the inner loops' extents stays at most max_step.
// Vectorized and unrolled loops count in the product and keep their kind;
// a parallel or thread-bound loop ends the walk. max_step <= 0 does nothing.
// Loops that hold other stages' computations are checked again against
// max_step with those counted, once the nest is built (loop_nest.h).
void auto_unroll(std::vector<Loop>& loops, int max_step);

}  // namespace tunectl::lower
