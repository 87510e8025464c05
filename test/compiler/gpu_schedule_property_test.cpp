// The CUDA backend's central property, checked without a GPU: for every
// operator in ops/, on its test shapes, a hand-written GPU schedule each and
// 30 random valid GPU schedules in all (bindings to blocks, threads and vthreads,
// shared and local cache stages, unrolling) all compile with NVRTC for sm_80
// and sm_90 and compute the reference's output in the GPU emulator, which
// also checks every access's bounds and every shared location for races,
// and as CUDA C compiled for and run on the CPU (support/cuda_on_host.h).
#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <random>
#include <set>

#include "codegen/cuda/nvrtc.h"
#include "gpu_program_checks.h"
#include "lower/lower.h"
#include "ops/registry.h"
#include "per_op_tests.h"
#include "schedule/state.h"
#include "support/gpu_schedules.h"
#include "support/property_cases.h"
#include "support/random_schedule.h"

using namespace tunectl;

namespace {

// Per operator, spread over its shapes; CI runs a share (support/property_cases.h).
constexpr int kRandomSchedulesPerOp = 30;

void check_op(const std::string& op) {
  std::string why;
  // The CUDA Toolkit is on every machine that runs the tests (README).
  if (!codegen::cuda::nvrtc_available(&why)) FAIL(why);
  const target::Target cuda = schedule::cuda_target();
  const std::vector<nlohmann::json> configs = ops::test_configs(op);
  const int schedules = testing::property_cases(kRandomSchedulesPerOp);
  const int per_config = (schedules + static_cast<int>(configs.size()) - 1) / static_cast<int>(configs.size());
  int config_index = 0;
  for (const auto& params : configs) {
    INFO(op << " " << params.dump());
    auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag(op, params));
    std::vector<testing::GpuProgram> programs;
    auto add = [&](schedule::State s) {
      const std::string name = "k" + std::to_string(programs.size());
      programs.push_back({s, lower::lower(s, name, cuda)});
    };
    add(schedule::gpu_default_schedule(dag));
    std::mt19937_64 rng(5000 + config_index++);
    std::set<std::string> distinct;
    for (int i = 0; i < per_config; ++i) {
      schedule::State s = schedule::random_gpu_schedule(dag, rng, 4 + static_cast<int>(rng() % 12), cuda);
      distinct.insert(schedule::steps_to_json(s.history).dump());
      add(s);
    }
    // The generator must explore, not return the same few schedules.
    CHECK(distinct.size() >= static_cast<size_t>(per_config) / 2);
    for (size_t i = 0; i < programs.size(); ++i) testing::check_in_emulator(*dag, programs[i], 1 + i);
    testing::check_on_host(*dag, programs);
    // Each op starts the arch rotation somewhere else (ops with one shape).
    testing::check_compiles(programs, std::hash<std::string>{}(op) + config_index);
  }
}

const bool registered = testing::register_per_op_tests(
    "GPU schedules compile and compute the reference in the emulator: ", "[gpu-emulator][property][slow]", check_op);

}  // namespace
