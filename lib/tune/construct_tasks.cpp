// Construction of every task into the log (construct_tasks.h).
#include "tune/construct_tasks.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <limits>

#include <spdlog/spdlog.h>

#include "ir/error.h"
#include "log/log_file.h"
#include "search/construct.h"
#include "te/compute_dag.h"
#include "te/dag_json.h"
#include "tune/interrupt.h"

namespace tunectl::tune {

uint64_t construction_seed(uint64_t seed, const std::string& workload_key) {
  return seed + std::stoull(te::stable_hash_hex(workload_key), nullptr, 16);
}

bool compiler_accepts(const backend::Backend& backend, const lower::LoweredFunc& func) {
  if (!backend.builds_device_code()) return true;
  try {
    backend.emit(func, "resources");
    return true;
  } catch (const UserError&) {
    return false;
  }
}

TuneSummary construct_tasks(const std::vector<tasks::Task>& tasks, const TuneOptions& options) {
  user_check(!tasks.empty(), "tune: no tasks to tune");
  user_check(!options.log_path.empty(), "tune: a log file is required");
  const auto start = std::chrono::steady_clock::now();
  InterruptGuard guard;
  const std::shared_ptr<const backend::Backend> backend = options.backend ? options.backend : backend::host_backend();
  const target::Target& target = backend->target();
  const search::SearchParams params = search::for_target(options.search, target);
  TuneSummary summary;
  summary.log_path = options.log_path;
  summary.estimated = true;

  std::map<std::string, log::Record> existing;
  if (std::filesystem::exists(options.log_path)) {
    log::LogContents contents = log::read_log(options.log_path);
    for (const std::string& w : contents.warnings) spdlog::warn("{}", w);
    summary.warnings = contents.warnings;
    existing = log::best_records(contents.records, target.str());
  }
  log::LogWriter writer(options.log_path);
  for (size_t t = 0; t < tasks.size(); ++t) {
    const tasks::Task& task = tasks[t];
    TaskSummary ts;
    ts.name = task.name;
    ts.workload_key = task.workload_key;
    ts.weight = task.weight;
    ts.flops = task.flops;
    ts.best_cost = std::numeric_limits<double>::infinity();
    if (auto it = existing.find(task.workload_key); it != existing.end()) {
      ts.best_cost = it->second.result.median_cost();
      ts.trials = 1;
      ts.status = it->second.result.estimated ? "constructed (resumed)" : "measured (resumed)";
      ++summary.resumed_trials;
    } else if (guard.interrupted()) {
      ts.status = "interrupted";
    } else {
      std::optional<search::Construction> c =
          search::construct_program(
              task.dag, params, options.seed + t,
              [&](const lower::LoweredFunc& f) { return compiler_accepts(*backend, f); },
              search::ConstructParams{.other_optima = false});
      if (!c) {
        ts.status = "no program";
      } else {
        log::Record r;
        r.task = log::TaskInfo{task.workload_key, task.name, target.str(), te::dag_to_json(*task.dag)};
        r.steps = c->best.state.history;
        r.result.costs = {c->estimated_seconds};
        r.result.estimated = true;
        r.result.run_seconds = c->seconds;
        r.result.timestamp = static_cast<int64_t>(std::time(nullptr));
        writer.append(r);
        ts.best_cost = c->estimated_seconds;
        ts.trials = 1;
        ts.status = "constructed";
        ++summary.new_trials;
        summary.time.search_s += c->seconds;
        if (options.progress)
          spdlog::info("constructed task {}/{} {}: estimated {:.4f} ms ({} programs rated in {:.1f} s)", t + 1,
                       tasks.size(), task.name, c->estimated_seconds * 1e3, c->states_rated, c->seconds);
      }
    }
    summary.tasks.push_back(ts);
  }
  summary.interrupted = guard.interrupted();
  summary.stop_reason = summary.interrupted ? "interrupted" : "every task constructed";
  summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  summary.time.other_s = std::max(0.0, summary.wall_seconds - summary.time.search_s);
  return summary;
}

}  // namespace tunectl::tune
