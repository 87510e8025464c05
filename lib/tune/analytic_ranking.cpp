#include "tune/analytic_ranking.h"

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <utility>

#include "backend/backend.h"
#include "ir/error.h"
#include "schedule/state.h"
#include "search/candidate.h"
#include "search/construct.h"
#include "search/cost_model.h"
#include "te/dag_json.h"

namespace tunectl::tune {

namespace {

// The fastest time among the k programs rated best, over the best time.
double regret(const std::vector<size_t>& by_estimate, const std::vector<double>& times, size_t k) {
  double picked = times[by_estimate[0]];
  for (size_t i = 1; i < std::min(k, by_estimate.size()); ++i) picked = std::min(picked, times[by_estimate[i]]);
  return picked / *std::min_element(times.begin(), times.end());
}

}  // namespace

std::vector<TaskRanking> rank_measured_programs(const std::vector<log::Record>& records, int min_programs) {
  std::map<std::pair<std::string, std::string>, std::vector<const log::Record*>> by_task;
  for (const log::Record& r : records)
    if (r.result.ok() && !r.result.estimated) by_task[{r.task.workload_key, r.task.target}].push_back(&r);
  std::vector<TaskRanking> out;
  for (const auto& [key, task_records] : by_task) {
    if (static_cast<int>(task_records.size()) < min_programs) continue;
    const log::TaskInfo& task = task_records[0]->task;
    auto dag = std::make_shared<const te::ComputeDAG>(te::dag_from_json(task.dag));
    const target::Target target = backend::resolve_target(task.target);
    std::vector<double> estimates, times;
    for (const log::Record* r : task_records) {
      try {
        search::Candidate c{schedule::replay(dag, r->steps), nullptr};
        const search::Lowering& lowering = search::lower_candidate(c, target);
        if (lowering.func == nullptr) continue;
        estimates.push_back(search::analytic_cost(lowering, target));
        times.push_back(r->result.median_cost());
      } catch (const UserError&) {
      }
    }
    if (static_cast<int>(times.size()) < min_programs) continue;
    std::vector<size_t> by_estimate(estimates.size());
    std::iota(by_estimate.begin(), by_estimate.end(), 0);
    std::stable_sort(by_estimate.begin(), by_estimate.end(),
                     [&](size_t a, size_t b) { return estimates[a] < estimates[b]; });
    out.push_back({task.name, task.target, static_cast<int>(times.size()), search::spearman(estimates, times),
                   regret(by_estimate, times, 1), regret(by_estimate, times, 5)});
  }
  return out;
}

}  // namespace tunectl::tune
