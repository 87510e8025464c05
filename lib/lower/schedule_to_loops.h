// The first step of lowering (lower.h): a schedule State becomes loop IR.
// What the schedule says of each stage is worked out in this order, each
// step completing the stage records (stage_info.h) the next one reads:
//   collect_stages    root axes and domains, which stages get loops (stage_info.h)
//   inline_stages     bodies with inlined producers substituted (inline_stages.h)
//   infer_bounds      region, buffer and loops of each stage at its attach
//                     point (bound_inference.h)
//   plan_prepacks     the packed argument of each prepacked constant (prepack.h)
//   auto_unroll       loop kinds from the auto_unroll_max_step pragma (auto_unroll.h)
//   build_loop_nests  one statement from the records (loop_nest.h)
// These are analyses of the schedule, like TVM's InferBound before
// ScheduleOps: they need the schedule's stages and attach points, which the
// loop IR no longer has. The records live only inside this step; what leaves
// it is loop IR, which the passes of lower() rewrite.
#pragma once

#include <string>

#include "lower/lower.h"
#include "schedule/state.h"

namespace tunectl::lower {

// The kernel of state as loop IR: arguments are the DAG's placeholders (a
// prepacked constant's packed buffer in its place, with its packing
// function) followed by its outputs; accesses are still multi-dimensional.
// UserError when the schedule cannot be lowered (a reader outside the
// attach loop of what it reads, a prepacked region that is not tile-aligned).
LoweredFunc schedule_to_loops(const schedule::State& state, const std::string& name);

}  // namespace tunectl::lower
