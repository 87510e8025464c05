// Where a CPU kernel's time goes, root stage by root stage (`tunectl
// compile-op --profile`): the kernel cut at its root stages
// (lower/split_stages.h), each part timed as the tuner times a candidate
// (measure/worker.h: its constants evicted, its inputs handed over to the
// threads by rows) and interleaved with the others in the kernel's order,
// so each part finds the intermediates where the part before left them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lower/lower.h"
#include "measure/measure.h"
#include "te/compute_dag.h"

namespace tunectl::measure {

struct StageTime {
  std::string label;  // lower::StagePart::label
  double seconds = 0;  // median per call
};

struct StageProfile {
  std::vector<StageTime> stages;
  double kernel_seconds = 0;  // the whole kernel, median per call, in the same run
};

// The kernel func of dag on options.backend (a CPU this machine runs),
// options.cpu_calls timed calls of each part and of the whole kernel, on
// check inputs of `seed`. Before timing, the parts run once in order and
// must leave the outputs the whole kernel leaves (InternalError otherwise).
StageProfile profile_stages(const te::ComputeDAG& dag, const lower::LoweredFunc& func, const MeasureOptions& options,
                            uint64_t seed);

}  // namespace tunectl::measure
