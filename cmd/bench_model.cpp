// `tunectl bench MODEL [--log FILE]`: a whole ONNX model end to end on seeded
// random inputs, with default schedules and, given a tuning log, with the
// tuned schedules of the log's best records (every subgraph whose workload
// key the log covers replays its best record's steps; the rest keep the
// default), side by side in one process: median, min..max spread, speedup,
// and how many of the model's tasks the log covers. The tuned run's outputs
// are compared with the default run's. Runs are timed back to back, as a
// model serves call after call (and as scripts/bench-vs-ort.sh times ONNX
// Runtime). On the host CPU the end-to-end median is set against the sum of
// the kernels timed alone in this run, as the tuner times a candidate
// (graph::Executor::time_kernels_alone): the difference is what is lost
// between kernels. With a log, also against the sum of the log's best
// kernel times, which the machine ran as it did when the log was made (a
// shared host drifts by tens of percent in an hour). --tuned-only skips
// the default schedules (and the comparison with them).
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "check/reference_check.h"
#include "cmd/bench.h"
#include "cmd/model_layout.h"
#include "cmd/model_runner.h"
#include "ir/error.h"
#include "measure/worker.h"
#include "tune/constant_footprint.h"
#include "runtime/thread_pool.h"

namespace tunectl::cmd {

namespace {

struct Variant {
  LoadedModel model;
  double compile_s = 0;
};

Variant load(const graph::Graph& g, const graph::ExecutorOptions& executor_options) {
  const auto start = std::chrono::steady_clock::now();
  LoadedModel m = load_model(g, executor_options);
  return {std::move(m), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

runtime::Timing time_model(LoadedModel& m, const std::map<std::string, runtime::NDArray>& inputs, int repeats) {
  runtime::TimingOptions timing;
  timing.repeats = repeats;
  timing.min_repeat_seconds = 0;  // a whole model is long enough to time call by call
  timing.flush_cache = false;
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

double total_seconds(const std::vector<graph::SubgraphTime>& times) {
  double s = 0;
  for (const auto& t : times) s += t.seconds;
  return s;
}

void print_gap(const char* what, double kernels_s, double end_to_end_s) {
  std::printf("  %s: %.3f ms; between kernels %.3f ms (%.1f%% of end to end)\n", what, kernels_s * 1e3,
              (end_to_end_s - kernels_s) * 1e3, (end_to_end_s - kernels_s) / end_to_end_s * 100);
}

// The end-to-end median against the kernels alone: timed in this run (host
// CPU; `alone` empty elsewhere) and, given a log, the sum over the subgraphs
// of the best kernel time it holds for each (a task that runs several times
// counts as often; unknown where a subgraph has no measured record).
void print_kernel_gap(const graph::Executor& executor, const std::vector<graph::SubgraphTime>& alone,
                      const TuningLogs* logs, double end_to_end_s) {
  const size_t n = executor.subgraphs().size();
  std::printf("end to end %.3f ms against the kernels of its %zu subgraph%s alone:\n", end_to_end_s * 1e3, n,
              n == 1 ? "" : "s");
  if (!alone.empty()) print_gap("timed alone now, as the tuner times them", total_seconds(alone), end_to_end_s);
  if (!logs) return;
  double kernels_s = 0;
  size_t missing = 0, estimated = 0;
  for (const auto& sg : executor.subgraphs()) {
    auto it = logs->best.find(sg.dag->workload_key());
    if (it == logs->best.end()) {
      ++missing;
    } else {
      estimated += it->second.result.estimated ? 1 : 0;
      kernels_s += it->second.result.median_cost();
    }
  }
  if (missing > 0 || estimated > 0) {
    std::printf("  the log's best: %zu of %zu subgraphs have no measured record (%zu only an estimate)\n",
                missing + estimated, executor.subgraphs().size(), estimated);
    return;
  }
  print_gap("the log's best, as measured when it was tuned", kernels_s, end_to_end_s);
}

// The kernels of a host model alone (print_kernel_gap), timed as the tuner
// times them (tune::set_cpu_timing); nothing on a device.
std::vector<graph::SubgraphTime> kernels_alone(LoadedModel& m, const LaidOutModel& laid_out,
                                               const std::map<std::string, runtime::NDArray>& inputs,
                                               const BenchOptions& o) {
  if (o.backend->builds_device_code()) return {};
  measure::MeasureOptions measure_options;
  tune::set_cpu_timing(measure_options, laid_out.tasks, o.backend->target());
  return m.executor.time_kernels_alone(inputs, measure::host_call_timing(measure_options));
}

}  // namespace

void run_bench_model(const BenchOptions& o) {
  user_check(!o.tuned_only || !o.log.empty(), "bench: --tuned-only needs --log");
  std::optional<Variant> base;
  std::optional<runtime::Timing> base_t;
  std::map<std::string, runtime::NDArray> inputs;
  std::optional<TuningLogs> logs;
  if (!o.log.empty()) logs = read_tuning_logs(o.log, o.backend->target().str());
  // The default schedules run in the layout a run without a log takes (what
  // the model runs like untuned), the tuned ones in the layout the log
  // chooses: under --layout auto they may differ, and the speedup is then
  // that of tuning as a whole, the layout included.
  LaidOutModel untuned, chosen;
  {
    std::vector<LaidOutModel> candidates =
        layout_candidates(specialize_model(o.model, o.model_inputs), o.layout, o.backend->target());
    if (!o.tuned_only) untuned = choose_layout(candidates, nullptr);
    if (logs) chosen = choose_layout(std::move(candidates), &*logs);
  }
  if (!o.tuned_only) {
    const graph::Graph& g = untuned.graph;
    graph::ExecutorOptions default_options;
    default_options.backend = o.backend;
    default_options.profile = o.profile && o.log.empty();
    default_options.launch_graph = o.launch_graph;
    base.emplace(load(g, default_options));
    inputs = random_model_inputs(base->model.graph, 1);
    std::printf("%s: %zu subgraphs, %d threads, %d runs each\n", o.model.c_str(), base->model.num_subgraphs,
                runtime::num_threads(), o.repeats);
    base_t = time_model(base->model, inputs, o.repeats);
    std::printf("%-8s compiled in %5.1f s; %s; layout %s\n", "default", base->compile_s,
                timing_summary(*base_t).c_str(), untuned.layout.c_str());
    if (o.log.empty()) {
      std::printf("activation memory: %.2f MiB planned (%.2f MiB without reuse)\n",
                  base->model.executor.planned_bytes() / 1048576.0,
                  base->model.executor.unplanned_bytes() / 1048576.0);
      const std::vector<graph::SubgraphTime> alone = kernels_alone(base->model, untuned, inputs, o);
      print_kernel_gap(base->model.executor, alone, nullptr, base_t->median());
      if (o.profile) print_profile(base->model.executor.profile(), alone);
      return;
    }
  }

  LogCoverage coverage;
  graph::ExecutorOptions tuned_options;
  tuned_options.backend = o.backend;
  tuned_options.profile = o.profile;
  tuned_options.launch_graph = o.launch_graph;
  tuned_options.schedule = schedules_from_log(*logs, coverage);
  Variant tuned = load(chosen.graph, tuned_options);
  // Timed alone, the default schedules would pass for the log's.
  user_check(!o.tuned_only || !coverage.covered.empty(), "bench: ", o.log, " has a record for none of the model's ",
             coverage.seen.size(), " tasks on target '", o.backend->target().str(),
             "' (--tuned-only would time default schedules alone; --target selects the log's target)");
  if (base) {
    compare_runs(tuned.model.executor.run(inputs), base->model.executor.run(inputs));
  } else {
    inputs = random_model_inputs(tuned.model.graph, 1);
    std::printf("%s: %zu subgraphs, %d threads, %d runs\n", o.model.c_str(), tuned.model.num_subgraphs,
                runtime::num_threads(), o.repeats);
  }
  runtime::Timing tuned_t = time_model(tuned.model, inputs, o.repeats);
  std::printf("%-8s compiled in %5.1f s; %s; layout %s\n", "tuned", tuned.compile_s, timing_summary(tuned_t).c_str(),
              chosen.layout.c_str());
  if (base_t) {
    std::printf("speedup: %.2fx (default median / tuned median%s); the log covers %zu of %zu tasks\n",
                base_t->median() / tuned_t.median(),
                untuned.layout == chosen.layout ? "" : ", the layout the log chose included", coverage.covered.size(),
                coverage.seen.size());
  } else {
    std::printf("the log covers %zu of %zu tasks\n", coverage.covered.size(), coverage.seen.size());
  }
  const std::vector<graph::SubgraphTime> alone = kernels_alone(tuned.model, chosen, inputs, o);
  print_kernel_gap(tuned.model.executor, alone, &*logs, tuned_t.median());
  if (o.profile) print_profile(tuned.model.executor.profile(), alone);
}

}  // namespace tunectl::cmd
