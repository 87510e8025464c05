// `tunectl bench`: side-by-side speed of generated kernels and oneDNN in one
// process. The core suite times an fp32 matmul three ways: the unscheduled
// (naive) program, a hand-written schedule expressed only as steps, and
// oneDNN's matmul; every tunectl result is checked against oneDNN's output.
// With a MODEL argument it times the whole ONNX model instead: end-to-end
// latency with default schedules on seeded random inputs, the baseline that
// tuning is measured against.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <string>

#include "baseline/onednn_matmul.h"
#include "cmd/model_runner.h"
#include "cmd/subcommands.h"
#include "codegen/llvm/llvm_codegen.h"
#include "ir/error.h"
#include "lower/lower.h"
#include "ops/registry.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"
#include "runtime/timer.h"
#include "schedule/state.h"

namespace tunectl::cmd {

namespace {

struct BenchOptions {
  int64_t size = 1024;
  int repeats = 5;
  std::string model;                      // empty: the core matmul suite
  std::vector<std::string> input_shapes;  // model mode: NAME=1x3x224x224
  bool profile = false;                   // model mode: per-subgraph table
};

// A register-blocked schedule for C = A x B with stages A, B, C: a cache-write
// stage accumulates an 8x32 tile of C (16 AVX-512 registers) over the whole
// k loop; each thread owns 32-column panels of B (128 KiB for K = 1024, kept
// in L2) and walks all row blocks of A.
std::string hand_matmul_steps() {
  return R"([
    ["CHW", 2, "local"],
    ["SP", 3, 0, SIZE, [8], true],
    ["SP", 3, 2, SIZE, [32], true],
    ["RE", 3, [2, 0, 1, 3]],
    ["CA", 2, 3, 1],
    ["RE", 2, [2, 0, 1]],
    ["AN", 2, 1, "unroll"],
    ["AN", 2, 2, "vectorize"],
    ["AN", 3, 0, "parallel"],
    ["AN", 3, 3, "vectorize"]
  ])";
}

std::string with_size(std::string text, int64_t size) {
  const std::string key = "SIZE";
  for (size_t pos; (pos = text.find(key)) != std::string::npos;) text.replace(pos, key.size(), std::to_string(size));
  return text;
}

struct Row {
  std::string name;
  double median_s = 0;
  double spread = 0;  // (max - min) / median of the repeats
};

void print_table(const std::vector<Row>& rows, double flops, double onednn_s) {
  std::printf("\n%-24s %12s %10s %10s %10s\n", "kernel", "median ms", "spread", "GFLOP/s", "vs oneDNN");
  for (const auto& r : rows) {
    std::printf("%-24s %12.3f %9.1f%% %10.1f %9.2fx\n", r.name.c_str(), r.median_s * 1e3, r.spread * 100,
                flops / r.median_s * 1e-9, onednn_s / r.median_s);
  }
}

