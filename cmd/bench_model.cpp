// `tunectl bench MODEL [--log FILE]`: a whole ONNX model end to end on seeded
// random inputs, with default schedules and, given a tuning log, with the
// tuned schedules of the log's best records (every subgraph whose workload
// key the log covers replays its best record's steps; the rest keep the
// default), side by side in one process: median, min..max spread, speedup,
// and how many of the model's tasks the log covers. The tuned run's outputs
// are compared with the default run's.
#include <chrono>
#include <cstdio>
#include <memory>
#include <set>
#include <string>

#include "check/reference_check.h"
#include "cmd/bench.h"
#include "cmd/model_runner.h"
#include "ir/error.h"
#include "runtime/thread_pool.h"
#include "schedule/state.h"

namespace tunectl::cmd {

namespace {

struct Variant {
  LoadedModel model;
  double compile_s = 0;
};

Variant load(const BenchOptions& o, const graph::ExecutorOptions& executor_options) {
  graph::ImportOptions import_options;
  for (const auto& spec : o.input_shapes) graph::parse_input_shape(spec, import_options);
  const auto start = std::chrono::steady_clock::now();
  LoadedModel m = load_model(o.model, import_options, executor_options);
  return {std::move(m), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

runtime::Timing time_model(LoadedModel& m, const std::map<std::string, runtime::NDArray>& inputs, int repeats) {
  runtime::TimingOptions timing;
  timing.repeats = repeats;
  timing.min_repeat_seconds = 0;  // a whole model is long enough to time call by call
  return runtime::time_function([&] { m.executor.run(inputs); }, timing);
}

// Every output of the tuned run against the default run's (the default
// schedules compute what te::evaluate computes; the executor tests check it).
void compare_runs(std::map<std::string, runtime::NDArray> tuned, std::map<std::string, runtime::NDArray> reference) {
  for (auto& [name, expected] : reference) {
    runtime::CompareResult cmp = runtime::all_close(tuned.at(name), expected, 1e-3, 1e-4);
    user_check(cmp.ok, "bench: the tuned model's output ", name, " differs from the default schedules': ", cmp.message);
  }
}

}  // namespace

void run_bench_model(const BenchOptions& o) {
  graph::ExecutorOptions default_options;
  default_options.backend = o.backend;
  default_options.profile = o.profile && o.log.empty();
  Variant base = load(o, default_options);
  const auto inputs = random_model_inputs(base.model.graph, 1);
  std::printf("%s: %zu subgraphs, %d threads, %d runs each\n", o.model.c_str(), base.model.num_subgraphs,
              runtime::num_threads(), o.repeats);
  runtime::Timing base_t = time_model(base.model, inputs, o.repeats);
  std::printf("%-8s compiled in %5.1f s; %s\n", "default", base.compile_s, timing_summary(base_t).c_str());
  if (o.log.empty()) {
    std::printf("activation memory: %.2f MiB planned (%.2f MiB without reuse)\n",
                base.model.executor.planned_bytes() / 1048576.0, base.model.executor.unplanned_bytes() / 1048576.0);
    if (o.profile) print_profile(base.model.executor.profile());
    return;
  }

  TuningLogs logs = read_tuning_logs(o.log, o.backend->target().str());
  std::set<std::string> seen, covered;
  graph::ExecutorOptions tuned_options;
  tuned_options.backend = o.backend;
  tuned_options.profile = o.profile;
  tuned_options.schedule = [&](const std::shared_ptr<const te::ComputeDAG>& dag) {
    const std::string key = dag->workload_key();
    seen.insert(key);
    auto it = logs.best.find(key);
    if (it == logs.best.end()) return schedule::State::initial(dag);
    covered.insert(key);
    return schedule::replay(dag, it->second.steps);
  };
  Variant tuned = load(o, tuned_options);
  compare_runs(tuned.model.executor.run(inputs), base.model.executor.run(inputs));
  runtime::Timing tuned_t = time_model(tuned.model, inputs, o.repeats);
  std::printf("%-8s compiled in %5.1f s; %s\n", "tuned", tuned.compile_s, timing_summary(tuned_t).c_str());
  std::printf("speedup: %.2fx (default median / tuned median); the log covers %zu of %zu tasks\n",
              base_t.median() / tuned_t.median(), covered.size(), seen.size());
  if (o.profile) print_profile(tuned.model.executor.profile());
}

}  // namespace tunectl::cmd
