// Fuzz target: schedule steps as JSON (`tunectl compile-op --steps`) ->
// steps -> the state they replay to on each of three operators -> lowered
// loop IR.
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/backend.h"
#include "fuzz_input.h"
#include "lower/lower.h"
#include "ops/registry.h"
#include "schedule/state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tunectl;
  static const std::vector<std::shared_ptr<const te::ComputeDAG>> dags = {
      std::make_shared<const te::ComputeDAG>(ops::make_op_dag("matmul", {{"M", 64}, {"N", 48}, {"K", 32}})),
      std::make_shared<const te::ComputeDAG>(ops::make_op_dag(
          "conv2d", {{"N", 1}, {"C", 8}, {"H", 14}, {"W", 14}, {"K", 16}, {"R", 3}, {"S", 3}, {"pad", 1}})),
      std::make_shared<const te::ComputeDAG>(ops::make_op_dag("softmax", {{"shape", {8, 40}}}))};
  static const target::Target target = backend::resolve_target("llvm -mcpu=znver4");
  const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  fuzz::refusal_allowed([&] {
    const std::vector<schedule::Step> steps = schedule::steps_from_json(j);
    for (const auto& dag : dags) {
      fuzz::refusal_allowed([&] { lower::lower(schedule::replay(dag, steps), "fuzz", target); });
    }
  });
  return 0;
}
