// How well the analytic cost (search/construct.h, analytic_cost) ranks the
// programs a log measured, task by task: construction walks by that model,
// so how it orders one task's programs decides what `--search construct`
// builds and where a measured search starts. `tunectl log rank` prints it;
// the tests bound it on the committed logs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "log/record.h"

namespace tunectl::tune {

struct TaskRanking {
  std::string name;
  std::string target;
  int programs = 0;         // measured records that still replay and lower
  double best_seconds = 0;  // the fastest program's time
  double spearman = 0;      // between the estimates and the median times
  double top1_regret = 1;   // time of the program rated best over the best time
  double top5_regret = 1;   // the fastest of the five rated best over the best time
};

// Every task (per target: llvm and cuda) with at least min_programs
// measured records, in workload-key order. Estimated records (construction)
// are no measurement and are left out, as are a runoff's (the same programs
// timed again), as are records whose program no
// longer replays or lowers (timed before a later check refused it).
std::vector<TaskRanking> rank_measured_programs(const std::vector<log::Record>& records, int min_programs);

// How retime_records times: `calls` timed calls of each program, as the
// tuner times a candidate, interleaved over the task's programs in batches
// of `batch` that each also time the task's first program (the times of a
// batch scaled by its time in the first batch, so that the host's drift
// between batches cancels).
struct Retime {
  int calls = 10;
  int batch = 48;
  uint64_t seed = 1;  // of the inputs
};

// The records rank_measured_programs would rank, each program timed again
// on this machine with this build's code generation (a log's times are
// those of the code generation and the machine of their day): their costs
// the scaled times of its calls, their timestamp now. UserError for a
// target this machine does not run.
std::vector<log::Record> retime_records(const std::vector<log::Record>& records, int min_programs,
                                        const Retime& retime);

}  // namespace tunectl::tune
