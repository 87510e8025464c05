// The CUDA backend's central property, checked without a GPU: for every
// operator in ops/, on its test shapes, a hand-written GPU schedule each and
// 30 random valid GPU schedules in all (bindings to blocks, threads and vthreads,
// shared and local cache stages, unrolling) all compile with NVRTC for sm_80
// and sm_90 and compute the reference's output in the GPU emulator, which
// also checks every access's bounds and every shared location for races,
// and as CUDA C compiled for and run on the CPU (support/cuda_on_host.h).
#include <catch2/catch.hpp>

#include <memory>
#include <random>
#include <set>

#include "check/reference_check.h"
#include "codegen/cuda/cuda_source.h"
#include "codegen/cuda/nvrtc.h"
#include "log/log_test_util.h"
#include "lower/gpu_emulator.h"
#include "lower/interpreter.h"
#include "lower/lower.h"
#include "ops/registry.h"
#include "per_op_tests.h"
#include "schedule/state.h"
#include "support/cuda_on_host.h"
#include "support/gpu_schedules.h"
#include "support/random_schedule.h"

using namespace tunectl;

namespace {

// Per operator, spread over its shapes.
constexpr int kRandomSchedulesPerOp = 30;

struct Program {
  schedule::State state;
  lower::LoweredFunc func;
};

// The generated CUDA C of every program, run on the CPU (cuda_on_host.h).
void check_on_host(const te::ComputeDAG& dag, const std::vector<Program>& programs) {
  std::vector<const lower::LoweredFunc*> funcs;
  for (const Program& p : programs) funcs.push_back(&p.func);
  log::testing::ScratchDir dir;
  const testing::CudaOnHost host(funcs, dir.file(""));
  for (size_t i = 0; i < programs.size(); ++i) {
    check::CheckResult r = check::check_against_reference(
        dag,
        [&](const std::vector<runtime::NDArray*>& args) {
          lower::run_with_packing(programs[i].func, args,
                                  [&](const lower::LoweredFunc& f, const std::vector<runtime::NDArray*>& a) { host.run(f, a); });
        },
        1 + i);
    if (r.ok) continue;
    INFO("steps: " << schedule::steps_to_json(programs[i].state.history).dump());
    INFO(r.message << "\n" << codegen::cuda::cuda_source(programs[i].func));
    CHECK(r.ok);
  }
}

void check_in_emulator(const te::ComputeDAG& dag, const Program& p, uint64_t seed) {
  std::string emulator_error;
  check::CheckResult r = check::check_against_reference(
      dag,
      [&](const std::vector<runtime::NDArray*>& args) {
        try {
          lower::run_with_packing(p.func, args, lower::emulate_gpu);
        } catch (const lower::EmulatorError& e) {
          emulator_error = e.what();
        }
      },
      seed);
  if (emulator_error.empty() && r.ok) return;
  INFO("steps: " << schedule::steps_to_json(p.state.history).dump());
  INFO(emulator_error << "\n" << r.message << "\n" << lower::to_string(p.func));
  CHECK(emulator_error.empty());
  CHECK(r.ok);
}

// All kernels of one shape in one NVRTC module per arch: compiling is the
// slow part, and one module costs little more than one kernel.
void check_compiles(const std::vector<Program>& programs) {
  std::vector<const lower::LoweredFunc*> funcs;
  for (const Program& p : programs) funcs.push_back(&p.func);
  const std::string source = codegen::cuda::cuda_source(funcs);
  for (const char* arch : {"sm_80", "sm_90"}) {
    INFO(arch);
    const codegen::cuda::CompiledCuda c = codegen::cuda::nvrtc_compile(source, "property", arch);
    CHECK(!c.cubin.empty());
    CHECK(c.ptx.find(".target " + std::string(arch)) != std::string::npos);
    for (const Program& p : programs) {
      auto it = c.resources.find(p.func.name);
      INFO(p.func.name << " has no ptxas report in\n" << c.log);
      REQUIRE(it != c.resources.end());
    }
  }
}

void check_op(const std::string& op) {
  std::string why;
  // The CUDA Toolkit is on every machine that runs the tests (README).
  if (!codegen::cuda::nvrtc_available(&why)) FAIL(why);
  const target::Target cuda = schedule::cuda_target();
  const std::vector<nlohmann::json> configs = ops::test_configs(op);
  const int per_config = (kRandomSchedulesPerOp + static_cast<int>(configs.size()) - 1) / static_cast<int>(configs.size());
  int config_index = 0;
  for (const auto& params : configs) {
    INFO(op << " " << params.dump());
    auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag(op, params));
    std::vector<Program> programs;
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
    for (size_t i = 0; i < programs.size(); ++i) check_in_emulator(*dag, programs[i], 1 + i);
    check_on_host(*dag, programs);
    check_compiles(programs);
  }
}

const bool registered = testing::register_per_op_tests(
    "GPU schedules compile and compute the reference in the emulator: ", "[gpu-emulator][property][slow]", check_op);

}  // namespace
