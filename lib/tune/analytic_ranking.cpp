#include "tune/analytic_ranking.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <utility>

#include <spdlog/spdlog.h>

#include "backend/backend.h"
#include "check/reference_check.h"
#include "ir/error.h"
#include "measure/worker.h"
#include "runtime/kernel.h"
#include "runtime/timer.h"
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

// The median time per call of each lowered program of dag on this
// machine (Retime).
std::vector<double> retime_programs(const te::ComputeDAG& dag, const std::vector<const lower::LoweredFunc*>& funcs,
                                    const std::shared_ptr<const backend::Backend>& backend, const Retime& retime) {
  backend->check_runs_here("log rank --retime times");
  measure::MeasureOptions measure_options;
  measure_options.backend = backend;
  measure_options.cpu_calls = retime.calls;
  std::vector<runtime::NDArray> inputs = check::check_inputs(dag, retime.seed);
  std::vector<runtime::NDArray> outputs = check::poisoned_outputs(dag);
  std::vector<void*> args;
  for (runtime::NDArray& a : inputs) args.push_back(a.raw());
  for (runtime::NDArray& a : outputs) args.push_back(a.raw());
  // One kernel, its packed constants, arguments and timing options.
  struct Program {
    std::unique_ptr<runtime::Kernel> kernel;
    std::vector<runtime::NDArray> packed;
    std::vector<void*> args;
    runtime::TimingOptions timing;
  };
  auto load = [&](const lower::LoweredFunc& func) {
    auto p = std::make_unique<Program>();
    p->kernel = backend->build(func);
    p->args = p->kernel->pack_inputs(args, p->packed);
    p->timing = measure::timing_options_for(dag, inputs, p->packed, measure_options);
    return p;
  };
  const std::unique_ptr<Program> anchor = load(*funcs[0]);
  std::vector<double> times(funcs.size());
  double anchor_first = 0;
  const size_t batch = static_cast<size_t>(std::max(1, retime.batch));
  for (size_t begin = 1; begin < std::max<size_t>(funcs.size(), 2); begin += batch) {
    std::vector<std::unique_ptr<Program>> programs;
    for (size_t i = begin; i < std::min(funcs.size(), begin + batch); ++i) programs.push_back(load(*funcs[i]));
    std::vector<std::function<void()>> calls{[&] { anchor->kernel->run(anchor->args.data()); }};
    std::vector<runtime::TimingOptions> timing{anchor->timing};
    for (const auto& p : programs) {
      calls.push_back([&p] { p->kernel->run(p->args.data()); });
      timing.push_back(p->timing);
    }
    const std::vector<runtime::Timing> t = runtime::time_interleaved(calls, timing);
    if (begin == 1) anchor_first = times[0] = t[0].median();
    const double scale = anchor_first / t[0].median();
    for (size_t i = 0; i < programs.size(); ++i) times[begin + i] = t[i + 1].median() * scale;
  }
  return times;
}

}  // namespace

std::vector<TaskRanking> rank_measured_programs(const std::vector<log::Record>& records, int min_programs,
                                                const std::optional<Retime>& retime) {
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
    std::vector<std::shared_ptr<const lower::LoweredFunc>> funcs;
    for (const log::Record* r : task_records) {
      try {
        search::Candidate c{schedule::replay(dag, r->steps), nullptr};
        const search::Lowering& lowering = search::lower_candidate(c, target);
        if (lowering.func == nullptr) continue;
        estimates.push_back(search::analytic_cost(lowering, target));
        times.push_back(r->result.median_cost());
        funcs.push_back(lowering.func);
      } catch (const UserError&) {
      }
    }
    if (static_cast<int>(times.size()) < min_programs) continue;
    if (retime) {
      spdlog::info("log rank: timing the {} programs of {} ({})", funcs.size(), task.name, task.target);
      std::vector<const lower::LoweredFunc*> lowered;
      for (const auto& f : funcs) lowered.push_back(f.get());
      times = retime_programs(*dag, lowered, backend::make_backend(target), *retime);
    }
    std::vector<size_t> by_estimate(estimates.size());
    std::iota(by_estimate.begin(), by_estimate.end(), 0);
    std::stable_sort(by_estimate.begin(), by_estimate.end(),
                     [&](size_t a, size_t b) { return estimates[a] < estimates[b]; });
    out.push_back({task.name, task.target, static_cast<int>(times.size()),
                   *std::min_element(times.begin(), times.end()), search::spearman(estimates, times),
                   regret(by_estimate, times, 1), regret(by_estimate, times, 5)});
  }
  return out;
}

}  // namespace tunectl::tune