void run_bench(const BenchOptions& o) {
  const int64_t n = o.size;
  user_check(n >= 32 && n % 32 == 0, "bench: --size must be a positive multiple of 32");
  auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag("matmul", {{"M", n}, {"N", n}, {"K", n}}));
  const double flops = dag->flop_count();
  std::printf("fp32 matmul %ldx%ldx%ld, %d threads, median of %d repeats (caches flushed between repeats)\n", n, n,
              n, runtime::num_threads(), o.repeats);

  std::mt19937_64 rng(7);
  runtime::NDArray a(ir::DType::Float32, {n, n}), b(ir::DType::Float32, {n, n});
  a.fill_random(rng);
  b.fill_random(rng);
  runtime::NDArray expected(ir::DType::Float32, {n, n});
  runtime::TimingOptions timing;
  timing.repeats = o.repeats;

  std::vector<Row> rows;
  baseline::OneDnnMatmul onednn(n, n, n);
  runtime::Timing t = runtime::time_function(
      [&] { onednn.run(a.data<float>(), b.data<float>(), expected.data<float>()); }, timing);
  const double onednn_s = t.median();

  struct Variant {
    std::string name;
    std::string steps;
  };
  std::vector<Variant> variants = {{"tunectl naive", "[]"}, {"tunectl hand schedule", with_size(hand_matmul_steps(), n)}};
  for (const auto& v : variants) {
    schedule::State state = schedule::replay(dag, schedule::steps_from_json(nlohmann::json::parse(v.steps)));
    codegen::JitKernel kernel = codegen::jit_compile(lower::lower(state, "matmul"));
    runtime::NDArray c(ir::DType::Float32, {n, n});
    void* args[] = {a.raw(), b.raw(), c.raw()};
    kernel.run(args);
    runtime::CompareResult cmp = runtime::all_close(c, expected, 1e-3, 1e-3);
    user_check(cmp.ok, "bench: ", v.name, " disagrees with oneDNN: ", cmp.message);
    runtime::TimingOptions slow = timing;
    if (v.steps == "[]") slow.repeats = std::min(o.repeats, 3);  // the naive kernel takes seconds
    runtime::Timing tv = runtime::time_function([&] { kernel.run(args); }, slow);
    rows.push_back({v.name, tv.median(), (tv.max() - tv.min()) / tv.median()});
  }
  rows.push_back({"oneDNN matmul", onednn_s, (t.max() - t.min()) / onednn_s});
  print_table(rows, flops, onednn_s);
  std::printf("\nhand schedule steps: %s\n", nlohmann::json::parse(variants[1].steps).dump().c_str());
}

void run_model_bench(const BenchOptions& o) {
  graph::ImportOptions import_options;
  for (const auto& spec : o.input_shapes) graph::parse_input_shape(spec, import_options);
  graph::ExecutorOptions executor_options;
  executor_options.profile = o.profile;
  const auto compile_start = std::chrono::steady_clock::now();
  LoadedModel m = load_model(o.model, import_options, executor_options);
  const double compile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - compile_start).count();
  const auto inputs = random_model_inputs(m.graph, 1);
  std::printf("%s: %zu subgraphs, compiled in %.1f s; default schedules, %d threads\n", o.model.c_str(),
              m.num_subgraphs, compile_s, runtime::num_threads());
  runtime::TimingOptions timing;
  timing.repeats = o.repeats;
  timing.min_repeat_seconds = 0;  // a whole model is long enough to time call by call
  runtime::Timing t = runtime::time_function([&] { m.executor.run(inputs); }, timing);
  std::printf("end-to-end latency: median %.3f ms, spread %.1f%% (min %.3f, max %.3f ms) over %d runs\n",
              t.median() * 1e3, (t.max() - t.min()) / t.median() * 100, t.min() * 1e3, t.max() * 1e3, o.repeats);
  std::printf("activation memory: %.2f MiB planned (%.2f MiB without reuse)\n",
              m.executor.planned_bytes() / 1048576.0, m.executor.unplanned_bytes() / 1048576.0);
  if (o.profile) print_profile(m.executor.profile());
}

}  // namespace

void register_bench(CLI::App& app) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* sub = app.add_subcommand(
      "bench", "Benchmark generated kernels against oneDNN (core matmul suite), or a whole ONNX MODEL");
  sub->add_option("model", options->model, "an ONNX model: time it end to end with default schedules");
  sub->add_option("--size", options->size, "matmul size M = N = K (multiple of 32)");
  sub->add_option("--repeats", options->repeats, "timed repeats; the median is reported")->check(CLI::Range(1, 1000));
  sub->add_option("--input-shape", options->input_shapes, "model: NAME=1x3x224x224 pins symbolic input dimensions");
  sub->add_flag("--profile", options->profile, "model: print the time of every subgraph (last run)");
  sub->callback([options] {
    if (options->model.empty()) {
      user_check(options->input_shapes.empty() && !options->profile,
                 "bench: --input-shape and --profile need a MODEL");
      run_bench(*options);
    } else {
      run_model_bench(*options);
    }
  });
}

}  // namespace tunectl::cmd
