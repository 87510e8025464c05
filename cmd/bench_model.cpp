// `tunectl bench MODEL [--log FILE [--against FILE]]`: a whole ONNX model
// end to end on seeded random inputs, with default schedules and, given a
// tuning log, with the tuned schedules of the log's best records (every
// subgraph whose workload key the log covers replays its best record's
// steps; the rest keep the default), side by side in one process: median,
// min..max spread, speedup, and how many of the model's tasks the log
// covers. --against adds a second log's tuned model, to tell which of two
// logs runs the model faster. Every variant's outputs are compared with the
// first's. Runs are timed back to back, as a model serves call after call
// (and as scripts/bench-vs-ort.sh times ONNX Runtime); several variants in
// rounds of a few such runs each, so that the host's drift hits them alike,
// and they are compared round by round as well. On the host CPU the
// end-to-end median is set against the sum of the kernels timed alone in
// this run, as the tuner times a candidate
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
#include "runtime/paired_timing.h"
#include "runtime/thread_pool.h"

namespace tunectl::cmd {

namespace {

// One way of running the model: default schedules, --log's or --against's.
struct Variant {
  const char* name = "";             // "default", "tuned", "against"
  const TuningLogs* logs = nullptr;  // none for the default schedules
  LaidOutModel laid_out;
  LoadedModel model;
  double compile_s = 0;
  LogCoverage coverage;
};

std::unique_ptr<Variant> load(const char* name, const TuningLogs* logs, LaidOutModel laid_out, bool profile,
                              const BenchOptions& o) {
  graph::ExecutorOptions options;
  options.backend = o.backend;
  options.profile = profile;
  options.launch_graph = o.launch_graph;
  LogCoverage coverage;
  if (logs) options.schedule = schedules_from_log(*logs, coverage);
  const auto start = std::chrono::steady_clock::now();
  LoadedModel model = load_model(laid_out.graph, options);
  const double compile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return std::unique_ptr<Variant>(
      new Variant{name, logs, std::move(laid_out), std::move(model), compile_s, std::move(coverage)});
}

// What a variant runs, for messages.
std::string schedules_of(const Variant& v) {
  return v.logs ? std::string(v.name) == "tuned" ? "--log's schedules" : "--against's schedules"
                : "the default schedules";
}

// Every output of a tuned run against the first variant's: the default
// schedules' (they compute what te::evaluate computes; the executor tests
// check it), or --log's for --against's under --tuned-only.
void compare_runs(Variant& tuned, Variant& reference,
                  const std::map<std::string, runtime::NDArray>& inputs) {
  std::map<std::string, runtime::NDArray> got = tuned.model.executor.run(inputs);
  for (auto& [name, expected] : reference.model.executor.run(inputs)) {
    runtime::CompareResult cmp = runtime::all_close(got.at(name), expected, 1e-3, 1e-4);
    user_check(cmp.ok, "bench: output ", name, " of the model under ", schedules_of(tuned), " differs from its output under ",
               schedules_of(reference), ": ", cmp.message);
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

// "tuned faster in 10 of 10 rounds, median ratio 1.84x (95% interval
// 1.80-1.90x), sign test p = 0.002": how much faster `b` ran than `a`.
void print_round_ratios(const char* b_name, const runtime::RoundRatios& r) {
  std::printf("  round by round: %s faster in %d of %d rounds (slower in %d), median ratio %.3fx", b_name, r.b_faster,
              r.rounds, r.a_faster, r.median);
  if (r.has_interval) std::printf(" (95%% interval %.3f-%.3fx)", r.low, r.high);
  std::printf(", sign test p = %.3g\n", r.sign_test_p);
}

// The node a subgraph is named after: "conv2d_winograd_nchwc_relu_4" -> "4".
std::string anchor_of(const std::string& subgraph) { return subgraph.substr(subgraph.rfind('_') + 1); }

// --profile with --against: each subgraph's time in the model under both
// logs, from the same rounds, and its kernel's time alone under both, where
// both partition the same graph (the layout may still differ convolution by
// convolution: direct or Winograd, named in the last column); else
// --against's own table. Where the two ratios disagree, timing alone (as
// the tuner does) ranks the two kernels otherwise than the model runs them.
void print_profile_against(const std::vector<graph::SubgraphTime>& log, const std::vector<graph::SubgraphTime>& log_alone,
                           const std::vector<graph::SubgraphTime>& against,
                           const std::vector<graph::SubgraphTime>& against_alone) {
  bool same = log.size() == against.size() && log_alone.size() == log.size() && against_alone.size() == log.size();
  for (size_t i = 0; same && i < log.size(); ++i) same = anchor_of(log[i].name) == anchor_of(against[i].name);
  if (!same) {
    std::printf("\n--against's subgraphs (another graph):");
    print_profile(against, against_alone);
    return;
  }
  size_t width = 8;
  for (const auto& t : log) width = std::max(width, t.name.size());
  const int w = static_cast<int>(width);
  std::printf("\n%-5s %-*s %21s %21s %17s  %s\n", "", w, "", "--log ms", "--against ms", "--against / --log", "");
  std::printf("%-5s %-*s %10s %10s %10s %10s %8s %8s  %s\n", "#", w, "subgraph", "in model", "alone", "in model",
              "alone", "in model", "alone", "--against's subgraph, where another");
  double sums[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < log.size(); ++i) {
    const double t[4] = {log[i].seconds, log_alone[i].seconds, against[i].seconds, against_alone[i].seconds};
    std::printf("%-5zu %-*s %10.4f %10.4f %10.4f %10.4f %7.2fx %7.2fx  %s\n", i, w, log[i].name.c_str(), t[0] * 1e3,
                t[1] * 1e3, t[2] * 1e3, t[3] * 1e3, t[2] / t[0], t[3] / t[1],
                against[i].name == log[i].name ? "" : against[i].name.c_str());
    for (int k = 0; k < 4; ++k) sums[k] += t[k];
  }
  std::printf("%-5s %-*s %10.4f %10.4f %10.4f %10.4f %7.2fx %7.2fx\n", "", w, "total", sums[0] * 1e3, sums[1] * 1e3,
              sums[2] * 1e3, sums[3] * 1e3, sums[2] / sums[0], sums[3] / sums[1]);
}

// Each subgraph's median over passes of kernels_alone.
std::vector<graph::SubgraphTime> median_of_passes(const std::vector<std::vector<graph::SubgraphTime>>& passes) {
  std::vector<graph::SubgraphTime> out = passes.front();
  for (size_t i = 0; i < out.size(); ++i) {
    runtime::Timing t;
    for (const auto& pass : passes) t.seconds_per_call.push_back(pass.at(i).seconds);
    out[i].seconds = t.median();
  }
  return out;
}

}  // namespace

void run_bench_model(const BenchOptions& o) {
  user_check(!o.tuned_only || !o.log.empty(), "bench: --tuned-only needs --log");
  user_check(o.against.empty() || !o.log.empty(), "bench: --against needs --log, the log it is compared with");
  std::optional<TuningLogs> logs, against_logs;
  if (!o.log.empty()) logs = read_tuning_logs(o.log, o.backend->target().str());
  if (!o.against.empty()) against_logs = read_tuning_logs(o.against, o.backend->target().str());
  // The default schedules run in the layout a run without a log takes (what
  // the model runs like untuned), the tuned ones in the layout their log
  // chooses: under --layout auto they may differ, and the speedup is then
  // that of tuning as a whole, the layout included.
  std::vector<std::unique_ptr<Variant>> variants;
  {
    const std::vector<LaidOutModel> candidates =
        layout_candidates(specialize_model(o.model, o.model_inputs), o.layout, o.backend->target());
    if (!o.tuned_only) variants.push_back(load("default", nullptr, choose_layout(candidates, nullptr),
                                               o.profile && !logs, o));
    // With two logs, which one each layout choice (said on stdout) is for.
    if (against_logs) std::printf("--log %s:\n", o.log.c_str());
    if (logs) variants.push_back(load("tuned", &*logs, choose_layout(candidates, &*logs), o.profile, o));
    if (against_logs) {
      std::printf("--against %s:\n", o.against.c_str());
      variants.push_back(load("against", &*against_logs, choose_layout(candidates, &*against_logs), o.profile, o));
    }
  }
  for (const auto& v : variants) {
    // Timed alone, the default schedules would pass for the log's.
    user_check(!o.tuned_only || !v->logs || !v->coverage.covered.empty(), "bench: ",
               std::string(v->name) == "tuned" ? o.log : o.against, " has a record for none of the model's ",
               v->coverage.seen.size(), " tasks on target '", o.backend->target().str(),
               "' (--tuned-only would time default schedules alone; --target selects the log's target)");
  }
  Variant& first = *variants.front();
  const std::map<std::string, runtime::NDArray> inputs = random_model_inputs(first.model.graph, 1);
  for (size_t i = 1; i < variants.size(); ++i) compare_runs(*variants[i], first, inputs);

  // One variant runs back to back after a warm-up call; several in rounds
  // (runtime/paired_timing.h), so that the host's drift hits them alike.
  const auto [rounds, calls_per_round] = variants.size() == 1 ? std::pair{1, o.repeats} : runtime::rounds_for(o.repeats);
  if (rounds == 1) {
    std::printf("%s: %zu subgraphs, %d threads, %d runs%s\n", o.model.c_str(), first.model.num_subgraphs,
                runtime::num_threads(), calls_per_round, variants.size() == 1 ? "" : " each");
  } else {
    std::printf("%s: %zu subgraphs, %d threads, %d rounds of %d runs each, the variants' order reversed each round\n",
                o.model.c_str(), first.model.num_subgraphs, runtime::num_threads(), rounds, calls_per_round);
  }
  std::vector<std::function<void()>> runs;
  for (const auto& v : variants) runs.push_back([&v, &inputs] { v->model.executor.run(inputs); });
  const std::vector<runtime::RoundTimings> times = runtime::time_in_rounds(runs, rounds, calls_per_round);
  for (size_t i = 0; i < variants.size(); ++i) {
    std::printf("%-8s compiled in %5.1f s; %s; layout %s\n", variants[i]->name, variants[i]->compile_s,
                timing_summary(times[i].calls).c_str(), variants[i]->laid_out.layout.c_str());
  }

  // Variants in order: default (unless --tuned-only), --log's, --against's.
  const size_t tuned = o.tuned_only ? 0 : 1;  // --log's, when there is one
  if (!logs) {
    std::printf("activation memory: %.2f MiB planned (%.2f MiB without reuse)\n",
                first.model.executor.planned_bytes() / 1048576.0, first.model.executor.unplanned_bytes() / 1048576.0);
  } else if (!o.tuned_only) {
    std::printf("speedup: %.2fx (default median / tuned median%s); the log covers %zu of %zu tasks\n",
                times[0].calls.median() / times[tuned].calls.median(),
                first.laid_out.layout == variants[tuned]->laid_out.layout ? "" : ", the layout the log chose included",
                variants[tuned]->coverage.covered.size(), variants[tuned]->coverage.seen.size());
    if (rounds > 1) print_round_ratios("tuned", runtime::compare_rounds(times[0], times[tuned]));
  } else {
    std::printf("the log covers %zu of %zu tasks\n", variants[tuned]->coverage.covered.size(),
                variants[tuned]->coverage.seen.size());
  }
  if (against_logs) {
    const Variant& against = *variants.back();
    std::printf("%s against %s: %.3fx (--against's median / --log's); the --against log covers %zu of %zu tasks\n",
                o.log.c_str(), o.against.c_str(), times.back().calls.median() / times[tuned].calls.median(),
                against.coverage.covered.size(), against.coverage.seen.size());
    if (rounds > 1) print_round_ratios("--log", runtime::compare_rounds(times.back(), times[tuned]));
  }

  // The time lost between kernels, and the profile, of --log's run (of the
  // default one without a log).
  const size_t shown = logs ? tuned : 0;
  Variant& v = *variants[shown];
  if (!(o.profile && against_logs)) {
    const std::vector<graph::SubgraphTime> alone = kernels_alone(v.model, v.laid_out, inputs, o);
    print_kernel_gap(v.model.executor, alone, v.logs, times[shown].calls.median());
    if (o.profile) print_profile(v.model.executor.profile(), alone);
    return;
  }
  // Both logs' kernels alone, in three alternating passes: the host's drift
  // over a pass hits both alike.
  Variant& against = *variants.back();
  std::vector<std::vector<graph::SubgraphTime>> passes, against_passes;
  for (int pass = 0; pass < 3; ++pass) {
    passes.push_back(kernels_alone(v.model, v.laid_out, inputs, o));
    against_passes.push_back(kernels_alone(against.model, against.laid_out, inputs, o));
  }
  const std::vector<graph::SubgraphTime> alone = median_of_passes(passes);
  print_kernel_gap(v.model.executor, alone, v.logs, times[shown].calls.median());
  print_profile(v.model.executor.profile(), alone);
  print_profile_against(v.model.executor.profile(), alone, against.model.executor.profile(),
                        median_of_passes(against_passes));
}

}  // namespace tunectl::cmd
