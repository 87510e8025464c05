// Read-only queries over the stages of a State (who reads whom, outputs,
// attachments): shared by the schedule steps that validate against them and
// by the sketch rules of the search, which choose steps by them.
#pragma once

#include <vector>

#include "schedule/state.h"

namespace tunectl::schedule {

// Whether stage `reader` loads the buffer of stage `producer` directly.
bool reads_directly(const State& s, int reader, int producer);
// The stages that read `producer`, looking through inlined readers to the
// stages they are inlined into; sorted, no repeats.
std::vector<int> effective_readers(const State& s, int producer);
// Whether the stage's op is an output of the DAG (by buffer identity).
bool is_output_stage(const State& s, int i);
// Whether loop target_iter of stage target encloses every computation of
// every reader of the producer: each reader is the target, or a stage
// attached to it (transitively) at target_iter or inside it. False when the
// producer has no reader.
bool encloses_readers(const State& s, int producer, int target, int target_iter);
// Whether any stage is attached to a loop of stage i.
bool has_attached_stages(const State& s, int i);

}  // namespace tunectl::schedule
