#include "gpu_program_checks.h"

#include <catch2/catch.hpp>

#include "check/reference_check.h"
#include "codegen/cuda/cuda_source.h"
#include "codegen/cuda/nvrtc.h"
#include "log/log_test_util.h"
#include "lower/gpu_emulator.h"
#include "lower/interpreter.h"
#include "support/cuda_on_host.h"
#include "support/property_cases.h"

namespace tunectl::testing {

void check_on_host(const te::ComputeDAG& dag, const std::vector<GpuProgram>& programs) {
  std::vector<const lower::LoweredFunc*> funcs;
  for (const GpuProgram& p : programs) funcs.push_back(&p.func);
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

void check_in_emulator(const te::ComputeDAG& dag, const GpuProgram& p, uint64_t seed) {
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

void check_compiles(const std::vector<GpuProgram>& programs, size_t rotation) {
  std::vector<const lower::LoweredFunc*> funcs;
  for (const GpuProgram& p : programs) funcs.push_back(&p.func);
  const std::string source = codegen::cuda::cuda_source(funcs);
  for (const std::string& arch : property_subset<std::string>({"sm_80", "sm_90"}, rotation)) {
    INFO(arch);
    const codegen::cuda::CompiledCuda c = codegen::cuda::nvrtc_compile(source, "property", arch);
    CHECK(!c.cubin.empty());
    CHECK(c.ptx.find(".target " + arch) != std::string::npos);
    for (const GpuProgram& p : programs) {
      auto it = c.resources.find(p.func.name);
      INFO(p.func.name << " has no ptxas report in\n" << c.log);
      REQUIRE(it != c.resources.end());
    }
  }
}

}  // namespace tunectl::testing
