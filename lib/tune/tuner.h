// The tuning loop (DESIGN.md data flow; ALGORITHMS.md "Ansor task scheduler"):
// tasks -> TaskScheduler picks a task -> its TaskSearch proposes a batch under
// the shared cost model -> Measurer measures it -> each record is appended to
// the log as soon as it is measured -> the cost model retrains -> the
// scheduler hears the task's new best -> ... until the trial budget, the time
// budget, every task stopping, or an interrupt (SIGINT/SIGTERM) ends it.
//
// Resume: when the log already has records of these tasks, they are read
// first: their programs are never measured again, each task's best cost and
// scheduler history are restored, its search is seeded with its measured
// programs and the cost model is trained on them, and they count against the
// trial budget only as history (the budget is for new measurements).
//
// Each task's search is seeded with its constructed programs
// (search/construct.h), measured in its first round; a resumed task's
// constructed best is measured before the first round, unless the log has
// it. Programs to retime
// (transfer.h, `--retime`) are seeds too: measured first, fastest first, in
// as many of the task's rounds as they fill, unless the log has them.
//
// Runoff: on the host CPU a run that was not interrupted ends by timing
// each task's fastest programs again side by side (runoff.h); the winners
// become the tasks' best.
//
// Progress: one live line on stderr while tuning (task, round, trials done of
// the budget, best GFLOP/s of the task, estimated end-to-end latency
// sum(weight x best), time left), then the caller prints summary_table().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "measure/measure.h"
#include "search/cost_model.h"
#include "search/search_params.h"
#include "tasks/extract.h"
#include "tasks/scheduler.h"
#include "tune/runoff.h"

namespace tunectl::tune {

struct TuneOptions {
  std::string log_path;              // JSON-lines tuning log, appended to (required)
  // What candidates are built for (and measured on this machine, which must
  // run its code); its string goes into every record. Default: the host.
  std::shared_ptr<const backend::Backend> backend;
  int trials = 1000;                 // new measurements in all, across tasks
  double time_budget_s = 0;          // stop starting rounds after this many seconds (0 = none)
  int measures_per_round = 64;       // programs measured per scheduler round (Ansor: 64)
  uint64_t seed = 0;                 // seeds the scheduler, every task's search and the cost model
  // A candidate whose first run is this many times slower than its task's
  // best so far is timed by that run alone (MeasureInput::slow_cutoff_s);
  // 0 = time every candidate fully. (Lowering the cutoff within a batch to
  // its own best made the search worse: the first, cold runs that set it are
  // inflated, so good candidates were cut on a bad estimate.) At 3x the best such a program is far
  // from being chosen, and one run tells the cost model as much.
  double slow_cutoff_factor = 3;
  bool use_cost_model = true;        // false: XGBoost replaced by RandomCostModel (a baseline)
  bool progress = true;              // the live progress line on stderr
  // Programs measured elsewhere, by workload key, to measure again here
  // first (transfer.h, programs_to_retime); their steps must replay.
  std::map<std::string, std::vector<std::vector<schedule::Step>>> retime;
  // Asked before each round and measurement with every task's best cost so
  // far by workload key (+inf while it has none): a non-empty answer ends
  // the run with it as the stop reason (--layout auto's first round ends
  // once a layout cannot win, cmd/tune.cpp).
  std::function<std::string(const std::map<std::string, double>& best_by_key)> stop_when;
  // Host CPU: after the search (unless interrupted), each task's fastest
  // programs, up to this many, are timed again side by side and the winner
  // becomes its best (runoff.h). 0: no runoff.
  int runoff_top = 4;
  // More tasks for the runoff to time (those of the layouts a choice sets
  // these tasks against: --layout auto's other candidates), so that the
  // choice compares times of one runoff. A task given twice is timed once.
  std::vector<tasks::Task> runoff_also;
  tasks::SchedulerParams scheduler;
  search::SearchParams search;
  search::XgbParams xgb;
  measure::MeasureOptions measure;   // parallel_builds is --jobs; its backend is `backend`
};

struct TaskSummary {
  std::string name;
  std::string workload_key;
  int weight = 0;
  double flops = 0;
  int trials = 0;           // measurements of this task, resumed ones included
  int errors = 0;           // of those, error records
  std::string first_error;  // the first error record's kind and message (why a task has no program)
  int rounds = 0;
  double best_cost = 0;     // seconds; +inf when no valid program
  std::string status;       // tasks::to_string(TaskStatus), or "exhausted" (search space ran dry)
};

// Where the wall time of a tuning run went.
struct TimeSplit {
  double search_s = 0;     // sampling, mutation, features and cost-model predictions
  double lowering_s = 0;   // lower() of each candidate (once each)
  double compiling_s = 0;  // the backend building candidates (measure::MeasureTimes::building_s)
  double checking_s = 0;   // reference outputs and each candidate's checked first run
  double timing_s = 0;     // timed repeats
  double training_s = 0;   // cost-model updates
  double runoff_s = 0;     // the runoff that ends the run (runoff.h)
  double other_s = 0;      // the rest: reading the log and training on it, writing records
};

// A candidate whose measurement hit an internal error (a bug in tunectl, not
// a slow or wrong program).
struct Bug {
  std::string task;
  int log_line = 0;     // its record's line in the log
  std::string message;
};

struct TuneSummary {
  std::vector<TaskSummary> tasks;
  std::string log_path;
  int new_trials = 0;       // measured in this run
  int resumed_trials = 0;   // read from the log
  int constructed_tasks = 0;  // tasks seeded with constructed programs (a resumed one with its constructed best)
  double wall_seconds = 0;
  TimeSplit time;           // of this run's wall_seconds
  bool interrupted = false; // ended by SIGINT/SIGTERM
  std::string stop_reason;  // "trial budget", "time budget", "all tasks done", "interrupted"
  std::vector<std::string> warnings;  // log repairs and skipped records (also printed to stderr)
  std::vector<Bug> bugs;    // internal errors of this run's measurements
  bool estimated = false;   // costs from the analytic model: no program was timed (construct_tasks.h)
  std::vector<RunoffTask> runoff;  // one per task when a runoff ran, else empty
  // sum(weight x best cost) over tasks; +inf while a task has no valid program.
  double estimated_latency() const;
};

// Tunes tasks into options.log_path. Installs SIGINT/SIGTERM handlers for its
// duration: the first signal finishes the measurement in flight (its records
// are logged) and returns with interrupted = true. UserError for unusable
// options or an unreadable log.
TuneSummary tune(const std::vector<tasks::Task>& tasks, const TuneOptions& options);

// The closing table: one row per task (name, weight, trials, errors, best ms,
// GFLOP/s, share of the estimated latency, status), a totals line, where
// the wall time went (TimeSplit) and the bugs met, each with the command that
// reproduces it.
std::string summary_table(const TuneSummary& summary);

}  // namespace tunectl::tune
