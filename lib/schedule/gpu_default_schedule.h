// The schedule a GPU runs when nothing better is known (TVM's default for
// an unscheduled GPU op): one thread per output element, the last stage's
// space loops fused, split by 64 and bound to blockIdx.x / threadIdx.x;
// every other stage inlined where it can be, else computed per thread at
// the last stage's thread loop, else by every thread whole at the root
// (softmax's max, read by two stages). Correct for any DAG, fast for none:
// what `run --target cuda` uses for a task its log does not cover.
#pragma once

#include <memory>

#include "schedule/state.h"

namespace tunectl::schedule {

State gpu_default_schedule(std::shared_ptr<const te::ComputeDAG> dag);

}  // namespace tunectl::schedule
