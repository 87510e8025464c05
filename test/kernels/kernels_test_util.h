// Records for the kernels tests, made the way the tuner makes them: a task
// from the ops registry (its DAG as te::dag_to_json), schedule steps (random
// or written by hand) and a measurement result whose costs are filled in by
// hand. The costs are fixtures that decide which record is "best", not
// measured results.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <random>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "log/log_test_util.h"
#include "log/record.h"
#include "support/gpu_schedules.h"
#include "support/random_schedule.h"
#include "schedule/state.h"

namespace tunectl::kernels::testing {

using log::testing::DagPtr;
using log::testing::op_dag;

// The backend of the target the records name (log::testing::task_of).
inline const backend::Backend& record_backend() {
  static const std::unique_ptr<backend::Backend> b =
      backend::make_backend(backend::resolve_target(log::testing::kRecordTarget));
  return *b;
}

// Index of the DAG's (single) output stage, the one hand-written steps touch.
inline int output_stage(const te::ComputeDAG& dag) { return dag.index_of(dag.outputs().front()); }

inline log::Record make_record(const DagPtr& dag, const std::string& name, std::vector<schedule::Step> steps,
                               std::vector<double> costs) {
  log::Record r;
  r.task = log::testing::task_of(*dag, name);
  r.steps = std::move(steps);
  r.result.costs = std::move(costs);
  r.result.build_seconds = 0.25;
  r.result.run_seconds = 0.5;
  r.result.timestamp = 1760000000;
  return r;
}

// A tiled square matmul (n divisible by 8) with a parallel outer loop and a
// vectorized inner loop, so its kernel calls tunectl_parallel_for.
inline std::vector<schedule::Step> tiled_matmul_steps(const te::ComputeDAG& dag, int64_t n) {
  using namespace schedule;
  int mm = output_stage(dag);
  return {SplitStep{mm, 0, n, {8}},          // i.0 i.1 j k
          SplitStep{mm, 2, n, {8}},          // i.0 i.1 j.0 j.1 k
          SplitStep{mm, 4, n, {4}},          // i.0 i.1 j.0 j.1 k.0 k.1
          ReorderStep{mm, {0, 2, 4, 1, 5, 3}},  // i.0 j.0 k.0 i.1 k.1 j.1
          AnnotationStep{mm, 0, "parallel"},
          AnnotationStep{mm, 5, "vectorize"}};
}

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every file of a folder by name, with its bytes.
inline std::map<std::string, std::string> folder_bytes(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(dir)) files[f.path().filename().string()] = read_bytes(f.path());
  return files;
}

inline std::vector<schedule::Step> random_steps(const DagPtr& dag, uint64_t seed, int num_steps) {
  std::mt19937_64 rng(seed);
  return schedule::random_schedule(dag, rng, num_steps).history;
}

// CUDA records of three tasks, built and checked without a GPU: a
// hand-written matmul with shared tiles, a convolution's plain GPU schedule
// and a random GPU schedule of a relu. Costs are fixtures, as above.
inline constexpr const char* kCudaTarget = "cuda -arch=sm_90";

inline const backend::Backend& cuda_backend() {
  static const std::unique_ptr<backend::Backend> b = backend::make_backend(backend::resolve_target(kCudaTarget));
  return *b;
}

inline std::vector<log::Record> cuda_records() {
  auto cuda_record = [](const schedule::State& s, const std::string& name) {
    log::Record r = make_record(std::const_pointer_cast<te::ComputeDAG>(s.dag), name, s.history, {1e-5});
    r.task.target = kCudaTarget;
    return r;
  };
  std::mt19937_64 rng(7);
  DagPtr conv = op_dag("conv2d", {{"N", 1}, {"C", 4}, {"H", 8}, {"W", 8}, {"K", 8}, {"R", 3}, {"S", 3}, {"pad", 1}});
  DagPtr relu = op_dag("relu", {{"shape", {4, 33}}});
  return {cuda_record(schedule::gpu_matmul(32, 32, 16, {2, 4, 2}, {2, 4, 2}, 4), "matmul_32"),
          cuda_record(schedule::gpu_default_schedule(conv), "conv_small"),
          cuda_record(schedule::random_gpu_schedule(relu, rng, 8, cuda_backend().target()), "relu_random")};
}

}  // namespace tunectl::kernels::testing
