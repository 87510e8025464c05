#include "tune/analytic_ranking.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <memory>
#include <numeric>
#include <utility>

#include <spdlog/spdlog.h>

#include "backend/backend.h"
#include "ir/error.h"
#include "runtime/timer.h"
#include "schedule/state.h"
#include "search/candidate.h"
#include "search/construct.h"
#include "search/cost_model.h"
#include "te/dag_json.h"
#include "tune/side_by_side.h"

namespace tunectl::tune {

namespace {

// One task's measured programs that still replay and lower.
struct TaskPrograms {
  std::shared_ptr<const te::ComputeDAG> dag;
  target::Target target;
  std::vector<const log::Record*> records;
  std::vector<std::shared_ptr<const search::Lowering>> lowerings;
};

// Every task (workload key and target) with at least min_programs of them.
std::vector<TaskPrograms> task_programs(const std::vector<log::Record>& records, int min_programs) {
  std::map<std::pair<std::string, std::string>, std::vector<const log::Record*>> by_task;
  for (const log::Record& r : records)
    // A runoff's records time programs of the task again, in another hour.
    if (r.result.ok() && !r.result.estimated && !r.result.runoff)
      by_task[{r.task.workload_key, r.task.target}].push_back(&r);
  std::vector<TaskPrograms> out;
  for (const auto& [key, task_records] : by_task) {
    if (static_cast<int>(task_records.size()) < min_programs) continue;
    const log::TaskInfo& task = task_records[0]->task;
    TaskPrograms t{std::make_shared<const te::ComputeDAG>(te::dag_from_json(task.dag)),
                   backend::resolve_target(task.target), {}, {}};
    for (const log::Record* r : task_records) {
      try {
        search::Candidate c{schedule::replay(t.dag, r->steps), nullptr};
        search::lower_candidate(c, t.target);
        if (c.lowering->func == nullptr) continue;
        t.records.push_back(r);
        t.lowerings.push_back(c.lowering);
      } catch (const UserError&) {
      }
    }
    if (static_cast<int>(t.records.size()) >= min_programs) out.push_back(std::move(t));
  }
  return out;
}

// The fastest time among the k programs rated best, over the best time.
double regret(const std::vector<size_t>& by_estimate, const std::vector<double>& times, size_t k) {
  double picked = times[by_estimate[0]];
  for (size_t i = 1; i < std::min(k, by_estimate.size()); ++i) picked = std::min(picked, times[by_estimate[i]]);
  return picked / *std::min_element(times.begin(), times.end());
}

// The times per call of each of a task's programs on this machine, scaled
// as Retime says.
std::vector<std::vector<double>> retime_task(const TaskPrograms& t, const Retime& retime) {
  const std::shared_ptr<const backend::Backend> backend = backend::make_backend(t.target);
  backend->check_runs_here("log rank --retime times");
  measure::MeasureOptions measure_options;
  measure_options.backend = backend;
  measure_options.cpu_calls = retime.calls;
  SideBySide programs(t.dag, measure_options, retime.seed);
  const size_t n = t.lowerings.size();
  const size_t anchor = programs.add(*t.lowerings[0]->func);
  std::vector<std::vector<double>> times(n);
  double anchor_first = 0;
  const size_t batch = static_cast<size_t>(std::max(1, retime.batch));
  for (size_t begin = 1; begin < std::max<size_t>(n, 2); begin += batch) {
    std::vector<size_t> which{anchor};
    for (size_t i = begin; i < std::min(n, begin + batch); ++i) which.push_back(programs.add(*t.lowerings[i]->func));
    const std::vector<runtime::Timing> measured = programs.time(which);
    if (begin == 1) {
      anchor_first = measured[0].median();
      times[0] = measured[0].seconds_per_call;
    }
    const double scale = anchor_first / measured[0].median();
    for (size_t i = 1; i < which.size(); ++i) {
      for (double s : measured[i].seconds_per_call) times[begin + i - 1].push_back(s * scale);
      programs.release(which[i]);
    }
  }
  return times;
}

}  // namespace

std::vector<TaskRanking> rank_measured_programs(const std::vector<log::Record>& records, int min_programs) {
  std::vector<TaskRanking> out;
  for (const TaskPrograms& t : task_programs(records, min_programs)) {
    std::vector<double> estimates, times;
    for (size_t i = 0; i < t.records.size(); ++i) {
      estimates.push_back(search::analytic_cost(*t.lowerings[i], t.target));
      times.push_back(t.records[i]->result.median_cost());
    }
    std::vector<size_t> by_estimate(estimates.size());
    std::iota(by_estimate.begin(), by_estimate.end(), 0);
    std::stable_sort(by_estimate.begin(), by_estimate.end(),
                     [&](size_t a, size_t b) { return estimates[a] < estimates[b]; });
    const log::TaskInfo& task = t.records[0]->task;
    out.push_back({task.name, task.target, static_cast<int>(times.size()),
                   *std::min_element(times.begin(), times.end()), search::spearman(estimates, times),
                   regret(by_estimate, times, 1), regret(by_estimate, times, 5)});
  }
  return out;
}

std::vector<log::Record> retime_records(const std::vector<log::Record>& records, int min_programs,
                                        const Retime& retime) {
  std::vector<log::Record> out;
  for (const TaskPrograms& t : task_programs(records, min_programs)) {
    spdlog::info("log rank: timing the {} programs of {} ({})", t.records.size(), t.records[0]->task.name,
                 t.target.str());
    const std::vector<std::vector<double>> times = retime_task(t, retime);
    for (size_t i = 0; i < t.records.size(); ++i) {
      log::Record r = *t.records[i];
      r.result.costs = times[i];
      r.result.timestamp = static_cast<int64_t>(std::time(nullptr));
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace tunectl::tune
