#include <catch2/catch.hpp>

#include <set>

#include "ir/error.h"
#include "ops/registry.h"
#include "te/evaluate.h"

using namespace tunectl;

TEST_CASE("every registered op builds and evaluates its small test configs", "[unit][ops]") {
  auto names = ops::op_names();
  CHECK(names.size() >= 30);
  std::set<std::string> keys;
  std::mt19937_64 rng(21);
  for (const auto& name : names) {
    INFO(name);
    CHECK_NOTHROW(ops::make_op_dag(name, nlohmann::json::object()));
    auto configs = ops::test_configs(name);
    CHECK(configs.size() >= 2);
    CHECK(configs.size() <= 4);
    for (const auto& c : configs) {
      INFO(c.dump());
      te::ComputeDAG dag = ops::make_op_dag(name, c);
      CHECK(keys.insert(dag.workload_key()).second);
      auto in = te::random_inputs(dag, rng);
      auto out = te::evaluate(dag, in);
      CHECK(out.size() == dag.outputs().size());
      int64_t elements = 0;
      for (const auto& o : out) elements += o.num_elements();
      // Small, so that the property tests over every op stay quick: bounds
      // on the work rather than a clock (4x the largest config of 2026-12).
      CHECK(elements <= 4096);
      CHECK(dag.flop_count() <= 1e6);
    }
  }
}

TEST_CASE("registry parameters change the DAG", "[unit][ops]") {
  te::ComputeDAG mm = ops::make_op_dag("matmul", {{"M", 8}, {"N", 4}, {"K", 2}});
  CHECK(mm.outputs()[0]->shape() == std::vector<int64_t>{8, 4});
  CHECK(mm.flop_count() == 2.0 * 8 * 4 * 2);
  te::ComputeDAG conv = ops::make_op_dag(
      "conv2d", {{"C", 4}, {"H", 9}, {"W", 9}, {"K", 4}, {"stride", 2}, {"pad", {1, 1, 0, 0}}, {"groups", 4}});
  CHECK(conv.outputs()[0]->shape() == std::vector<int64_t>{1, 4, 4, 4});
  CHECK(conv.placeholders()[1]->shape() == std::vector<int64_t>{4, 1, 3, 3});
  te::ComputeDAG add = ops::make_op_dag("add", {{"a_shape", {3, 1}}, {"b_shape", {4}}});
  CHECK(add.outputs()[0]->shape() == std::vector<int64_t>{3, 4});
}

TEST_CASE("registry errors name the op or parameter", "[unit][error][ops]") {
  auto message = [](const std::string& name, const nlohmann::json& p) -> std::string {
    try {
      ops::make_op_dag(name, p);
    } catch (const UserError& e) {
      return e.what();
    }
    return "";
  };
  CHECK(message("convolution", nlohmann::json::object()).find("convolution") != std::string::npos);
  CHECK(message("matmul", {{"Q", 3}}).find("'Q'") != std::string::npos);
  CHECK(message("matmul", {{"M", "big"}}).find("'M'") != std::string::npos);
  CHECK(message("matmul", {{"M", -1}}).find("'M'") != std::string::npos);
  CHECK(message("conv2d", {{"pad", {1, 2, 3}}}).find("'pad'") != std::string::npos);
  CHECK(message("add", {{"a_shape", {3, 2}}, {"b_shape", {3}}}).find("add") != std::string::npos);
  CHECK_THROWS_AS(ops::test_configs("nope"), UserError);
  CHECK_THROWS_AS(ops::make_op_dag("matmul", nlohmann::json::array()), UserError);
}
