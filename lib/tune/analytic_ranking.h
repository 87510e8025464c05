// How well the analytic cost (search/construct.h, analytic_cost) ranks the
// programs a log measured, task by task: construction walks by that model,
// so how it orders one task's programs decides what `--search construct`
// builds and where a measured search starts. `tunectl log rank` prints it;
// the tests bound it on the committed logs.
#pragma once

#include <string>
#include <vector>

#include "log/record.h"

namespace tunectl::tune {

struct TaskRanking {
  std::string name;
  std::string target;
  int programs = 0;        // measured records that still replay and lower
  double spearman = 0;     // between the estimates and the median times
  double top1_regret = 1;  // time of the program rated best over the best time
  double top5_regret = 1;  // the fastest of the five rated best over the best time
};

// Every task (per target: llvm and cuda) with at least min_programs
// measured records, in workload-key order. Estimated records (construction)
// are no measurement and are left out, as are records whose program no
// longer replays or lowers (timed before a later check refused it).
std::vector<TaskRanking> rank_measured_programs(const std::vector<log::Record>& records, int min_programs);

}  // namespace tunectl::tune
