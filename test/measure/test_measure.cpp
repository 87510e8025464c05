// Measurement in isolated workers: good candidates get finite costs, bad
// schedules and injected faults (crash, hang, out-of-bounds write, wrong
// output) become error results, and the candidates after them, in the same
// batch, still measure normally in this (surviving) process.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "measure/fault_injection.h"
#include "backend/backend.h"
#include "measure/measure.h"
#include "measure/worker.h"
#include "check/reference_check.h"
#include "ops/registry.h"
#include "schedule/state.h"

using namespace tunectl;
using log::MeasureError;

namespace {

std::shared_ptr<const te::ComputeDAG> matmul_dag() {
  return std::make_shared<const te::ComputeDAG>(ops::make_op_dag("matmul", {{"M", 32}, {"N", 24}, {"K", 40}}));
}

// The matmul's compute stage (the last one: placeholders A and B come first).
int compute_stage(const std::shared_ptr<const te::ComputeDAG>& dag) {
  return static_cast<int>(schedule::State::initial(dag).stages.size()) - 1;
}

// Split the compute stage's first loop (extent M = 32) by 8.
std::vector<schedule::Step> tiled_steps(const std::shared_ptr<const te::ComputeDAG>& dag) {
  return {schedule::SplitStep{compute_stage(dag), 0, 32, {8}, true}};
}

measure::MeasureOptions fast_options() {
  measure::MeasureOptions o;
  o.cpu_calls = 2;
  o.repeats = 2;  // GPU
  o.min_repeat_seconds = 0.001;
  o.run_timeout_s = 2;
  o.parallel_builds = 2;
  return o;
}

void require_good(const log::MeasureResult& r) {
  INFO(log::to_string(r.error) << ": " << r.error_message);
  REQUIRE(r.ok());
  REQUIRE(r.costs.size() == 2);
  for (double c : r.costs) {
    CHECK(std::isfinite(c));
    CHECK(c > 0);
  }
  CHECK(r.build_seconds > 0);
  CHECK(r.timestamp > 0);
}

void require_error(const log::MeasureResult& r, MeasureError kind, const std::string& message_part) {
  INFO(log::to_string(r.error) << ": " << r.error_message);
  CHECK(r.error == kind);
  CHECK(r.costs.empty());
  CHECK(r.error_message.find(message_part) != std::string::npos);
}

}  // namespace

TEST_CASE("a normal matmul candidate gets finite costs", "[cpu]") {
  auto dag = matmul_dag();
  measure::Measurer measurer(fast_options());
  auto results = measurer.measure({{dag, {}}, {dag, tiled_steps(dag)}});
  REQUIRE(results.size() == 2);
  require_good(results[0]);
  require_good(results[1]);
  CHECK(results[0].run_seconds > 0);
}

