// The compiler's central property: for every operator in ops/, on several
// shapes, the default schedule and many random valid schedules (splits,
// reorders, fuses, annotations, compute_at, inline, cache_write, rfactor)
// all compute the reference's output on random inputs after lowering and LLVM
// code generation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <random>
#include <set>

#include "backend/backend.h"
#include "check/reference_check.h"
#include "codegen/llvm/llvm_codegen.h"
#include "lower/lower.h"
#include "ops/registry.h"
#include "per_op_tests.h"
#include "support/property_cases.h"
#include "support/random_schedule.h"
#include "schedule/state.h"

using namespace tunectl;

namespace {

// The full count; CI runs a share (support/property_cases.h).
constexpr int kRandomSchedulesPerConfig = 50;

void check_state(const te::ComputeDAG& dag, const schedule::State& state, uint64_t seed) {
  INFO("steps: " << schedule::steps_to_json(state.history).dump());
  std::unique_ptr<runtime::Kernel> kernel = backend::host_backend()->build(lower::lower(state, "kernel"));
  check::CheckResult r = check::check_against_reference(dag, [&](const std::vector<runtime::NDArray*>& args) { kernel->pack_and_run(check::raw_pointers(args)); }, seed);
  INFO(r.message);
  CHECK(r.ok);
}

void check_op(const std::string& op) {
  const int schedules = testing::property_cases(kRandomSchedulesPerConfig);
  int config_index = 0;
  for (const auto& params : ops::test_configs(op)) {
    INFO(op << " " << params.dump());
    auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag(op, params));
    check_state(*dag, schedule::State::initial(dag), 1);
    std::mt19937_64 rng(1000 + config_index++);
    std::set<std::string> distinct;
    for (int i = 0; i < schedules; ++i) {
      schedule::State state = schedule::random_schedule(dag, rng, 4 + static_cast<int>(rng() % 12));
      distinct.insert(schedule::steps_to_json(state.history).dump());
      check_state(*dag, state, 2 + i);
    }
    // The generator must explore, not return the same few schedules.
    CHECK(distinct.size() >= static_cast<size_t>(schedules) / 2);
  }
}

const bool registered = testing::register_per_op_tests(
    "random schedules compute the reference: ", "[cpu][property]", check_op);

}  // namespace
