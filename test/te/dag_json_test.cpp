#include "te/dag_json.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

#include "ir/error.h"
#include "ops/registry.h"
#include "te/evaluate.h"

using namespace tunectl;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

// Evaluates both DAGs on the same random inputs and requires bitwise equal
// outputs: the rebuilt definitions must compute exactly what the originals do.
void require_same_outputs(const te::ComputeDAG& a, const te::ComputeDAG& b, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto inputs = te::random_inputs(a, rng);
  auto out_a = te::evaluate(a, inputs);
  auto out_b = te::evaluate(b, inputs);
  REQUIRE(out_a.size() == out_b.size());
  for (size_t k = 0; k < out_a.size(); ++k) {
    REQUIRE(out_a[k].shape() == out_b[k].shape());
    REQUIRE(out_a[k].dtype() == out_b[k].dtype());
    CHECK(std::memcmp(out_a[k].raw(), out_b[k].raw(), out_a[k].num_bytes()) == 0);
  }
}

void require_round_trip(const te::ComputeDAG& dag) {
  json j = dag_to_json(dag);
  te::ComputeDAG back = te::dag_from_json(j);
  CHECK(back.canonical_text() == dag.canonical_text());
  CHECK(back.workload_key() == dag.workload_key());
  CHECK(te::dag_to_json(back) == j);
  // Through text, as a log file stores it.
  te::ComputeDAG from_text = te::dag_from_json(json::parse(j.dump()));
  CHECK(from_text.workload_key() == dag.workload_key());
  CHECK(from_text.canonical_text() == dag.canonical_text());
}

// A DAG that uses every expression kind, several dtypes, NaN and infinities,
// a Prod reduction and two outputs.
te::ComputeDAG every_kind_dag() {
  te::Tensor a = te::placeholder("A", {4, 5});
  te::Tensor idx = te::placeholder("I", {4}, ir::DType::Int32);
  te::Tensor mixed = te::compute(
      "mixed", {4, 5},
      [&](const std::vector<ir::Var>& i) {
        ir::Expr v = te::read(a, {i[0], (i[1] * 2) / 2});
        ir::Expr n = te::read(idx, {i[0]});
        ir::Expr cond =
            ir::make_and(ir::make_or(i[0] < 2, ir::make_not(ir::make_eq(i[1], 3))), ir::make_ne(i[1] % 2, 0));
        ir::Expr cond2 = ir::make_or(ir::make_le(i[0], 1), ir::make_ge(i[1], 4));
        ir::Expr wide = ir::make_cast(ir::DType::Float64, v) * ir::make_float(0.1, ir::DType::Float64) +
                        ir::make_float(1.0 / 3.0, ir::DType::Float64);
        ir::Expr math = ir::make_call(ir::MathFunc::exp, {v}) - ir::make_call(ir::MathFunc::pow, {v, 2.0}) / 3.0;
        ir::Expr ints =
            ir::make_cast(ir::DType::Float32, ir::make_max(n, ir::make_min(n, ir::make_int(3, ir::DType::Int32))));
        ir::Expr guarded = ir::make_select(
            v > ir::make_float(std::numeric_limits<double>::infinity()),
            ir::make_float(std::numeric_limits<double>::quiet_NaN()),
            ir::make_select(v < ir::make_float(-std::numeric_limits<double>::infinity()), ir::make_float(0.7), v));
        ir::Expr flag =
            ir::make_cast(ir::DType::Float32, ir::make_select(cond2, ir::make_bool(true), ir::make_bool(false)));
        return ir::make_select(cond, math + ir::make_cast(ir::DType::Float32, wide) + flag, ints + guarded);
      },
      "injective");
  ir::IterVar r = te::reduce_axis(5, "r");
  te::Tensor prod = te::compute(
      "prod", {4},
      [&](const std::vector<ir::Var>& i) {
        return ir::make_reduce(ir::ReduceOp::Prod, te::read(mixed, {i[0], r.var}), {r});
      },
      "reduce");
  ir::IterVar r2 = te::reduce_axis(4, "rr");
  te::Tensor mx = te::compute(
      "mx", {5},
      [&](const std::vector<ir::Var>& i) {
        return te::max_reduce(te::read(mixed, {r2.var, i[0]}), {r2});
      },
      "reduce");
  return te::ComputeDAG({prod, mx});
}