TEST_CASE("on the CPU each timed call is alone, after the constants alone were evicted", "[cpu]") {
  // gemm's B is a model constant (a weight); A is an activation.
  auto gemm = std::make_shared<const te::ComputeDAG>(
      ops::make_op_dag("gemm", {{"M", 16}, {"N", 24}, {"K", 8}, {"c_shape", nlohmann::json::array()}}));
  const std::vector<te::Tensor> placeholders = gemm->placeholders();
  REQUIRE(placeholders.size() == 2);
  REQUIRE_FALSE(placeholders[0]->constant);
  REQUIRE(placeholders[1]->constant);
  std::vector<runtime::NDArray> inputs = check::check_inputs(*gemm, 1);
  const std::vector<runtime::NDArray> packed = {runtime::NDArray(ir::DType::Float32, {3, 8, 8})};
  measure::MeasureOptions o = fast_options();
  o.cpu_calls = 7;
  o.evict_private_bytes = 4096;
  o.backend = backend::host_backend();
  runtime::TimingOptions t = measure::timing_options_for(*gemm, inputs, packed, o);
  CHECK(t.repeats == 7);
  CHECK(t.evict_private_bytes == 4096);
  CHECK(t.min_repeat_seconds == 0);
  CHECK(t.flush_cache);
  REQUIRE(t.flush_buffers.size() == 2);
  CHECK(t.flush_buffers[0].data() == static_cast<const std::byte*>(inputs[1].raw()));
  CHECK(t.flush_buffers[0].size() == inputs[1].num_bytes());
  CHECK(t.flush_buffers[1].data() == static_cast<const std::byte*>(packed[0].raw()));
  CHECK(t.flush_buffers[1].size() == 3 * 8 * 8 * sizeof(float));
  // The activation (not constant) is handed over to the threads, one plane.
  REQUIRE(t.handed_over.size() == 1);
  CHECK(t.handed_over[0].bytes.data() == static_cast<std::byte*>(inputs[0].raw()));
  CHECK(t.handed_over[0].bytes.size() == inputs[0].num_bytes());
  CHECK(t.handed_over[0].planes == 1);

  // Nothing constant: nothing is flushed (an empty list would mean the whole cache).
  auto matmul = matmul_dag();
  std::vector<runtime::NDArray> matmul_inputs = check::check_inputs(*matmul, 1);
  t = measure::timing_options_for(*matmul, matmul_inputs, {}, o);
  CHECK(t.repeats == 7);
  CHECK_FALSE(t.flush_cache);
  CHECK(t.flush_buffers.empty());

  // A GPU repeats launches and flushes its L2 between repeats.
  o.backend = backend::make_backend(backend::resolve_target("cuda -arch=sm_90"));
  t = measure::timing_options_for(*gemm, inputs, packed, o);
  CHECK(t.repeats == 2);
  CHECK(t.min_repeat_seconds == 0.001);
  CHECK(t.flush_cache);
  CHECK(t.flush_buffers.empty());

  // Measured: one cost per call.
  o.backend = backend::host_backend();
  measure::Measurer measurer(o);
  const log::MeasureResult r = measurer.measure({{gemm, {}}})[0];
  INFO(log::to_string(r.error) << ": " << r.error_message);
  REQUIRE(r.ok());
  CHECK(r.costs.size() == 7);
}

TEST_CASE("a candidate slower than its cutoff is timed by its first run alone", "[cpu]") {
  auto dag = matmul_dag();
  measure::Measurer measurer(fast_options());
  // A cutoff no run can beat, and one no run can exceed.
  auto results = measurer.measure({{dag, {}, nullptr, 1e-12}, {dag, {}, nullptr, 1e3}});
  REQUIRE(results.size() == 2);
  REQUIRE(results[0].ok());
  CHECK(results[0].costs.size() == 1);
  CHECK(results[0].costs[0] > 1e-12);
  require_good(results[1]);
}

TEST_CASE("a step that does not fit the state is an instantiation error", "[cpu]") {
  auto dag = matmul_dag();
  measure::Measurer measurer(fast_options());
  std::vector<schedule::Step> bad = {schedule::SplitStep{compute_stage(dag), 0, 33, {8}, true}};  // wrong extent
  std::vector<schedule::Step> no_stage = {schedule::ComputeInlineStep{42}};
  auto results = measurer.measure({{dag, bad}, {dag, no_stage}, {dag, tiled_steps(dag)}});
  REQUIRE(results.size() == 3);
  require_error(results[0], MeasureError::InstantiationError, "");
  CHECK_FALSE(results[0].error_message.empty());
  require_error(results[1], MeasureError::InstantiationError, "");
  require_good(results[2]);
}

TEST_CASE("a candidate that comes lowered is built from that lowering", "[cpu]") {
  auto dag = matmul_dag();
  measure::Measurer measurer(fast_options());
  // Steps that do not replay, next to the lowering of a valid state: only a
  // worker that builds the given lowering (and never replays) measures it.
  std::vector<schedule::Step> bad = {schedule::SplitStep{compute_stage(dag), 0, 33, {8}, true}};
  auto lowered = std::make_shared<const lower::LoweredFunc>(
      lower::lower(schedule::replay(dag, tiled_steps(dag)), "kernel"));
  auto results = measurer.measure({{dag, bad, lowered}, {dag, bad}});
  require_good(results[0]);
  require_error(results[1], MeasureError::InstantiationError, "");
}

