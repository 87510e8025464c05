// Inlining (a step of schedule_to_loops, on stage bodies): a stage attached Inline has no
// loops and no buffer; each of its readers evaluates its body in place of the
// load. Runs before bound inference, so regions are inferred from the reads
// that remain after inlining.
#pragma once

#include <vector>

#include "lower/stage_info.h"

namespace tunectl::lower {

// Sets StageInfo::body of every compute stage: its op's body with every load
// of an inlined stage replaced by that stage's (already inlined) body at the
// load's indices, so chains of inlined stages collapse.
void inline_stages(const schedule::State& state, std::vector<StageInfo>& stages);

}  // namespace tunectl::lower
