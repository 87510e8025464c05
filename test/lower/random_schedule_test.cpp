// Property test: random valid schedules of every op config lower to code
// that computes the reference values. Slow (hundreds of interpreted
// kernels), so it runs under the CTest label "slow". Each op draws from its
// own stream, so adding an op does not move the others' schedules;
// `--rng-seed N` explores other schedules.
#include <catch2/catch.hpp>

#include <functional>
#include <random>

#include "lower_check.h"
#include "ops/registry.h"
#include "support/random_schedule.h"

namespace tunectl::lower::test {

TEST_CASE("random schedules of every op lower to the reference values", "[cpu][slow]") {
  for (const std::string& name : ops::op_names()) {
    std::mt19937_64 rng(20240607 + Catch::rngSeed() + std::hash<std::string>{}(name));
    for (const nlohmann::json& params : ops::test_configs(name)) {
      auto dag = op_dag(name, params);
      for (int trial = 0; trial < 30; ++trial) {
        schedule::State s = schedule::random_schedule(dag, rng, 12);
        INFO(name << " " << params.dump() << " trial " << trial << "\nsteps: " << schedule::steps_to_json(s.history).dump()
                  << "\n" << s.to_string());
        CHECK(check_against_reference(s, trial) == "");
      }
    }
  }
}

}  // namespace tunectl::lower::test