TEST_CASE("measure's wall time splits into building, checking and timing", "[cpu]") {
  auto dag = matmul_dag();
  measure::Measurer measurer(fast_options());
  const auto start = std::chrono::steady_clock::now();
  auto results = measurer.measure({{dag, {}}, {dag, tiled_steps(dag)}});
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  require_good(results[0]);
  const measure::MeasureTimes& t = measurer.times();
  CHECK(t.building_s > 0);
  CHECK(t.checking_s > 0);
  CHECK(t.timing_s > 0);
  CHECK(t.building_s + t.checking_s + t.timing_s <= wall);
  CHECK(t.building_s + t.checking_s + t.timing_s > 0.5 * wall);
}

TEST_CASE("an internal error in a worker is reported as one, not as a failed candidate", "[cpu]") {
  auto dag = matmul_dag();
  measure::MeasureOptions o = fast_options();
  o.run_override = [](size_t index, const runtime::Kernel& kernel, void* const* args) {
    test::run_with_fault(index == 0 ? test::Fault::InternalError : test::Fault::None, kernel, args, 2,
                         32 * 24 * sizeof(float));
  };
  measure::Measurer measurer(o);
  auto results = measurer.measure({{dag, {}}, {dag, {}}});
  require_error(results[0], MeasureError::InternalError, "internal error: planted internal error");
  require_good(results[1]);
}

TEST_CASE("a build over the time limit is a build timeout", "[cpu]") {
  auto dag = matmul_dag();
  measure::MeasureOptions o = fast_options();
  o.build_timeout_s = 1e-6;  // no LLVM build is this fast
  measure::Measurer measurer(o);
  auto results = measurer.measure({{dag, {}}});
  require_error(results[0], MeasureError::BuildTimeout, "build took longer");
}

TEST_CASE("a crashed build costs its worker, and the next candidates build in a fresh one", "[cpu]") {
  auto dag = matmul_dag();
  measure::MeasureOptions o = fast_options();
  o.parallel_builds = 1;  // one worker: the crash must not take the batch with it
  o.before_build = [](size_t index) {
    if (index == 1) std::raise(SIGSEGV);
  };
  measure::Measurer measurer(o);
  auto results = measurer.measure({{dag, {}}, {dag, tiled_steps(dag)}, {dag, tiled_steps(dag)}, {dag, {}}});
  require_good(results[0]);
  require_error(results[1], MeasureError::CompileHostError, "build crashed: SIGSEGV");
  require_good(results[2]);
  require_good(results[3]);
}

TEST_CASE("injected faults become error results and the batch goes on", "[cpu]") {
  auto dag = matmul_dag();
  measure::MeasureOptions o = fast_options();
  o.run_timeout_s = 1;
  // Even candidates are faulty, odd ones pass through to the real kernel.
  // Arguments: A, B, then the output C (32 x 24 floats).
  o.run_override = [](size_t index, const runtime::Kernel& kernel, void* const* args) {
    constexpr test::Fault kFaults[] = {test::Fault::Segfault, test::Fault::Hang, test::Fault::OutOfBounds,
                                       test::Fault::WrongOutput};
    test::run_with_fault(index % 2 == 0 ? kFaults[index / 2 % 4] : test::Fault::None, kernel, args, 2,
                         32 * 24 * sizeof(float));
  };
  measure::Measurer measurer(o);
  std::vector<measure::MeasureInput> inputs;
  for (int i = 0; i < 8; ++i) inputs.push_back({dag, i % 4 == 1 ? tiled_steps(dag) : std::vector<schedule::Step>{}});
  auto results = measurer.measure(inputs);
  REQUIRE(results.size() == 8);

  require_error(results[0], MeasureError::RuntimeError, "candidate crashed: SIGSEGV");
  require_error(results[2], MeasureError::RunTimeout, "run took longer");
  CHECK(results[2].run_seconds >= 1.0);
  {
    INFO(log::to_string(results[4].error) << ": " << results[4].error_message);
    CHECK((results[4].error == MeasureError::RuntimeError || results[4].error == MeasureError::WrongAnswer));
    CHECK(results[4].costs.empty());
  }
  require_error(results[6], MeasureError::WrongAnswer, "output");
  for (int i : {1, 3, 5, 7}) {
    INFO("candidate " << i);
    require_good(results[i]);
  }

  // The measurer (and this process) is still fine for another batch.
  auto again = measurer.measure({{dag, {}}, {dag, {}}});
  require_error(again[0], MeasureError::RuntimeError, "SIGSEGV");
  require_good(again[1]);
}

