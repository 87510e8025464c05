// `tunectl bench --core --target cuda`: the GPU twin of bench_core.cpp. An
// fp32 matmul and ResNet-50's 3x3 convolution (1x64x56x56, 64 filters, pad
// 1), each as a hand-written GPU schedule (shared-memory tiles filled
// cooperatively, local accumulators; the shape of Ansor's GPU sketch) and
// as the vendor's (cuBLAS SGEMM in pedantic FP32, cuDNN's fastest FMA
// algorithm), timed side by side on the device with CUDA events;
// tunectl's outputs are checked against the vendor's.
#include <cstdio>
#include <random>
#include <string>

#include "backend/backend.h"
#include "baseline/cublas_sgemm.h"
#include "baseline/cudnn_conv2d.h"
#include "cmd/bench.h"
#include "ir/error.h"
#include "lower/lower.h"
#include "ops/registry.h"
#include "runtime/ndarray.h"
#include "schedule/state.h"

namespace tunectl::cmd {

namespace {

// Blocks of 128x128 outputs, 256 threads of 2x2 vthreads of 4x4
// accumulators (8x8 outputs per thread, the vthreads' rows and columns 64
// apart), k in steps of 8 with A's 128x8 and B's 8x128 tiles in shared
// memory, filled with float4 loads (stages: A, A.shared, B, B.shared,
// matmul.local, matmul once all steps are in); with double_buffer, both
// tiles double-buffered, the next k step's loads in flight during this
// one's FMAs; with k_major, A's tile stored k-major (a thread's 4 rows
// side by side: float4 fragment loads). The inner k loop and the thread's
// loops are unrolled (auto_unroll_max_step 512), the vthreads inside the
// inner k loop (inject_virtual_threads.h). n must be a multiple of 128.
std::string hand_gpu_matmul_steps(int64_t n, bool double_buffer, bool k_major) {
  const std::string s = std::to_string(n), s2 = std::to_string(n * n);
  return R"([["CHW", 2, "local"],
    ["SP", 3, 0, )" + s + R"(, [2, 16, 4], true], ["SP", 3, 4, )" + s + R"(, [2, 16, 4], true],
    ["RE", 3, [0, 4, 1, 5, 2, 6, 3, 7]], ["FU", 3, [0, 1]], ["FU", 3, [1, 2]], ["FU", 3, [2, 3]],
    ["AN", 3, 0, "blockIdx.x"], ["AN", 3, 1, "vthread"], ["AN", 3, 2, "threadIdx.x"],
    ["CA", 2, 3, 2], ["SP", 2, 2, )" + s + R"(, [8], true], ["RE", 2, [2, 3, 0, 1]],
    ["CHR", 0, "shared", [2]],)" + (k_major ? R"( ["SO", 1, [1, 0]],)" : "") + R"( ["CA", 1, 3, 0], ["FU", 1, [0, 1]],
    ["SP", 1, 0, )" + s2 + R"(, [256, 4], true],
    ["AN", 1, 1, "threadIdx.x"], ["AN", 1, 2, "vectorize"],
    ["CHR", 2, "shared", [3]], ["CA", 3, 4, 0], ["FU", 3, [0, 1]], ["SP", 3, 0, )" + s2 + R"(, [256, 4], true],
    ["AN", 3, 1, "threadIdx.x"], ["AN", 3, 2, "vectorize"], ["PR", 4, 0, "auto_unroll_max_step$512"])" +
         (double_buffer ? R"(, ["PR", 1, 0, "double_buffer"], ["PR", 3, 0, "double_buffer"]])" : "]");
}

// ResNet-50's 3x3 convolution (C = K channels, H = W, pad 1): blocks of 16
// filters x 8 x 8 pixels, 256 threads of 2 x 2 accumulators, input channels
// in steps of 8 with the padded 8 x 10 x 10 image tile and the 16 x 8 x 3 x 3
// filter tile in shared memory (stages: data, pad, pad.shared, weight,
// weight.shared, conv2d.local, conv2d; pad inlined into its shared copy).
std::string hand_gpu_conv3x3_steps(int64_t c, int64_t h, int64_t k) {
  auto n = [](int64_t v) { return std::to_string(v); };
  return R"([["CHW", 3, "local"],
    ["SP", 4, 1, )" + n(k) + R"(, [1, 8, 2], true], ["SP", 4, 5, )" + n(h) + R"(, [1, 4, 2], true],
    ["SP", 4, 9, )" + n(h) + R"(, [1, 8, 1], true], ["RE", 4, [0, 1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12]],
    ["FU", 4, [0, 1, 2, 3]], ["FU", 4, [1, 2, 3]], ["FU", 4, [2, 3, 4]],
    ["AN", 4, 0, "blockIdx.x"], ["AN", 4, 1, "vthread"], ["AN", 4, 2, "threadIdx.x"],
    ["CA", 3, 4, 2], ["SP", 3, 4, )" + n(c) + R"(, [8], true], ["RE", 3, [4, 6, 7, 5, 0, 1, 2, 3]],
    ["CHR", 1, "shared", [3]], ["CA", 2, 4, 0], ["FU", 2, [0, 1, 2, 3]],
    ["SP", 2, 0, )" + n(c * (h + 2) * (h + 2)) + R"(, [256], true], ["AN", 2, 1, "threadIdx.x"],
    ["CHR", 3, "shared", [4]], ["CA", 4, 5, 0], ["FU", 4, [0, 1, 2, 3]],
    ["SP", 4, 0, )" + n(k * c * 9) + R"(, [256], true], ["AN", 4, 1, "threadIdx.x"],
    ["CI", 1]])";
}

