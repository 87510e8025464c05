// The runoff that ends a measured `tune` on the host CPU: each task's
// fastest programs (by the log, up to `top` distinct ones) timed again side
// by side, in rounds (side_by_side.h), one record each flagged `runoff`
// (log/record.h), so that its winner becomes the task's best
// (log::competing_records). The tuner times each candidate once, when it
// is found: on a shared host whose speed drifts by tens of percent over an
// hour, the lowest of those times belongs to the luckiest moment as much as
// to the fastest program. A retune of light ResNet-50 that picked by them
// ran 7% slower than the log it came from, its kernels 0.63-0.9x as fast in
// the model and alone when timed side by side with that log's.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "log/log_file.h"
#include "measure/measure.h"
#include "tasks/extract.h"

namespace tunectl::tune {

struct RunoffTask {
  int programs = 0;      // timed side by side (0: none could run; the task keeps its best)
  double before_s = 0;   // the task's best cost before the runoff
  double after_s = 0;    // its winner's median in the runoff
  bool changed = false;  // the winner is not the program that was best before
  std::string problem;   // why programs were left out ("" when none was)
};

// Times the runoff of each task on `options`' backend (a host CPU; as the
// tuner times candidates: set_cpu_timing) and appends its records through
// `writer` and, at the end, to `records` (the log's, of any target), which
// then hold what the log does. One entry per task; `next` is asked before
// each task (false, on an interrupt, ends the runoff there: the tasks done
// keep their records). UserError for a backend that builds device code.
std::vector<RunoffTask> runoff(const std::vector<tasks::Task>& tasks, std::vector<log::Record>& records,
                               int top, const measure::MeasureOptions& options, log::LogWriter& writer,
                               const std::function<bool(size_t task)>& next);

}  // namespace tunectl::tune
