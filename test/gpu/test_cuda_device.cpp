// CUDA kernels on the device: they compute the reference and what the GPU
// emulator computes, and timing with CUDA events gives positive, finite
// times; so does the cuBLAS baseline; a compiled GPU model's library
// (tunectl compile --target cuda) computes what the executor does.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "backend/backend.h"
#include "baseline/cublas_sgemm.h"
#include "baseline/cudnn_conv2d.h"
#include "check/reference_check.h"
#include "deploy/model_library.h"
#include "graph/executor.h"
#include "graph/import.h"
#include "graph/partition.h"
#include "graph/passes.h"
#include "lower/gpu_emulator.h"
#include "lower/lower.h"
#include "ops/registry.h"
#include "support/compiled_model.h"
#include "support/gpu_schedules.h"

namespace tunectl {

namespace {

std::unique_ptr<backend::Backend> device_backend() { return backend::make_backend(backend::resolve_target("cuda")); }

// The source tree: $TUNECTL_SOURCE_DIR where the tests run away from the
// tree they were built from (the bundle on the lent GPU machine).
std::string source_dir() {
  const char* moved = std::getenv("TUNECTL_SOURCE_DIR");
  return moved != nullptr ? moved : TUNECTL_SOURCE_DIR;
}

}  // namespace

TEST_CASE("GPU matmul on the device equals the reference and the emulator", "[gpu]") {
  auto b = device_backend();
  const schedule::State s = schedule::gpu_matmul(128, 96, 64, {2, 8, 2}, {2, 8, 2}, 8);
  const lower::LoweredFunc f = lower::lower(s, "mm", b->target());
  std::unique_ptr<runtime::Kernel> kernel = b->build(f);
  std::vector<runtime::NDArray> device_out, emulated_out;
  auto run_into = [&](std::vector<runtime::NDArray>& keep, auto&& runner) {
    return check::check_against_reference(
        *s.dag,
        [&](const std::vector<runtime::NDArray*>& args) {
          runner(args);
          keep.clear();
          for (size_t i = s.dag->placeholders().size(); i < args.size(); ++i) keep.push_back(*args[i]);
        },
        11);
  };
  const check::CheckResult on_device = run_into(device_out, [&](const std::vector<runtime::NDArray*>& args) {
    kernel->pack_and_run(check::raw_pointers(args));
  });
  INFO(on_device.message);
  CHECK(on_device.ok);
  const check::CheckResult emulated =
      run_into(emulated_out, [&](const std::vector<runtime::NDArray*>& args) { lower::emulate_gpu(f, args); });
  CHECK(emulated.ok);
  REQUIRE(device_out.size() == emulated_out.size());
  for (size_t o = 0; o < device_out.size(); ++o)
    for (int64_t i = 0; i < device_out[o].num_elements(); ++i)
      CHECK(std::abs(device_out[o].get(i) - emulated_out[o].get(i)) <= 1e-4 * (1 + std::abs(emulated_out[o].get(i))));
}

TEST_CASE("float16 kernels on the device convert as the reference rounds", "[gpu]") {
  auto b = device_backend();
  const schedule::State s = schedule::float16_conversions();
  const lower::LoweredFunc f = lower::lower(s, "half", b->target());
  std::unique_ptr<runtime::Kernel> kernel = b->build(f);
  const check::CheckResult r = check::check_against_reference(
      *s.dag, [&](const std::vector<runtime::NDArray*>& args) { kernel->pack_and_run(check::raw_pointers(args)); }, 5);
  INFO(r.message);
  CHECK(r.ok);
}

TEST_CASE("a compiled GPU model's library gives the executor's outputs on the device", "[gpu]") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tunectl-gpu-library-" + std::to_string(getpid()));
  const graph::Graph g =
      graph::simplify_graph(graph::import_onnx(source_dir() + "/models/small_cnn.onnx"));
  graph::ExecutorOptions options;
  options.backend = device_backend();
  const deploy::ModelLibrary lib = deploy::write_model_library(g, options, "small_cnn", dir.string());
  testing::check_compiled_model(g, options, lib.library, dir.string());
  std::filesystem::remove_all(dir);
}

TEST_CASE("device timing gives finite positive times", "[gpu]") {
  auto b = device_backend();
  const schedule::State s = schedule::gpu_matmul(256, 256, 256, {2, 8, 4}, {2, 8, 4}, 8);
  std::unique_ptr<runtime::Kernel> kernel = b->build(lower::lower(s, "mm", b->target()));
  std::vector<runtime::NDArray> arrays = check::check_inputs(*s.dag, 3);
  for (const te::Tensor& out : s.dag->outputs()) arrays.emplace_back(out->dtype(), out->shape());
  std::vector<void*> args;
  for (auto& a : arrays) args.push_back(a.raw());
  runtime::TimingOptions o;
  o.repeats = 3;
  o.min_repeat_seconds = 0.01;
  const runtime::Timing t = kernel->time(args.data(), o);
  REQUIRE(t.seconds_per_call.size() == 3);
  for (double sec : t.seconds_per_call) CHECK((sec > 0 && sec < 1));
}

}  // namespace tunectl

namespace tunectl {

TEST_CASE("cuBLAS SGEMM on the device equals the reference", "[gpu]") {
  const int64_t m = 96, n = 64, k = 80;
  auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag("matmul", {{"M", m}, {"N", n}, {"K", k}}));
  baseline::CublasSgemm sgemm(m, n, k);
  const check::CheckResult r = check::check_against_reference(
      *dag,
      [&](const std::vector<runtime::NDArray*>& args) {
        sgemm.run(args[0]->data<float>(), args[1]->data<float>(), args[2]->data<float>());
      },
      4);
  INFO(r.message);
  CHECK(r.ok);
  runtime::TimingOptions o;
  o.repeats = 3;
  o.min_repeat_seconds = 0.01;
  for (double s : sgemm.time(o).seconds_per_call) CHECK((s > 0 && s < 1));
}

}  // namespace tunectl

namespace tunectl {

TEST_CASE("cuDNN convolution on the device equals the reference", "[gpu]") {
  const baseline::Conv2dShape shape{1, 16, 14, 14, 32, 3, 3, 1, 1};
  auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag(
      "conv2d", {{"N", 1}, {"C", 16}, {"H", 14}, {"W", 14}, {"K", 32}, {"R", 3}, {"S", 3}, {"pad", 1}}));
  baseline::CudnnConv2d conv(shape);
  const check::CheckResult r = check::check_against_reference(
      *dag,
      [&](const std::vector<runtime::NDArray*>& args) {
        conv.run(args[0]->data<float>(), args[1]->data<float>(), args.back()->data<float>());
      },
      6);
  INFO(r.message << " (" << conv.algorithm() << ")");
  CHECK(r.ok);
}

}  // namespace tunectl
