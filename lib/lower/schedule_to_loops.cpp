#include "lower/schedule_to_loops.h"

#include <vector>

#include "lower/auto_unroll.h"
#include "lower/bound_inference.h"
#include "lower/inline_stages.h"
#include "lower/loop_nest.h"
#include "lower/prepack.h"
#include "lower/stage_info.h"

namespace tunectl::lower {

LoweredFunc schedule_to_loops(const schedule::State& state, const std::string& name) {
  std::vector<StageInfo> stages = collect_stages(state);
  inline_stages(state, stages);
  infer_bounds(state, stages);
  plan_prepacks(state, stages);
  for (size_t s = 0; s < stages.size(); ++s)
    if (stages[s].active) auto_unroll(stages[s].loops, state.stages[s].auto_unroll_max_step);
  LoweredFunc func{name, {}, build_loop_nests(state, stages), {}};
  prepacked_args(state, stages, func);
  for (const schedule::Stage& stage : state.stages)
    if (stage.double_buffer) func.double_buffered.push_back(stage.op->name);
  return func;
}

}  // namespace tunectl::lower
