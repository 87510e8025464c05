// `tunectl tune`: the auto-scheduler end to end. Imports the ONNX model,
// extracts its tasks (as `tunectl tasks` lists them; with --layout auto
// those of the layout a first round over every candidate layout's tasks found faster,
// cmd/model_layout.h), runs the tuning loop
// (lib/tune) into a JSON-lines log, prints the summary table, and writes the
// kernels folder (lib/kernels) from the log's best records of the model's
// tasks. Ctrl-C stops after the measurements in flight: the log keeps them,
// the kernels folder is still written, and the exit status is 130.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "cmd/model_inputs.h"
#include "cmd/model_layout.h"
#include "cmd/subcommands.h"
#include "cmd/tuning_logs.h"
#include <spdlog/spdlog.h>

#include "ir/error.h"
#include "kernels/kernel_cache.h"
#include "log/log_file.h"
#include "tasks/extract.h"
#include "tune/constant_footprint.h"
#include "tune/construct_tasks.h"
#include "tune/transfer.h"
#include "tune/tuner.h"

namespace tunectl::cmd {
namespace {

struct TuneCmdOptions {
  std::string model;
  std::string target = "llvm";
  std::string log_path;
  std::vector<std::string> records;  // logs of other runs whose best programs start this one
  std::vector<std::string> retime;   // logs of other machines or hours whose best programs are measured again first
  int retime_top = 8;                // programs per task to measure again
  std::string kernels_dir;
  std::string policy = "gradient";
  std::string search = "evolutionary";
  int measures_per_round = 0;  // 0: chosen from the budget (run_tune)
  ModelInputOptions model_inputs;
  std::string layout = "auto";
  tune::TuneOptions tune;
  bool no_cost_model = false;
  bool wait_for_log = false;
};

std::vector<LaidOutModel> model_layouts(const TuneCmdOptions& o) {
  return layout_candidates(specialize_model(o.model, o.model_inputs), o.layout, o.tune.backend->target());
}

void finish(const tune::TuneSummary& summary, const std::vector<tasks::Task>& tasks, const TuneCmdOptions& o);

TuningLogs log_so_far(const TuneCmdOptions& o) {
  if (!std::filesystem::exists(o.log_path)) return {};
  return read_tuning_logs(o.log_path, o.tune.backend->target().str());
}

// The tasks of every candidate layout, in order (a task two layouts share
// appears twice).
std::vector<tasks::Task> tasks_of(const std::vector<LaidOutModel>& layouts) {
  std::vector<tasks::Task> all;
  for (const LaidOutModel& l : layouts) all.insert(all.end(), l.tasks.begin(), l.tasks.end());
  return all;
}

// The first round of --layout auto ends early once the last candidate (nchw,
// the model's own graph) cannot win: when its measured tasks alone sum to
// more than all of the first's (nchwc, which choosing Winograd per
// convolution only makes faster), the rest of its tasks would only add to
// that. Empty while it still can.
std::string nchw_cannot_win(const LaidOutModel& first, const LaidOutModel& last,
                            const std::map<std::string, double>& best) {
  auto cost = [&](const tasks::Task& t) {
    auto it = best.find(t.workload_key);
    return it == best.end() ? std::numeric_limits<double>::infinity() : it->second;
  };
  double first_sum = 0;
  for (const tasks::Task& t : first.tasks) first_sum += t.weight * cost(t);
  double measured = 0;
  int left = 0;
  for (const tasks::Task& t : last.tasks) {
    if (std::isfinite(cost(t))) measured += t.weight * cost(t);
    else ++left;
  }
  if (!std::isfinite(first_sum) || left == 0 || measured <= first_sum) return "";
  char why[200];
  std::snprintf(why, sizeof why,
                "%s's measured tasks sum to %.4g ms, above all of %s's %.4g ms: its %d other tasks are left untuned",
                last.layout.c_str(), measured * 1e3, first.layout.c_str(), first_sum * 1e3, left);
  return why;
}

// --layout auto with several candidate layouts: tunes the tasks of all for
// a first round each (8 programs per task, fewer when that would take more
// than half of the trials), then keeps the tasks of the layout whose sum of
// weight x best is lower (choose_layout: Winograd per convolution), with the
// budgets of o.tune reduced by what that took. The last candidate's own
// tasks come last, largest weight x FLOPs first, so that nchw_cannot_win
// ends the round after the fewest. A log that covers every layout already
// (a resumed run), or shows that nchw cannot win, decides without measuring.
std::vector<tasks::Task> measure_layouts(std::vector<LaidOutModel> candidates, TuneCmdOptions& o) {
  TuningLogs logs = log_so_far(o);
  const bool covered = std::all_of(candidates.begin(), candidates.end(), [&](const LaidOutModel& c) {
    return std::isfinite(logged_latency(c.tasks, logs));
  });
  std::map<std::string, double> logged;
  for (const tasks::Task& t : tasks_of(candidates)) logged[t.workload_key] = best_cost(logs, t.workload_key);
  const std::string nchw_lost = covered ? "" : nchw_cannot_win(candidates.front(), candidates.back(), logged);
  if (!nchw_lost.empty()) std::printf("layout auto: by the log, %s\n", nchw_lost.c_str());
  if (!covered && nchw_lost.empty()) {
    std::vector<tasks::Task> both;  // every candidate's tasks, each once
    std::set<std::string> keys;
    for (size_t i = 0; i + 1 < candidates.size(); ++i)
      for (const tasks::Task& t : candidates[i].tasks)
        if (keys.insert(t.workload_key).second) both.push_back(t);
    std::vector<tasks::Task> last;
    for (const tasks::Task& t : candidates.back().tasks)
      if (keys.insert(t.workload_key).second) last.push_back(t);
    std::stable_sort(last.begin(), last.end(), [](const tasks::Task& a, const tasks::Task& b) {
      return a.weight * a.flops > b.weight * b.flops;
    });
    both.insert(both.end(), last.begin(), last.end());
    // One warm-up round of every task of both, within half of the trials.
    const int n = static_cast<int>(both.size());
    tune::TuneOptions first = o.tune;
    if (o.measures_per_round == 0) first.measures_per_round = std::clamp(o.tune.trials / (2 * n), 1, 8);
    first.trials = std::min(first.measures_per_round * n, o.tune.trials);
    std::string each;
    for (const LaidOutModel& c : candidates) each += (each.empty() ? "" : ", ") + c.layout + " " + std::to_string(c.tasks.size());
    std::printf("layout auto: tuning the %zu tasks of the %zu layouts (%s) for %d trials, then the faster\n",
                both.size(), candidates.size(), each.c_str(), first.trials);
    std::fflush(stdout);
    first.stop_when = [&](const std::map<std::string, double>& best) {
      return nchw_cannot_win(candidates.front(), candidates.back(), best);
    };
    first.runoff_top = 0;  // the main phase's runoff decides, over the chosen layout's tasks
    tune::TuneSummary summary = tune::tune(both, first);
    if (summary.interrupted || !summary.bugs.empty()) finish(summary, both, o);  // exits
    if (summary.stop_reason != "trial budget" && summary.stop_reason != "all tasks done")
      std::printf("layout auto: the first round ends early: %s\n", summary.stop_reason.c_str());
    o.tune.trials = std::max(0, o.tune.trials - summary.new_trials);
    if (o.tune.time_budget_s > 0) o.tune.time_budget_s = std::max(1.0, o.tune.time_budget_s - summary.wall_seconds);
    logs = log_so_far(o);
  }
  return choose_layout(std::move(candidates), &logs).tasks;
}

// The kernels folder from the whole log (earlier runs included), restricted
// to this model's tasks and the target.
void write_kernels(const std::vector<tasks::Task>& tasks, const std::string& log_path, const std::string& dir,
                   const backend::Backend& backend) {
  std::set<std::string> keys;
  for (const tasks::Task& t : tasks) keys.insert(t.workload_key);
  std::vector<log::Record> best;
  for (auto& [key, record] : log::best_records(log::read_log(log_path).records, backend.target().str())) {
    if (keys.count(key)) best.push_back(std::move(record));
  }
  if (best.empty()) {
    std::printf("no valid program measured yet: no kernels written\n");
    return;
  }
  kernels::Manifest manifest = kernels::write_kernel_cache(best, dir, backend);
  std::printf("wrote %zu of %zu kernels to %s (manifest: %s)\n", manifest.kernels.size(), tasks.size(), dir.c_str(),
              (std::filesystem::path(dir) / "manifest.json").string().c_str());
}

// --records: the best programs other logs hold for the tasks of every
// candidate layout go into this run's log before it is read.
void transfer(const std::vector<LaidOutModel>& layouts, const TuneCmdOptions& o) {
  const std::vector<tasks::Task> all = tasks_of(layouts);
  const tune::Transfer t = tune::transfer_records(o.records, all, o.tune.backend->target().str(), o.log_path);
  for (const std::string& w : t.warnings) spdlog::warn("{}", w);
  std::string names;
  for (const std::string& n : t.tasks) names += (names.empty() ? ": " : ", ") + n;
  std::printf("records: %d of %s from %d file%s; the best programs of %zu task%s start this run%s\n", t.records,
              o.tune.backend->target().str().c_str(), t.files, t.files == 1 ? "" : "s", t.tasks.size(),
              t.tasks.size() == 1 ? "" : "s", names.c_str());
}

// --retime: the best programs other logs hold for the tasks of every
// candidate layout are measured again first (no record is copied).
void retime(const std::vector<LaidOutModel>& layouts, TuneCmdOptions& o) {
  const std::vector<tasks::Task> all = tasks_of(layouts);
  tune::Retime r = tune::programs_to_retime(o.retime, all, o.tune.backend->target().str(), o.retime_top);
  for (const std::string& w : r.warnings) spdlog::warn("{}", w);
  size_t programs = 0;
  for (const auto& [key, steps] : r.programs) programs += steps.size();
  std::printf("retime: %d records of %s from %d file%s; %zu programs of %zu tasks (up to %d each) are measured "
              "again first\n",
              r.records, o.tune.backend->target().str().c_str(), r.files, r.files == 1 ? "" : "s", programs,
              r.programs.size(), o.retime_top);
  o.tune.retime = std::move(r.programs);
}

void run_tune(TuneCmdOptions& o) {
  o.tune.backend = backend::make_backend(backend::resolve_target(o.target));
  o.tune.progress = spdlog::should_log(spdlog::level::info);  // off with -q
  // A GPU target on a machine without one: construction needs no device,
  // and its kernels are ready for one.
  const std::optional<std::string> no_device =
      o.tune.backend->builds_device_code() ? o.tune.backend->why_not_here() : std::nullopt;
  const bool construct = o.search == "construct" || no_device.has_value();
  if (!construct) o.tune.backend->check_runs_here("tune measures");
  const std::string stem = std::filesystem::path(o.model).stem().string();
  if (o.log_path.empty()) o.log_path = stem + ".log.json";
  if (o.kernels_dir.empty()) o.kernels_dir = stem + ".kernels";
  o.tune.log_path = o.log_path;
  if (o.measures_per_round > 0) o.tune.measures_per_round = o.measures_per_round;
  o.tune.use_cost_model = !o.no_cost_model;
  o.tune.scheduler.policy = o.policy == "round-robin" ? tasks::SchedulePolicy::RoundRobin : tasks::SchedulePolicy::Gradient;

  std::vector<LaidOutModel> layouts = model_layouts(o);
  // Held from before the log is first read (resume, --records, --layout
  // auto) until the kernels folder is written.
  const log::LogLock log_lock(o.log_path, o.wait_for_log);
  if (!o.records.empty()) transfer(layouts, o);
  user_check(o.retime.empty() || !construct, "tune: --retime measures programs, and this run constructs without timing any");
  if (!o.retime.empty()) retime(layouts, o);
  // The runoff times the other layouts' tasks too: the layout (and each
  // convolution's Winograd or direct task) is chosen by comparing them.
  if (layouts.size() > 1) o.tune.runoff_also = tasks_of(layouts);
  // Construction measures nothing to choose a layout by: the first candidate.
  std::vector<tasks::Task> tasks =
      layouts.size() == 1 || construct ? std::move(layouts.front().tasks) : measure_layouts(std::move(layouts), o);
  if (construct) {
    if (no_device) {
      std::printf("%s: %s; constructing every task's program from the analytic model instead, without timing any\n",
                  o.tune.backend->target().str().c_str(), no_device->c_str());
    }
    std::printf("constructing %zu tasks of %s for %s, log %s\n", tasks.size(), o.model.c_str(),
                o.tune.backend->target().str().c_str(), o.log_path.c_str());
    std::fflush(stdout);
    finish(tune::construct_tasks(tasks, o.tune), tasks, o);
    return;
  }
  if (o.measures_per_round == 0) {
    // Half of Ansor's 64 per round, so the cost model is retrained and the
    // search restarts from it twice as often (BERT's dense, 200 trials, seed
    // 0: best 2.64 ms at 32 per round against 2.90 ms at 64); fewer for a
    // small budget so that every task gets its warm-up round and the
    // scheduler still has rounds left to choose.
    const int share = o.tune.trials / (2 * static_cast<int>(std::max<size_t>(1, tasks.size())));
    o.tune.measures_per_round = std::clamp(share, 4, 32);
  }
  std::printf("tuning %zu tasks of %s for %s: %d trials, log %s\n", tasks.size(), o.model.c_str(),
              o.tune.backend->target().str().c_str(), o.tune.trials, o.log_path.c_str());
  if (!o.tune.backend->builds_device_code()) {
    std::printf("timing: %s\n", tune::constant_footprint(tasks, o.tune.backend->target()).describe().c_str());
  }
  std::fflush(stdout);
  finish(tune::tune(tasks, o.tune), tasks, o);
}

// The summary table, the kernels folder, and the exit status.
void finish(const tune::TuneSummary& summary, const std::vector<tasks::Task>& tasks, const TuneCmdOptions& o) {
  std::printf("\n%s", tune::summary_table(summary).c_str());
  std::printf("log: %s\n", o.log_path.c_str());
  write_kernels(tasks, o.log_path, o.kernels_dir, *o.tune.backend);
  if (summary.interrupted) {
    std::printf("interrupted: the log keeps every measurement; run the same command again to resume\n");
    std::fflush(stdout);
    std::fflush(stderr);
    std::exit(130);  // the shell convention for "ended by SIGINT"
  }
  // Everything else is written: now the bugs make the exit status 70.
  if (!summary.bugs.empty())
    internal_fail("tune: ", summary.bugs.size(), " candidate(s) hit an internal error in tunectl (listed above)");
}

}  // namespace

void register_tune(CLI::App& app) {
  auto o = std::make_shared<TuneCmdOptions>();
  CLI::App* sub = app.add_subcommand("tune", "Tune a model's tasks into a log and a kernels folder");
  sub->add_option("model", o->model, "ONNX model file")->required()->check(CLI::ExistingFile);
  sub->add_option("--target", o->target, "Code generation target: llvm (this CPU), \"llvm -mcpu=NAME\", \"llvm -mattr=+f,-g\", cuda, \"cuda -arch=sm_90\"")->capture_default_str();
  sub->add_option("--trials", o->tune.trials, "New measurements in all, across tasks")
      ->default_val(1000)
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--log", o->log_path, "Tuning log, appended to and resumed from (default: <model stem>.log.json)");
  sub->add_option("--records", o->records,
                  "Logs (files or folders) of other runs or models: each task they tuned for this target starts "
                  "from their best program, copied into --log")
      ->expected(1, -1);
  sub->add_option("--retime", o->retime,
                  "Logs (files or folders) of another machine or hour: each task's best programs there for this "
                  "target are measured again here first, their times not copied")
      ->expected(1, -1);
  sub->add_option("--retime-top", o->retime_top, "Programs per task that --retime measures again")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub->add_option("--runoff", o->tune.runoff_top,
                  "Host CPU: after the search, time each task's fastest programs, up to this many, again side by "
                  "side; the winner becomes its best (0: no runoff)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--kernels", o->kernels_dir, "Kernels folder to write (default: <model stem>.kernels)");
  sub->add_flag("--wait-for-log", o->wait_for_log,
                "When another run is writing --log, wait for it to end instead of stopping");
  sub->add_option("--seed", o->tune.seed, "Seed of the scheduler, the searches and the cost model")->default_val(0);
  sub->add_option("--jobs", o->tune.measure.parallel_builds, "Parallel builds (default: the cores available)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--worker-memory", o->tune.measure.worker_memory_mib,
                  "MiB a measurement worker may allocate beyond what it starts with (0: no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--worker-cpu-time", o->tune.measure.worker_cpu_seconds,
                  "CPU seconds (all threads) a candidate's build or run may use (0: no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--time-budget", o->tune.time_budget_s, "Stop starting rounds after this many seconds")
      ->check(CLI::PositiveNumber);
  sub->add_option("--measures-per-round", o->measures_per_round,
                  "Programs measured per scheduler round (default: trials / (2 x tasks), within 4..32)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--policy", o->policy, "Task scheduling policy")
      ->default_val("gradient")
      ->check(CLI::IsMember({"gradient", "round-robin"}));
  sub->add_option("--early-stopping", o->tune.scheduler.early_stopping_rounds,
                  "Stop tuning a task after this many rounds in a row without a better program (0: never)")
      ->default_val(0)
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--search", o->search,
                  "evolutionary: measure programs found by the evolutionary search; construct: build each task's "
                  "program from the analytic cost model in seconds, timing nothing (cuda; the default for cuda "
                  "without a GPU)")
      ->default_val("evolutionary")
      ->check(CLI::IsMember({"evolutionary", "construct"}));
  sub->add_flag("--no-cost-model", o->no_cost_model, "Rank candidates randomly instead of with XGBoost (a baseline)");
  add_model_input_options(sub, o->model_inputs);
  add_layout_option(sub, o->layout);
  sub->callback([o] { run_tune(*o); });
}

}  // namespace tunectl::cmd
