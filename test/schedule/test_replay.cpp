// JSON forms of steps and replay of random histories.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/random_schedule.h"
#include "schedule/state.h"
#include "schedule_test_util.h"

using namespace tunectl;
using namespace tunectl::schedule;
using namespace tunectl::schedule::testing;
using Catch::Matchers::Contains;
using nlohmann::json;

TEST_CASE("every step kind round-trips through JSON", "[unit]") {
  std::vector<Step> steps = {
      SplitStep{2, 1, 64, {4, 8}, true},
      FollowSplitStep{3, 0, 1, 2},
      FollowFusedSplitStep{3, 0, {1, 4}, 1, true},
      ReorderStep{2, {2, 0, 1}},
      FuseStep{2, {0, 1, 2}},
      AnnotationStep{2, 0, "parallel"},
      ComputeAtStep{1, 2, 3},
      ComputeInlineStep{1},
      ComputeRootStep{4},
      CacheReadStep{0, "shared", {2, 3}},
      CacheWriteStep{2, "local"},
      RfactorStep{2, 3, 1},
      PragmaStep{2, 0, "auto_unroll_max_step$16"},
      PrepackStep{1},
      StorageOrderStep{1, {1, 0}},
  };
  REQUIRE(steps.size() == std::variant_size_v<Step>);
  for (const auto& step : steps) {
    json j = step_to_json(step);
    CHECK(step_from_json(j) == step);
    CHECK(step_from_json(json::parse(j.dump())) == step);
  }
  CHECK(step_to_json(steps[0]).dump() == R"(["SP",2,1,64,[4,8],true])");
  CHECK(step_to_json(steps[2]).dump() == R"(["FFSP",3,0,[1,4],1,true])");
  CHECK(step_to_json(steps[9]).dump() == R"(["CHR",0,"shared",[2,3]])");
  CHECK(step_to_json(steps[13]).dump() == R"(["PP",1])");
  CHECK(step_to_json(steps[14]).dump() == R"(["SO",1,[1,0]])");
  CHECK(steps_from_json(steps_to_json(steps)) == steps);
  // Ansor writes booleans as integers.
  CHECK(step_from_json(json::parse(R"(["SP",2,1,64,[4,8],1])")) == steps[0]);
}

TEST_CASE("malformed step JSON is a user error naming the problem", "[unit][error]") {
  auto bad = [](const char* text, const char* key) {
    INFO(text);
    CHECK_THROWS_WITH(step_from_json(json::parse(text)), Contains("bad step JSON") && Contains(key));
  };
  bad(R"({"SP": 1})", "array starting with a tag");
  bad(R"([])", "array starting with a tag");
  bad(R"([3, 1])", "array starting with a tag");
  bad(R"(["SP"])", "at least a tag and a stage");
  bad(R"(["XX", 1])", "unknown step tag 'XX'");
  bad(R"(["SP", 2, 1, 64, [4, 8]])", "has 6 elements");
  bad(R"(["SP", "2", 1, 64, [4, 8], true])", "element 1 must be an integer");
  bad(R"(["SP", 2, 1, 64.5, [4, 8], true])", "element 3 must be an integer");
  bad(R"(["SP", 2, 1, 64, [4, "8"], true])", "element 4 must be an array of integers");
  bad(R"(["SP", 2, 1, 64, 4, true])", "element 4 must be an array of integers");
  bad(R"(["SP", 2, 1, 64, [4], 2])", "element 5 must be a boolean");
  bad(R"(["SP", 2, 1, 64, [4], "yes"])", "element 5 must be a boolean");
  bad(R"(["AN", 2, 0, 7])", "element 3 must be a string");
  bad(R"(["CHR", 0, "shared", [1.5]])", "element 3 must be an array of integers");
  bad(R"(["CA", 1, 2, 99999999999])", "element 3 is out of range");
  bad(R"(["CI", 1, 2])", "has 2 elements");
  CHECK_THROWS_WITH(steps_from_json(json::parse(R"({"a": 1})")), Contains("expected an array of steps"));
}

TEST_CASE("random schedules replay to equal states, also through JSON", "[unit]") {
  std::vector<DagPtr> dags = {matmul_dag(), conv_relu_dag(), softmax_dag(), matmul_relu_dag()};
  std::mt19937_64 rng(2024);
  int kinds_seen[std::variant_size_v<Step>] = {};
  for (int n = 0; n < 400; ++n) {
    const DagPtr& dag = dags[n % dags.size()];
    State s = random_schedule(dag, rng, 4 + n % 20);
    for (const auto& step : s.history) ++kinds_seen[step.index()];
    INFO("state " << n << ":\n" << s.to_string() << steps_to_json(s.history).dump());
    State again = replay(dag, s.history);
    REQUIRE(states_equal(s, again));
    State from_json = replay(dag, steps_from_json(json::parse(steps_to_json(s.history).dump())));
    REQUIRE(states_equal(s, from_json));
    // Ops read the current ops of other stages, never ones a step replaced.
    for (const auto& st : s.stages)
      for (const auto& in : st.op->inputs)
        REQUIRE(std::any_of(s.stages.begin(), s.stages.end(), [&](const Stage& other) { return other.op == in; }));
    // The ops the steps rewrote still compute the DAG's outputs.
    REQUIRE(max_output_error(s) < 1e-4);
  }
  for (size_t k = 0; k < std::variant_size_v<Step>; ++k) {
    INFO("step kind " << k);
    CHECK(kinds_seen[k] > 0);
  }
}

TEST_CASE("states_equal tells states apart", "[unit]") {
  auto dag = matmul_dag();
  State a = State::initial(dag);
  State b = State::initial(dag);
  CHECK(states_equal(a, b));
  a.apply(SplitStep{2, 0, 24, {4}, true});
  CHECK_FALSE(states_equal(a, b));
  b.apply(SplitStep{2, 0, 24, {6}, true});
  CHECK_FALSE(states_equal(a, b));
  State c = State::initial(matmul_dag());  // separately built DAG of the same structure
  c.apply(SplitStep{2, 0, 24, {4}, true});
  CHECK(states_equal(a, c));
  State d = State::initial(matmul_dag(24, 20, 17));
  d.apply(SplitStep{2, 0, 24, {4}, true});
  CHECK_FALSE(states_equal(a, d));
}
