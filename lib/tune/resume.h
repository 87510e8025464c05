// Resume bookkeeping of the tuning loop (tuner.h): what an existing tuning
// log already says about the tasks being tuned. Data flow: read_log ->
// resume_from_log -> (measured program keys, per-task measured states for
// TaskSearch::add_measured, cost-model training data, per-task best-cost
// histories for TaskScheduler::restore) -> tune().
#pragma once

#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "log/record.h"
#include "schedule/state.h"
#include "search/cost_model.h"
#include "target/target.h"
#include "tasks/extract.h"

namespace tunectl::tune {

struct ResumedTask {
  // Programs of the task that replay, with their median cost (+inf: error).
  std::vector<std::pair<schedule::State, double>> measured;
  int trials = 0;   // records of the task, replayable or not
  int errors = 0;   // of those, error records
  std::string first_error;  // the first error record's kind and message
  double best_cost = std::numeric_limits<double>::infinity();  // lowest median cost; after a runoff its winner's
  // Best cost so far after each chunk of measures_per_round records, in log
  // order: the rounds the scheduler would have seen.
  std::vector<double> history;
};

struct ResumeState {
  std::vector<ResumedTask> tasks;             // one per task, in task order
  std::set<std::string> measured_keys;        // log::program_key of every record of these tasks
  std::vector<search::ProgramFeatures> features;  // replayable records, to warm the cost model
  std::vector<double> throughputs;                // flops / median cost; 0 for errors
  std::vector<std::string> warnings;          // records skipped because they do not replay
  int trials = 0;                             // records of these tasks in all
};

// Best-cost history of one task's costs in log order, one entry per chunk of
// `chunk` costs (the last chunk may be shorter); empty for no costs.
std::vector<double> best_cost_history(const std::vector<double>& costs, int chunk);

// What records of `target` (the whole log; records of other tasks are
// ignored) say about tasks. Records with a program key seen before count once;
// estimated records (construction without a device) do not count at all.
ResumeState resume_from_log(const std::vector<log::Record>& records, const std::vector<tasks::Task>& tasks,
                            int measures_per_round, const target::Target& target);

}  // namespace tunectl::tune
