// Every registered op, unscheduled: lowering plus the interpreter must agree
// with te's reference evaluator on random inputs.
#include <catch2/catch.hpp>

#include "lower_check.h"
#include "ops/registry.h"

namespace tunectl::lower::test {

TEST_CASE("initial state of every op lowers to the reference values", "[cpu]") {
  for (const std::string& name : ops::op_names()) {
    for (const nlohmann::json& params : ops::test_configs(name)) {
      INFO(name << " " << params.dump());
      auto dag = op_dag(name, params);
      CHECK(check_against_reference(schedule::State::initial(dag)) == "");
    }
  }
}

}  // namespace tunectl::lower::test
