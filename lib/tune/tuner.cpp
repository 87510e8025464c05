// The tuning loop (tuner.h): resume from the log, then rounds of
// scheduler pick -> search batch -> measure (each record appended as soon as
// its candidate is measured) -> cost model update -> scheduler report,
// until a budget, the scheduler or an interrupt ends it.
#include "tune/tuner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include <spdlog/spdlog.h>

#include "ir/error.h"
#include "log/log_file.h"
#include "search/construct.h"
#include "search/task_search.h"
#include "tasks/similarity.h"
#include "te/dag_json.h"
#include "tune/constant_footprint.h"
#include "tune/construct_tasks.h"
#include "tune/interrupt.h"
#include "tune/progress.h"
#include "tune/resume.h"

namespace tunectl::tune {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void check_options(const std::vector<tasks::Task>& tasks, const TuneOptions& o) {
  user_check(!tasks.empty(), "tune: no tasks to tune");
  user_check(!o.log_path.empty(), "tune: a log file is required");
  user_check(o.trials >= 0, "tune: trials must not be negative, got ", o.trials);
  user_check(o.time_budget_s >= 0, "tune: the time budget must not be negative, got ", o.time_budget_s);
  user_check(o.measures_per_round >= 1, "tune: measures per round must be at least 1, got ", o.measures_per_round);
  user_check(o.measure.parallel_builds >= 0, "tune: parallel builds must not be negative");
}

void warn(TuneSummary& summary, const std::string& message) {
  spdlog::warn("{}", message);
  summary.warnings.push_back(message);
}

struct TaskRun {
  search::TaskSearch search;
  log::TaskInfo info;
  double best_cost = kInf;
  bool exhausted = false;  // the search returned no new program
};

class Tuner {
 public:
  Tuner(const std::vector<tasks::Task>& tasks, const TuneOptions& options)
      : tasks_(tasks), o_(options), scheduler_(scheduler_tasks(tasks), scheduler_params(options)) {}

  TuneSummary run();

 private:
  static std::vector<tasks::SchedulerTask> scheduler_tasks(const std::vector<tasks::Task>& tasks) {
    std::vector<tasks::SchedulerTask> out;
    for (const tasks::Task& t : tasks) out.push_back({double(t.weight), t.flops, tasks::similarity_key(*t.dag)});
    return out;
  }
  static tasks::SchedulerParams scheduler_params(const TuneOptions& o) {
    tasks::SchedulerParams p = o.scheduler;
    p.seed = o.seed;
    return p;
  }

  void resume();
  // Seeds each task's search with its programs of o_.retime the log lacks.
  void seed_retimed();
  // Searches and measures one round of task t; a search that ran dry marks
  // the task exhausted.
  void tune_round(int t);
  // Measures the constructed best of each resumed task whose log lacks it,
  // all in one batch before the rounds (within the trial budget).
  void measure_constructed();
  // Measures programs of the tasks `of` (program i of task of[i]), logging
  // each result as it comes, then retrains the cost model once.
  void measure(const std::vector<int>& of, const std::vector<search::Candidate>& programs);
  std::string stop_reason() const;
  double elapsed() const { return seconds_since(start_); }
  void show_progress(int t, bool end_of_round);
  // The runoff (runoff.h): each task's best becomes its winner's cost.
  void run_runoff(const measure::MeasureOptions& measure_options);

