// `tunectl bench --core`: the core compiler's benchmark, an fp32 matmul timed
// three ways in one process: the unscheduled (naive) program, a hand-written
// schedule expressed only as steps, and oneDNN's matmul; every tunectl result
// is checked against oneDNN's output. scripts/bench-core.sh runs it.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <random>
#include <string>

#include "baseline/onednn_matmul.h"
#include "cmd/bench.h"
#include "backend/backend.h"
#include "ir/error.h"
#include "lower/lower.h"
#include "ops/registry.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"
#include "schedule/state.h"

namespace tunectl::cmd {

namespace {

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

}  // namespace

void run_bench_core(const BenchOptions& o) {
  const int64_t n = o.size;
  user_check(n >= 32 && n % 32 == 0, "bench: --size must be a positive multiple of 32");
  auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag("matmul", {{"M", n}, {"N", n}, {"K", n}}));
  const double flops = dag->flop_count();
  std::printf("fp32 matmul %ldx%ldx%ld, %d threads, median of %d repeats (caches flushed between repeats)\n", n, n, n,
              runtime::num_threads(), o.repeats);

  std::mt19937_64 rng(o.seed);
  runtime::NDArray a(ir::DType::Float32, {n, n}), b(ir::DType::Float32, {n, n});
  a.fill_random(rng);
  b.fill_random(rng);
  runtime::NDArray expected(ir::DType::Float32, {n, n});
  runtime::TimingOptions timing;
  timing.repeats = o.repeats;

  std::vector<Row> rows;
  baseline::OneDnnMatmul onednn(n, n, n);
  runtime::Timing t =
      runtime::time_function([&] { onednn.run(a.data<float>(), b.data<float>(), expected.data<float>()); }, timing);
  const double onednn_s = t.median();

  struct Variant {
    std::string name;
    std::string steps;
  };
  std::vector<Variant> variants = {{"tunectl naive", "[]"},
                                   {"tunectl hand schedule", with_size(hand_matmul_steps(), n)}};
  for (const auto& v : variants) {
    schedule::State state = schedule::replay(dag, schedule::steps_from_json(nlohmann::json::parse(v.steps)));
    std::unique_ptr<runtime::Kernel> kernel = o.backend->build(lower::lower(state, "matmul", o.backend->target()));
    runtime::NDArray c(ir::DType::Float32, {n, n});
    void* args[] = {a.raw(), b.raw(), c.raw()};
    kernel->run(args);
    runtime::CompareResult cmp = runtime::all_close(c, expected, 1e-3, 1e-3);
    user_check(cmp.ok, "bench: ", v.name, " disagrees with oneDNN: ", cmp.message);
    runtime::TimingOptions slow = timing;
    if (v.steps == "[]") slow.repeats = std::min(o.repeats, 3);  // the naive kernel takes seconds
    runtime::Timing tv = runtime::time_function([&] { kernel->run(args); }, slow);
    rows.push_back({v.name, tv.median(), (tv.max() - tv.min()) / tv.median()});
  }
  rows.push_back({"oneDNN matmul", onednn_s, (t.max() - t.min()) / onednn_s});
  print_table(rows, flops, onednn_s);
  std::printf("\nhand schedule steps: %s\n", nlohmann::json::parse(variants[1].steps).dump().c_str());
}

}  // namespace tunectl::cmd
