// Resume: turns the records of an existing tuning log into the state the
// tuning loop would have had after measuring them (resume.h).
#include "tune/resume.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "ir/error.h"
#include "log/log_file.h"
#include "search/task_search.h"

namespace tunectl::tune {

std::vector<double> best_cost_history(const std::vector<double>& costs, int chunk) {
  internal_check(chunk >= 1, "best_cost_history: chunk must be positive");
  std::vector<double> history;
  double best = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < costs.size(); ++i) {
    best = std::min(best, costs[i]);
    if ((i + 1) % static_cast<size_t>(chunk) == 0 || i + 1 == costs.size()) history.push_back(best);
  }
  return history;
}

ResumeState resume_from_log(const std::vector<log::Record>& records, const std::vector<tasks::Task>& tasks,
                            int measures_per_round, const target::Target& target) {
  ResumeState out;
  out.tasks.resize(tasks.size());
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < tasks.size(); ++i) index_of.emplace(tasks[i].workload_key, i);

  std::vector<std::vector<double>> costs(tasks.size());
  for (const log::Record& r : records) {
    auto it = index_of.find(r.task.workload_key);
    // An estimated record (construction without a device) timed nothing: its
    // program is measured like any other, and its cost trains no model.
    if (it == index_of.end() || r.result.estimated) continue;
    if (!out.measured_keys.insert(log::program_key(r.task.workload_key, r.steps)).second) continue;
    const size_t t = it->second;
    const double cost = r.result.median_cost();
    ResumedTask& rt = out.tasks[t];
    ++rt.trials;
    ++out.trials;
    if (!r.result.ok() && rt.errors++ == 0) rt.first_error = r.result.error_text();
    costs[t].push_back(cost);
    try {
      schedule::State state = schedule::replay(tasks[t].dag, r.steps);
      out.features.push_back(search::program_features(state, static_cast<int>(t), target));
      out.throughputs.push_back(r.result.ok() && cost > 0 ? tasks[t].flops / cost : 0.0);
      rt.measured.emplace_back(std::move(state), cost);
    } catch (const UserError& e) {
      // An instantiation error's steps may legitimately not replay; the
      // record still counts as measured, it just cannot seed the search.
      if (r.result.ok()) {
        out.warnings.push_back("skipping a record of " + tasks[t].name + " that does not replay: " + e.what());
      }
    }
  }
  // After a runoff, the best is its winner's (or a later record's), as the
  // log's readers take it (log::best_records); the records come of one target.
  std::set<std::string> had_runoff;
  for (const log::Record& r : records)
    if (r.result.runoff) had_runoff.insert(r.task.workload_key);
  const std::map<std::string, log::Record> best =
      had_runoff.empty() ? std::map<std::string, log::Record>{} : log::best_records(records, records.front().task.target);
  for (size_t t = 0; t < tasks.size(); ++t) {
    ResumedTask& rt = out.tasks[t];
    rt.best_cost = costs[t].empty() ? std::numeric_limits<double>::infinity()
                                    : *std::min_element(costs[t].begin(), costs[t].end());
    if (had_runoff.count(tasks[t].workload_key)) rt.best_cost = best.at(tasks[t].workload_key).result.median_cost();
    rt.history = best_cost_history(costs[t], measures_per_round);
  }
  return out;
}

}  // namespace tunectl::tune
