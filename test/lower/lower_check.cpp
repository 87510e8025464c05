#include "lower_check.h"

#include "check/reference_check.h"
#include "ir/printer.h"
#include "lower/gpu_emulator.h"
#include "lower/interpreter.h"
#include "lower/lower.h"
#include "ops/registry.h"

namespace tunectl::lower::test {

std::shared_ptr<const te::ComputeDAG> op_dag(const std::string& name, const nlohmann::json& params) {
  return std::make_shared<const te::ComputeDAG>(ops::make_op_dag(name, params));
}

std::string check_against_reference(const schedule::State& state, uint64_t seed) {
  LoweredFunc func = lower(state, "check");
  check::CheckResult r = check::check_against_reference(
      *state.dag, [&](const std::vector<runtime::NDArray*>& args) { interpret_with_packing(func, args); }, seed);
  if (r.ok) return "";
  return r.message + "\nstate:\n" + state.to_string() + "\nIR:\n" + ir::to_string(func.body);
}

std::string emulate_error(const LoweredFunc& func, runtime::NDArray& out) {
  try {
    emulate_gpu(func, {&out});
  } catch (const EmulatorError& e) {
    return e.what();
  }
  return "";
}

std::string emulate_against_reference(const LoweredFunc& func, const schedule::State& state) {
  check::CheckResult r = check::check_against_reference(
      *state.dag, [&](const std::vector<runtime::NDArray*>& args) { emulate_gpu(func, args); }, 3);
  return r.ok ? "" : r.message + "\n" + to_string(func);
}

}  // namespace tunectl::lower::test