  const std::vector<tasks::Task>& tasks_;
  const TuneOptions& o_;
  tasks::TaskScheduler scheduler_;
  std::shared_ptr<const backend::Backend> backend_;
  std::unique_ptr<search::CostModel> model_;
  std::vector<TaskRun> runs_;
  std::vector<std::optional<search::Candidate>> constructed_;  // a resumed task's constructed best, till measured
  std::set<std::string> measured_;  // log::program_key of every program in the log
  std::unique_ptr<measure::Measurer> measurer_;
  std::unique_ptr<log::LogWriter> writer_;
  std::unique_ptr<ProgressDisplay> progress_;
  InterruptGuard* guard_ = nullptr;
  TuneSummary summary_;
  Clock::time_point start_ = Clock::now();
  int round_ = 0;
};

void Tuner::resume() {
  if (!std::filesystem::exists(o_.log_path)) return;
  log::LogContents contents = log::read_log(o_.log_path);
  for (const std::string& w : contents.warnings) warn(summary_, w);
  const std::string target = backend_->target().str();
  const std::string note = log::other_targets_note(contents.records, target);
  if (!note.empty()) warn(summary_, o_.log_path + ": " + note);
  ResumeState state = resume_from_log(log::records_for_target(contents.records, target), tasks_, o_.measures_per_round, backend_->target());
  for (const std::string& w : state.warnings) warn(summary_, w);
  measured_ = std::move(state.measured_keys);
  summary_.resumed_trials = state.trials;
  for (size_t t = 0; t < tasks_.size(); ++t) {
    ResumedTask& rt = state.tasks[t];
    for (auto& [s, cost] : rt.measured) runs_[t].search.add_measured({std::move(s), nullptr}, cost);
    runs_[t].best_cost = rt.best_cost;
    summary_.tasks[t].trials = rt.trials;
    summary_.tasks[t].errors = rt.errors;
    summary_.tasks[t].first_error = rt.first_error;
    if (!rt.history.empty()) scheduler_.restore(static_cast<int>(t), rt.history);
  }
  if (!state.features.empty()) model_->update(state.features, state.throughputs);
}

void Tuner::seed_retimed() {
  for (size_t t = 0; t < tasks_.size(); ++t) {
    auto it = o_.retime.find(tasks_[t].workload_key);
    if (it == o_.retime.end()) continue;
    for (const std::vector<schedule::Step>& steps : it->second) {
      if (measured_.count(log::program_key(tasks_[t].workload_key, steps))) continue;
      try {
        runs_[t].search.add_seed({schedule::replay(tasks_[t].dag, steps), nullptr});
      } catch (const UserError& e) {
        warn(summary_, "not retiming a program of " + tasks_[t].name + " that does not replay: " + e.what());
      }
    }
  }
}

std::string Tuner::stop_reason() const {
  if (guard_->interrupted()) return "interrupted";
  if (summary_.new_trials >= o_.trials) return "trial budget";
  if (o_.time_budget_s > 0 && elapsed() >= o_.time_budget_s) return "time budget";
  if (o_.stop_when) {
    std::map<std::string, double> best;
    for (size_t t = 0; t < tasks_.size(); ++t) best[tasks_[t].workload_key] = runs_[t].best_cost;
    return o_.stop_when(best);
  }
  return "";
}

void Tuner::show_progress(int t, bool end_of_round) {
  ProgressInfo p;
  p.round = round_;
  p.task = t;
  p.num_tasks = static_cast<int>(tasks_.size());
  p.task_name = tasks_[t].name;
  p.trials = summary_.new_trials;
  p.trial_budget = o_.trials;
  const double best = runs_[t].best_cost;
  p.task_gflops = std::isfinite(best) && best > 0 ? tasks_[t].flops / best / 1e9 : 0;
  p.task_best_s = std::isfinite(best) && best > 0 ? best : 0;
  p.latency_s = scheduler_.objective();
  p.elapsed_s = elapsed();
  double left = -1;
  if (summary_.new_trials > 0) left = p.elapsed_s / summary_.new_trials * (o_.trials - summary_.new_trials);
  if (o_.time_budget_s > 0) {
    const double budget_left = std::max(0.0, o_.time_budget_s - p.elapsed_s);
    left = left < 0 ? budget_left : std::min(left, budget_left);
  }
  p.left_s = left;
  progress_->update(p, end_of_round);
}

void Tuner::tune_round(int t) {
  TaskRun& run = runs_[t];
  const std::string& key = tasks_[t].workload_key;
  const int n = std::min(o_.measures_per_round, o_.trials - summary_.new_trials);
  const Clock::time_point search_start = Clock::now();
  const double lowering_before = run.search.lowering_seconds();
  std::vector<search::Candidate> batch = run.search.next_batch(
      n, *model_, [&](const schedule::State& s) { return measured_.count(log::program_key(key, s.history)) > 0; });
  const double lowering_s = run.search.lowering_seconds() - lowering_before;
  summary_.time.lowering_s += lowering_s;
  summary_.time.search_s += seconds_since(search_start) - lowering_s;
  if (batch.empty()) {
    // The search space ran dry: the round changed nothing.
    run.exhausted = true;
    scheduler_.report_round(t, run.best_cost);
    return;
  }
  measure(std::vector<int>(batch.size(), t), batch);
  scheduler_.report_round(t, run.best_cost);
}

void Tuner::measure(const std::vector<int>& of, const std::vector<search::Candidate>& programs) {
  std::vector<search::ProgramFeatures> features;
  std::vector<double> throughputs;
  // The search alone may take a while: an interrupt or the time budget that
  // arrived meanwhile is honored before anything is measured, and during the
  // measurement between candidates.
  std::vector<measure::MeasureInput> inputs;
  for (size_t i = 0; i < programs.size(); ++i) {
    const TaskRun& run = runs_[of[i]];
    const double cutoff = std::isfinite(run.best_cost) ? o_.slow_cutoff_factor * run.best_cost : 0;
    inputs.push_back({tasks_[of[i]].dag, programs[i].state.history, programs[i].lowering->func, cutoff});
  }
  auto record = [&](size_t i, log::MeasureResult r) {
    const int t = of[i];
    TaskRun& run = runs_[t];
    const double cost = r.median_cost();
    const int line = writer_->append({run.info, programs[i].state.history, r});
    if (r.error == log::MeasureError::InternalError) summary_.bugs.push_back({tasks_[t].name, line, r.error_message});
    measured_.insert(log::program_key(tasks_[t].workload_key, programs[i].state.history));
    run.search.add_measured(programs[i], cost);
    run.best_cost = std::min(run.best_cost, cost);
    features.push_back(search::candidate_features(programs[i], t));
    throughputs.push_back(r.ok() && cost > 0 ? tasks_[t].flops / cost : 0.0);
    ++summary_.new_trials;
    ++summary_.tasks[t].trials;
    if (!r.ok() && summary_.tasks[t].errors++ == 0) summary_.tasks[t].first_error = r.error_text();
    show_progress(t, false);
  };
  if (stop_reason().empty()) measurer_->measure_each(inputs, record, [&] { return !stop_reason().empty(); });
  // Retraining is the slow part of a round; an interrupted run skips it.
  if (!features.empty() && !guard_->interrupted()) {
    const Clock::time_point training_start = Clock::now();
    model_->update(features, throughputs);
    summary_.time.training_s += seconds_since(training_start);
  }
}

void Tuner::measure_constructed() {
  std::vector<int> of;
  std::vector<search::Candidate> programs;
  for (size_t t = 0; t < tasks_.size(); ++t) {
    std::optional<search::Candidate>& c = constructed_[t];
    if (!c || measured_.count(log::program_key(tasks_[t].workload_key, c->state.history))) continue;
    if (summary_.new_trials + static_cast<int>(programs.size()) >= o_.trials) break;
    of.push_back(static_cast<int>(t));
    programs.push_back(std::move(*c));
  }
  if (programs.empty()) return;
  ++round_;
  measure(of, programs);
  for (int t : std::set<int>(of.begin(), of.end())) scheduler_.report_round(t, runs_[t].best_cost);
}

void Tuner::run_runoff(const measure::MeasureOptions& measure_options) {
  const Clock::time_point start = Clock::now();
  spdlog::info("runoff: timing the {} fastest programs of each task side by side", o_.runoff_top);
  std::vector<tasks::Task> timed = tasks_;
  std::set<std::string> keys;
  for (const tasks::Task& t : tasks_) keys.insert(t.workload_key);
  for (const tasks::Task& t : o_.runoff_also)
    if (keys.insert(t.workload_key).second) timed.push_back(t);
  // The progress line names the task the runoff times.
  auto next = [&](size_t t) {
    ProgressInfo p;
    p.round = round_;
    p.task = static_cast<int>(t);
    p.num_tasks = static_cast<int>(timed.size());
    p.task_name = "runoff: " + timed[t].name;
    p.trials = summary_.new_trials;
    p.trial_budget = o_.trials;
    p.latency_s = scheduler_.objective();
    p.elapsed_s = elapsed();
    p.left_s = t == 0 ? -1 : seconds_since(start) / static_cast<double>(t) * static_cast<double>(timed.size() - t);
    progress_->update(p, false);
    return !guard_->interrupted();
  };
  std::vector<log::Record> records = log::read_log(o_.log_path).records;
  summary_.runoff = runoff(timed, records, o_.runoff_top, measure_options, *writer_, next);
  progress_->finish();
  summary_.runoff.resize(tasks_.size());  // the summary's tasks
  // The best as the log's readers now take it: the winner, or where two
  // runoffs of a task follow each other in the log, the faster of both.
  const std::map<std::string, log::Record> best = log::best_records(records, backend_->target().str());
  for (size_t t = 0; t < tasks_.size(); ++t) {
    const RunoffTask& r = summary_.runoff[t];
    if (r.programs > 0) runs_[t].best_cost = best.at(tasks_[t].workload_key).result.median_cost();
    if (!r.problem.empty()) warn(summary_, "runoff of " + tasks_[t].name + ": " + r.problem);
  }
  summary_.time.runoff_s = seconds_since(start);
}

TuneSummary Tuner::run() {
  InterruptGuard guard;
  guard_ = &guard;
  summary_.log_path = o_.log_path;
  backend_ = o_.backend ? o_.backend : backend::host_backend();
  backend_->check_runs_here("tune measures");
  const std::string target = backend_->target().str();
  if (o_.use_cost_model) {
    search::XgbParams xgb = o_.xgb;
    xgb.seed = o_.seed + xgb.seed;
    model_ = std::make_unique<search::XgbCostModel>(xgb);
  } else {
    model_ = std::make_unique<search::RandomCostModel>(o_.seed);
  }
  for (size_t t = 0; t < tasks_.size(); ++t) {
    const tasks::Task& task = tasks_[t];
    runs_.push_back({search::TaskSearch(task.dag, static_cast<int>(t), search::for_target(o_.search, backend_->target()), o_.seed + t),
                     log::TaskInfo{task.workload_key, task.name, target, te::dag_to_json(*task.dag)}});
    TaskSummary ts;
    ts.name = task.name;
    ts.workload_key = task.workload_key;
    ts.weight = task.weight;
    ts.flops = task.flops;
    summary_.tasks.push_back(ts);
  }
  resume();
  seed_retimed();
  // Each task's constructed programs (its walks' local optima; seconds, no
  // device) are its first measurements after any retimed ones: the search
  // starts from the analytic model's best. On the CPU they decide what
  // random draws found late or never: light ResNet-50's stage-4 1x1
  // convolutions, constructed, ran at 0.95 and 0.49 ms where 56 measured
  // trials from scratch reached 1.28 and 0.62. A task that already has a
  // valid program (resumed: a later run, or --layout auto's main phase after
  // its first round) starts from its measured programs; its constructed
  // best, where the log lacks it, is measured before any round, in one batch
  // with the other tasks' (measure_constructed): a sketch rule newer than
  // the log (a pooling that reduces outside its lanes ran 5x faster than
  // the committed log's best) reaches it this way rather than through a
  // lucky draw, for one trial per task at most.
  // Seeds take the lighter walk (24 draws, 3 walks; a fifth of `--search
  // construct`'s time): the measurements that follow matter more, and the
  // first of them comes sooner.
  const search::ConstructParams seed_walks{.draws_per_sketch = 24, .walks = 3};
  const Clock::time_point construct_start = Clock::now();
  constructed_.resize(tasks_.size());
  for (size_t t = 0; t < tasks_.size(); ++t) {
    std::optional<search::Construction> c = search::construct_program(
        tasks_[t].dag, search::for_target(o_.search, backend_->target()),
        construction_seed(o_.seed, tasks_[t].workload_key),
        [&](const lower::LoweredFunc& f) { return compiler_accepts(*backend_, f); }, seed_walks);
    if (!c) continue;
    ++summary_.constructed_tasks;
    if (std::isfinite(runs_[t].best_cost)) {
      constructed_[t] = std::move(c->best);  // measured first, unless the log has it
      continue;
    }
    runs_[t].search.add_seed(std::move(c->best));
    for (search::Candidate& other : c->other_optima) runs_[t].search.add_seed(std::move(other));
  }
  summary_.time.search_s += seconds_since(construct_start);
  measure::MeasureOptions measure_options = o_.measure;
  measure_options.backend = backend_;
  if (!backend_->builds_device_code()) {
    set_cpu_timing(measure_options, tasks_, backend_->target());
  }
  measurer_ = std::make_unique<measure::Measurer>(measure_options);
  writer_ = std::make_unique<log::LogWriter>(o_.log_path);
  if (!writer_->warning().empty()) warn(summary_, writer_->warning());
  progress_ = std::make_unique<ProgressDisplay>(o_.progress);
  measure_constructed();

  for (;;) {
    summary_.stop_reason = stop_reason();
    if (!summary_.stop_reason.empty()) break;
    const int t = scheduler_.next_task();
    bool all_exhausted = true;
    for (int i = 0; i < scheduler_.num_tasks(); ++i) all_exhausted &= scheduler_.done(i) || runs_[i].exhausted;
    if (t < 0 || all_exhausted) {
      summary_.stop_reason = "all tasks done";
      break;
    }
    ++round_;
    if (runs_[t].exhausted) {
      scheduler_.report_round(t, runs_[t].best_cost);
      continue;
    }
    tune_round(t);
    show_progress(t, true);
  }
  progress_->finish();
  if (!guard.interrupted() && o_.runoff_top > 0 && !backend_->builds_device_code()) run_runoff(measure_options);

  summary_.interrupted = guard.interrupted();
  if (summary_.interrupted) summary_.stop_reason = "interrupted";
  summary_.wall_seconds = elapsed();
  const measure::MeasureTimes& measured = measurer_->times();
  TimeSplit& time = summary_.time;
  time.compiling_s = measured.building_s;
  time.checking_s = measured.checking_s;
  time.timing_s = measured.timing_s;
  time.other_s = std::max(0.0, summary_.wall_seconds - time.search_s - time.lowering_s - time.compiling_s -
                                   time.checking_s - time.timing_s - time.training_s - time.runoff_s);
  for (size_t t = 0; t < tasks_.size(); ++t) {
    TaskSummary& ts = summary_.tasks[t];
    ts.rounds = scheduler_.rounds(static_cast<int>(t));
    ts.best_cost = runs_[t].best_cost;
    ts.status = runs_[t].exhausted && !scheduler_.done(static_cast<int>(t))
                    ? "exhausted"
                    : tasks::to_string(scheduler_.status(static_cast<int>(t)));
  }
  return summary_;
}

}  // namespace

TuneSummary tune(const std::vector<tasks::Task>& tasks, const TuneOptions& options) {
  check_options(tasks, options);
  return Tuner(tasks, options).run();
}

}  // namespace tunectl::tune