// A + relu(matmul): ops 0 A, 1 B, 2 C (Reduce Sum), 3 D (Max with 0).
json small_json() {
  te::Tensor a = te::placeholder("A", {4, 5});
  te::Tensor b = te::placeholder("B", {5, 3});
  ir::IterVar k = te::reduce_axis(5, "k");
  te::Tensor c = te::compute(
      "C", {4, 3},
      [&](const std::vector<ir::Var>& i) {
        return te::sum(te::read(a, {i[0], k.var}) * te::read(b, {k.var, i[1]}), {k});
      },
      "matmul");
  te::Tensor d = te::compute(
      "D", {4, 3},
      [&](const std::vector<ir::Var>& i) {
        return ir::make_max(te::read(c, {i[0], i[1]}), 0.0);
      },
      "elemwise");
  return te::dag_to_json(te::ComputeDAG({d}));
}

std::string user_error_of(const json& j) {
  try {
    te::dag_from_json(j);
  } catch (const UserError& e) {
    return e.what();
  }
  return "<no UserError>";
}

}  // namespace

TEST_CASE("dag JSON round-trips every registry op config", "[unit]") {
  uint64_t seed = 1;
  for (const auto& name : ops::op_names()) {
    for (const auto& cfg : ops::test_configs(name)) {
      INFO(name << " " << cfg.dump());
      te::ComputeDAG dag = ops::make_op_dag(name, cfg);
      require_round_trip(dag);
      require_same_outputs(dag, te::dag_from_json(te::dag_to_json(dag)), seed++);
    }
  }
}

TEST_CASE("dag JSON covers every expression kind exactly", "[unit]") {
  te::ComputeDAG dag = every_kind_dag();
  require_round_trip(dag);
  require_same_outputs(dag, te::dag_from_json(te::dag_to_json(dag)), 7);
  std::string text = te::dag_to_json(dag).dump();
#define TUNECTL_CHECK_KIND(name) CHECK_THAT(text, Contains("[\"" #name "\""));
  TUNECTL_EXPR_NODES(TUNECTL_CHECK_KIND)
#undef TUNECTL_CHECK_KIND
  CHECK_THAT(text, Contains("\"nan\""));
  CHECK_THAT(text, Contains("\"inf\""));
  CHECK_THAT(text, Contains("\"-inf\""));
  CHECK_THAT(text, Contains("\"Prod\""));
  CHECK_THAT(text, Contains("[\"rr\",4]"));
}

TEST_CASE("dag JSON keeps float immediates bit-exact through text", "[unit]") {
  for (double v : {0.1, 1.0 / 3.0, -0.0, 1e-310, 3.4028234663852886e38, 123456789.123456789}) {
    te::Tensor a = te::placeholder("A", {2}, ir::DType::Float64);
    te::Tensor c = te::compute(
        "C", {2},
        [&](const std::vector<ir::Var>& i) { return te::read(a, {i[0]}) * ir::make_float(v, ir::DType::Float64); },
        "elemwise", ir::DType::Float64);
    json j = json::parse(te::dag_to_json(te::ComputeDAG({c})).dump());
    te::ComputeDAG back = te::dag_from_json(j);
    const auto* imm = back.ops()[1]->body.as<ir::MulNode>();
    REQUIRE(imm != nullptr);
    const auto* f = imm->b.as<ir::FloatImmNode>();
    REQUIRE(f != nullptr);
    CHECK(std::memcmp(&f->value, &v, sizeof v) == 0);
  }
}