TEST_CASE("a runaway candidate meets the worker's memory and CPU-time limits", "[cpu]") {
  auto dag = matmul_dag();
  measure::MeasureOptions o = fast_options();
  o.run_timeout_s = 60;  // the limits, not the wall-clock deadline, must end them
  o.worker_memory_mib = 256;
  o.worker_cpu_seconds = 1;
  // Candidate 0 allocates (and touches) 64 MiB at a time without end,
  // candidate 1 spins, candidate 2 is the real kernel.
  o.run_override = [](size_t index, const runtime::Kernel& kernel, void* const* args) {
    // Without the limit (measure::kWorkerMemoryLimited), the hoarding
    // candidate would take the machine.
    if (index == 0 && measure::kWorkerMemoryLimited) {
      std::vector<std::unique_ptr<char[]>> hoard;
      for (;;) {
        hoard.emplace_back(new char[64 << 20]);
        std::memset(hoard.back().get(), 1, 64 << 20);
      }
    }
    test::run_with_fault(index == 1 ? test::Fault::Hang : test::Fault::None, kernel, args, 2,
                         32 * 24 * sizeof(float));
  };
  measure::Measurer measurer(o);
  auto results = measurer.measure({{dag, {}}, {dag, {}}, {dag, {}}});
  if (measure::kWorkerMemoryLimited)
    require_error(results[0], MeasureError::RuntimeError, "out of memory: the worker may use 256 MiB (--worker-memory)");
  require_error(results[1], MeasureError::RuntimeError, "candidate used more than its CPU time (1 s, --worker-cpu-time)");
  CHECK(results[1].run_seconds < 30);
  require_good(results[2]);
}

TEST_CASE("without the reference check a wrong output is not caught", "[cpu]") {
  auto dag = matmul_dag();
  measure::MeasureOptions o = fast_options();
  o.check_reference = false;
  o.run_override = [](size_t, const runtime::Kernel& kernel, void* const* args) {
    kernel.run(args);
    static_cast<float*>(args[2])[0] += 0.5f;
  };
  measure::Measurer measurer(o);
  require_good(measurer.measure({{dag, {}}})[0]);
}

TEST_CASE("GPU candidates: a launch beyond the limits is an instantiation error, a spilling kernel a device "
          "compile error", "[gpu-emulator]") {
  measure::MeasureOptions o = fast_options();
  o.backend = backend::make_backend(backend::resolve_target("cuda -arch=sm_90"));
  auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag("matmul", {{"M", 256}, {"N", 512}, {"K", 16}}));
  const int mm = compute_stage(dag);
  using namespace schedule;
  // Blocks of 2048 threads: more than a block may have.
  const std::vector<Step> too_many_threads = {FuseStep{mm, {0, 1}}, SplitStep{mm, 0, 256 * 512, {2048}, true},
                                              AnnotationStep{mm, 0, "blockIdx.x"}, AnnotationStep{mm, 1, "threadIdx.x"}};
  // 1024 threads of 8x16 unrolled accumulators: more registers than 64 each.
  const std::vector<Step> spills = {
      CacheWriteStep{mm, "local"},
      SplitStep{mm + 1, 0, 256, {8}, true},  // i.0 (32) i.1 (8) j
      SplitStep{mm + 1, 2, 512, {16}, true},  // i.0 i.1 j.0 (32) j.1 (16)
      ReorderStep{mm + 1, {0, 2, 1, 3}},
      FuseStep{mm + 1, {0, 1}},  // 1024
      AnnotationStep{mm + 1, 0, "threadIdx.x"},
      ComputeAtStep{mm, mm + 1, 0},
      AnnotationStep{mm, 0, "unroll"},
      AnnotationStep{mm, 1, "unroll"},
  };
  measure::Measurer measurer(o);
  auto results = measurer.measure({{dag, too_many_threads}, {dag, spills}});
  REQUIRE(results.size() == 2);
  require_error(results[0], MeasureError::InstantiationError, "threads per block");
  require_error(results[1], MeasureError::CompileDeviceError, "spills registers");
}
