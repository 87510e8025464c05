// `tunectl bench --core --target cuda`: the GPU twin of bench_core.cpp, an
// fp32 matmul as a hand-written GPU schedule (shared-memory tiles filled
// cooperatively, local accumulators; the shape of Ansor's GPU sketch) and
// as cuBLAS SGEMM in pedantic FP32, timed side by side on the device with
// CUDA events; tunectl's output is checked against cuBLAS's.
#include <cstdio>
#include <random>
#include <string>

#include "backend/backend.h"
#include "baseline/cublas_sgemm.h"
#include "cmd/bench.h"
#include "ir/error.h"
#include "lower/lower.h"
#include "ops/registry.h"
#include "runtime/ndarray.h"
#include "schedule/state.h"

namespace tunectl::cmd {

namespace {

// Blocks of 32x32 outputs, 128 threads of 4x2 accumulators, k in steps of
// 8 with A's 32x8 and B's 8x32 tiles in shared memory (stages: A, A.shared,
// B, B.shared, matmul.local, matmul once all steps are in).
std::string hand_gpu_matmul_steps(int64_t n) {
  const std::string s = std::to_string(n), s2 = std::to_string(n * n);
  return R"([["CHW", 2, "local"],
    ["SP", 3, 0, )" + s + R"(, [1, 8, 4], true], ["SP", 3, 4, )" + s + R"(, [1, 16, 2], true],
    ["RE", 3, [0, 4, 1, 5, 2, 6, 3, 7]], ["FU", 3, [0, 1]], ["FU", 3, [1, 2]], ["FU", 3, [2, 3]],
    ["AN", 3, 0, "blockIdx.x"], ["AN", 3, 1, "vthread"], ["AN", 3, 2, "threadIdx.x"],
    ["CA", 2, 3, 2], ["SP", 2, 2, )" + s + R"(, [8], true], ["RE", 2, [2, 3, 0, 1]],
    ["CHR", 0, "shared", [2]], ["CA", 1, 3, 0], ["FU", 1, [0, 1]], ["SP", 1, 0, )" + s2 + R"(, [128], true],
    ["AN", 1, 1, "threadIdx.x"],
    ["CHR", 2, "shared", [3]], ["CA", 3, 4, 0], ["FU", 3, [0, 1]], ["SP", 3, 0, )" + s2 + R"(, [128], true],
    ["AN", 3, 1, "threadIdx.x"]])";
}

}  // namespace

void run_bench_core_cuda(const BenchOptions& o) {
  const int64_t n = o.size;
  user_check(n >= 32 && n % 32 == 0, "bench: --size must be a positive multiple of 32");
  auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag("matmul", {{"M", n}, {"N", n}, {"K", n}}));
  const double flops = dag->flop_count();
  std::printf("fp32 matmul %ldx%ldx%ld on %s (%s), median of %d repeats (L2 flushed between repeats)\n", n, n, n,
              o.backend->target().gpu.device.c_str(), o.backend->target().str().c_str(), o.repeats);
  std::mt19937_64 rng(o.seed);
  runtime::NDArray a(ir::DType::Float32, {n, n}), b(ir::DType::Float32, {n, n});
  a.fill_random(rng);
  b.fill_random(rng);
  runtime::NDArray expected(ir::DType::Float32, {n, n}), c(ir::DType::Float32, {n, n});
  runtime::TimingOptions timing;
  timing.repeats = o.repeats;

  baseline::CublasSgemm cublas(n, n, n);
  cublas.run(a.data<float>(), b.data<float>(), expected.data<float>());
  const runtime::Timing tc = cublas.time(timing);

  const std::string steps = hand_gpu_matmul_steps(n);
  schedule::State state = schedule::replay(dag, schedule::steps_from_json(nlohmann::json::parse(steps)));
  std::unique_ptr<runtime::Kernel> kernel = o.backend->build(lower::lower(state, "matmul", o.backend->target()));
  void* args[] = {a.raw(), b.raw(), c.raw()};
  kernel->run(args);
  runtime::CompareResult cmp = runtime::all_close(c, expected, 1e-3, 1e-3);
  user_check(cmp.ok, "bench: the hand GPU schedule disagrees with cuBLAS: ", cmp.message);
  const runtime::Timing tt = kernel->time(args, timing);

  std::printf("\n%-28s %12s %10s %10s %10s\n", "kernel", "median ms", "spread", "GFLOP/s", "vs cuBLAS");
  for (const auto& [name, t] : {std::pair{"tunectl hand GPU schedule", tt}, std::pair{"cuBLAS SGEMM (FP32)", tc}}) {
    std::printf("%-28s %12.3f %9.1f%% %10.1f %9.2fx\n", name, t.median() * 1e3,
                (t.max() - t.min()) / t.median() * 100, flops / t.median() * 1e-9, tc.median() / t.median());
  }
  std::printf("\nhand GPU schedule steps: %s\n", nlohmann::json::parse(steps).dump().c_str());
}

}  // namespace tunectl::cmd