TEST_CASE("dag JSON keeps names and tags", "[unit]") {
  json j = small_json();
  te::ComputeDAG dag = te::dag_from_json(j);
  REQUIRE(dag.ops().size() == 4);
  CHECK(dag.ops()[0]->name == "A");
  CHECK(dag.ops()[2]->name == "C");
  CHECK(dag.ops()[2]->tag == "matmul");
  REQUIRE(dag.ops()[2]->reduce() != nullptr);
  CHECK(dag.ops()[2]->reduce()->axes[0].var.name() == "k");
  CHECK(dag.ops()[3]->inputs.size() == 1);
  CHECK(dag.ops()[3]->inputs[0].get() == dag.ops()[2].get());
  CHECK(dag.outputs().size() == 1);
  CHECK(dag.outputs()[0].get() == dag.ops()[3].get());
}

TEST_CASE("dag JSON rejects malformed input with the op and field", "[unit][error]") {
  struct Case {
    const char* what;
    std::function<void(json&)> mutate;
    std::vector<std::string> expect;
  };
  json& (*body)(json&, int) = [](json& j, int op) -> json& { return j["ops"][op]["body"]; };
  std::vector<Case> cases = {
      {"unknown expression kind",
       [&](json& j) { body(j, 3)[0] = "Maximum"; },
       {"op 3 (D): body: unknown expression kind 'Maximum'"}},
      {"wrong arity", [&](json& j) { body(j, 3).erase(2); }, {"op 3 (D): body: Max takes 2 operands, got 1"}},
      {"load of a later op",
       [&](json& j) { body(j, 2)[3][1][1] = 3; },
       {"op 2 (C): body[3][1][1]: Load of op 3, which does not come before op 2"}},
      {"load of itself", [&](json& j) { body(j, 3)[1][1] = 3; }, {"op 3 (D)", "does not come before op 3"}},
      {"index count",
       [&](json& j) { body(j, 3)[1][2].erase(1); },
       {"op 3 (D): body[1][2]: 1 indices for op 2 ('C') of rank 2"}},
      {"axis out of range",
       [&](json& j) {
         body(j, 3)[1][2][1] = json::array({"Var", "axis", 2});
       },
       {"op 3 (D): body[1][2][1][2]: axis 2 out of range"}},
      {"reduce var outside a reduction",
       [&](json& j) {
         body(j, 3)[1][2][0] = json::array({"Var", "reduce", 0});
       },
       {"op 3 (D)", "reduce axis 0 out of range (0 in scope)"}},
      {"bad var space",
       [&](json& j) { body(j, 3)[1][2][0][1] = "spatial"; },
       {"op 3 (D)", "expected \"axis\" or \"reduce\""}},
      {"type mismatch",
       [&](json& j) {
         body(j, 3)[2] = json::array({"IntImm", "int64", 0});
       },
       {"op 3 (D): body: Max operands differ in type: float32 vs int64"}},
      {"float index",
       [&](json& j) {
         body(j, 3)[1][2][0] = json::array({"FloatImm", "float32", 0.0});
       },
       {"op 3 (D): body[1][2][0]: index of type float32"}},
      {"body type differs from dtype",
       [&](json& j) { j["ops"][3]["dtype"] = "float64"; },
       {"op 3 (D): body: of type float32 but the op is declared float64"}},
      {"reduce below the top",
       [&](json& j) {
         body(j, 2) = json::array({"Add", body(j, 2), json::array({"FloatImm", "float32", 1.0})});
       },
       {"op 2 (C): body[1]: a Reduce is allowed only as the whole body"}},
      {"unknown combiner", [&](json& j) { body(j, 2)[1] = "Mean"; }, {"op 2 (C): body[1]: unknown reduction 'Mean'"}},
      {"non-positive reduce extent",
       [&](json& j) { body(j, 2)[2][0][1] = 0; },
       {"op 2 (C)", "reduce extent 0 is not positive"}},
      {"unknown math function",
       [&](json& j) {
         body(j, 3) = json::array({"Call", "sinc", body(j, 3)[1]});
       },
       {"op 3 (D): body[1]: unknown math function 'sinc'"}},
      {"math function arity",
       [&](json& j) {
         body(j, 3) = json::array({"Call", "pow", body(j, 3)[1]});
       },
       {"op 3 (D): body: pow takes 2 arguments, got 1"}},
      {"non-integer immediate",
       [&](json& j) {
         body(j, 3)[1][2][0] = json::array({"IntImm", "int64", 1.5});
       },
       {"op 3 (D): body[1][2][0][2]: expected an integer, got 1.5"}},
      {"bad float literal",
       [&](json& j) { body(j, 3)[2][2] = "infinity"; },
       {"op 3 (D): body[2][2]: expected a number"}},
      {"not an expression", [&](json& j) { body(j, 3) = 3; }, {"op 3 (D): body: expected an expression array"}},
      {"unknown op kind",
       [&](json& j) { j["ops"][1]["kind"] = "tensor"; },
       {"op 1 (B): kind: expected \"placeholder\""}},
      {"unknown dtype",
       [&](json& j) { j["ops"][0]["dtype"] = "bfloat16"; },
       {"op 0 (A): dtype: unknown dtype 'bfloat16'"}},
      {"non-positive extent",
       [&](json& j) { j["ops"][0]["shape"][1] = 0; },
       {"op 0 (A): shape[1]: extent 0 is not positive"}},
      {"axes differ from shape",
       [&](json& j) { j["ops"][3]["axes"][0] = 5; },
       {"op 3 (D): axes: extents [5,3] differ"}},
      {"missing field", [&](json& j) { j["ops"][2].erase("tag"); }, {"op 2 (C): compute has no field 'tag'"}},
      {"unknown field",
       [&](json& j) { j["ops"][0]["tag"] = "x"; },
       {"op 0 (A): placeholder has an unknown field 'tag'"}},
      {"output out of range", [&](json& j) { j["outputs"][0] = 4; }, {"outputs[0]: op 4 out of range"}},
      {"unreachable op", [&](json& j) { j["outputs"][0] = 2; }, {"op 3 (D) is not reachable from the outputs"}},
      {"out of order",
       [&](json& j) {
         std::swap(j["ops"][0], j["ops"][1]);
         body(j, 2)[3][1][1] = 1;
         body(j, 2)[3][2][1] = 0;
       },
       {"op 0 (B) is out of order"}},
      {"no ops", [&](json& j) { j["ops"] = json::array(); }, {"ops: expected a non-empty array"}},
      {"not an object", [&](json& j) { j = json::array(); }, {"dag JSON: the DAG is not an object"}},
  };
  // The unmodified JSON is valid, so each failure below is the mutation's.
  REQUIRE_NOTHROW(te::dag_from_json(small_json()));
  for (const auto& c : cases) {
    INFO(c.what);
    json j = small_json();
    c.mutate(j);
    std::string msg = user_error_of(j);
    INFO(msg);
    CHECK_THAT(msg, Contains("dag JSON"));
    for (const auto& e : c.expect) CHECK_THAT(msg, Contains(e));
  }
}

TEST_CASE("dag_to_json rejects a body variable that is no axis", "[unit][error]") {
  te::Tensor a = te::placeholder("A", {4});
  ir::Var stray("stray");
  te::Tensor c =
      te::compute("C", {4}, [&](const std::vector<ir::Var>& i) { return te::read(a, {(i[0] + stray) % 4}); });
  CHECK_THROWS_WITH(te::dag_to_json(te::ComputeDAG({c})),
                    Contains("dag_to_json: op 1 (C): body reads variable 'stray', which is no axis of the op"));
}
