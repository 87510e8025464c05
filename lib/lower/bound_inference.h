// Bound inference (a step of schedule_to_loops): for every active stage, the region of
// its output it must compute at its attach point, the buffer that holds that
// region and the loops that cover it. Root stages compute their whole domain
// into their op's buffer; a stage attached inside another stage's loop
// computes the union of what its readers read while the loops at or outside
// the attach loop stay fixed, into a fresh buffer of the region's shape.
#pragma once

#include <vector>

#include "lower/stage_info.h"

namespace tunectl::lower {

// Fills region_min, region_extent, buffer, enclosing, loops and
// local_root_values of every active stage (bodies must be inlined first).
// Stages are processed from the last to the first, so readers and attach
// targets are done before the stages they read or hold. A reader outside
// the attach loop of what it reads is a UserError.
void infer_bounds(const schedule::State& state, std::vector<StageInfo>& stages);

}  // namespace tunectl::lower