struct Row {
  std::string name;
  runtime::Timing time;
  double flops;
  double vendor_seconds;  // the vendor kernel's median of the same workload
};

// Builds the hand schedule's kernel, runs it on `inputs` into `out`, checks
// it against the vendor's `expected` and times it.
runtime::Timing run_hand_schedule(const BenchOptions& o, std::shared_ptr<const te::ComputeDAG> dag,
                                  const std::string& steps, std::vector<runtime::NDArray*> args,
                                  const runtime::NDArray& expected, const runtime::TimingOptions& timing) {
  schedule::State state = schedule::replay(dag, schedule::steps_from_json(nlohmann::json::parse(steps)));
  std::unique_ptr<runtime::Kernel> kernel = o.backend->build(lower::lower(state, "hand", o.backend->target()));
  std::vector<void*> raw;
  for (runtime::NDArray* a : args) raw.push_back(a->raw());
  kernel->run(raw.data());
  runtime::CompareResult cmp = runtime::all_close(*args.back(), expected, 1e-3, 1e-3);
  user_check(cmp.ok, "bench: the hand GPU schedule of ", dag->outputs().back()->name,
             " disagrees with the vendor library: ", cmp.message);
  return kernel->time(raw.data(), timing);
}

}  // namespace

void run_bench_core_cuda(const BenchOptions& o) {
  const int64_t n = o.size;
  user_check(n >= 128 && n % 128 == 0, "bench: --size must be a positive multiple of 128 with a cuda target");
  std::printf("fp32 on %s (%s), median of %d repeats (L2 flushed between repeats)\n",
              o.backend->target().gpu.device.c_str(), o.backend->target().str().c_str(), o.repeats);
  std::mt19937_64 rng(o.seed);
  runtime::TimingOptions timing;
  timing.repeats = o.repeats;
  std::vector<Row> rows;

  auto mm = std::make_shared<const te::ComputeDAG>(ops::make_op_dag("matmul", {{"M", n}, {"N", n}, {"K", n}}));
  runtime::NDArray a(ir::DType::Float32, {n, n}), b(ir::DType::Float32, {n, n});
  a.fill_random(rng);
  b.fill_random(rng);
  runtime::NDArray mm_expected(ir::DType::Float32, {n, n}), c(ir::DType::Float32, {n, n});
  baseline::CublasSgemm cublas(n, n, n);
  cublas.run(a.data<float>(), b.data<float>(), mm_expected.data<float>());
  const runtime::Timing t_cublas = cublas.time(timing);
  const std::string mm_name = "matmul " + std::to_string(n) + "^3";
  for (const auto& [double_buffer, k_major] : {std::pair{false, false}, {true, false}, {true, true}}) {
    const runtime::Timing t = run_hand_schedule(o, mm, hand_gpu_matmul_steps(n, double_buffer, k_major),
                                                {&a, &b, &c}, mm_expected, timing);
    rows.push_back({mm_name + ": tunectl hand" + (double_buffer ? ", double-buffered" : "") +
                        (k_major ? ", A k-major" : ""),
                    t, mm->flop_count(), t_cublas.median()});
  }
  rows.push_back({mm_name + ": cuBLAS SGEMM", t_cublas, mm->flop_count(), t_cublas.median()});

  const baseline::Conv2dShape shape{1, 64, 56, 56, 64, 3, 3, 1, 1};
  auto conv = std::make_shared<const te::ComputeDAG>(ops::make_op_dag(
      "conv2d", {{"N", 1}, {"C", 64}, {"H", 56}, {"W", 56}, {"K", 64}, {"R", 3}, {"S", 3}, {"pad", 1}}));
  runtime::NDArray x(ir::DType::Float32, {1, 64, 56, 56}), w(ir::DType::Float32, {64, 64, 3, 3});
  x.fill_random(rng);
  w.fill_random(rng);
  runtime::NDArray conv_expected(ir::DType::Float32, {1, 64, 56, 56}), y(ir::DType::Float32, {1, 64, 56, 56});
  baseline::CudnnConv2d cudnn(shape);
  cudnn.run(x.data<float>(), w.data<float>(), conv_expected.data<float>());
  const runtime::Timing t_cudnn = cudnn.time(timing);
  const std::string conv_steps = hand_gpu_conv3x3_steps(64, 56, 64);
  const runtime::Timing t_conv = run_hand_schedule(o, conv, conv_steps, {&x, &w, &y}, conv_expected, timing);
  rows.push_back({"conv3x3 64@56^2: tunectl hand", t_conv, conv->flop_count(), t_cudnn.median()});
  rows.push_back({"conv3x3 64@56^2: cuDNN " + cudnn.algorithm(), t_cudnn, conv->flop_count(), t_cudnn.median()});

  std::printf("\n%-48s %10s %8s %10s %10s\n", "kernel", "median ms", "spread", "GFLOP/s", "vs vendor");
  for (const Row& r : rows) {
    const double m = r.time.median();
    std::printf("%-48s %10.4f %7.1f%% %10.1f %9.2fx\n", r.name.c_str(), m * 1e3,
                (r.time.max() - r.time.min()) / m * 100, r.flops / m * 1e-9, r.vendor_seconds / m);
  }
  std::printf("\nhand GPU schedule steps:\n  matmul (double-buffered, A k-major): %s\n  conv3x3: %s\n",
              nlohmann::json::parse(hand_gpu_matmul_steps(n, true, true)).dump().c_str(),
              nlohmann::json::parse(conv_steps).dump().c_str());
}

}  // namespace tunectl::cmd
