// Log records as JSON: round trips of random schedules and every error kind,
// field validation naming the field, format versions, and the record
// queries (best record, program key, workload key).
#include <cmath>
#include <map>
#include <random>
#include <variant>

#include <catch2/catch.hpp>

#include "ir/error.h"
#include "log/log_file.h"
#include "log/log_test_util.h"
#include "support/random_schedule.h"
#include "schedule/state.h"

namespace tunectl::log {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using nlohmann::json;
using testing::check_same_record;
using testing::kAllErrors;
using testing::op_dag;
using testing::random_result;
using testing::task_of;

// A valid record's JSON to break one field at a time.
json sample_json() {
  Record r;
  r.task = task_of(*op_dag("matmul", {{"M", 8}, {"N", 6}, {"K", 4}}), "matmul_8x6x4");
  r.steps = {schedule::SplitStep{2, 0, 8, {4}, true}, schedule::AnnotationStep{2, 0, "parallel"}};
  r.result.costs = {1e-3, 2e-3};
  return record_to_json(r);
}

void check_rejected(const json& j, const std::string& message) {
  INFO(j.dump());
  CHECK_THAT(testing::user_error([&] { record_from_json(j); }), Contains(message));
}

TEST_CASE("records of random schedules and every error kind round-trip through JSON", "[unit]") {
  std::vector<testing::DagPtr> dags;
  for (const char* op : {"matmul", "conv2d", "softmax", "dense"})
    for (const json& params : ops::test_configs(op)) dags.push_back(op_dag(op, params));
  std::mt19937_64 rng(7);
  int kinds_seen[std::variant_size_v<schedule::Step>] = {};
  int errors_seen[std::size(kAllErrors)] = {};
  for (int n = 0; n < 400; ++n) {
    const testing::DagPtr& dag = dags[n % dags.size()];
    Record r;
    r.task = task_of(*dag, "task" + std::to_string(n % dags.size()));
    r.steps = schedule::random_schedule(dag, rng, 4 + n % 20).history;
    for (const auto& step : r.steps) ++kinds_seen[step.index()];
    size_t e = n % std::size(kAllErrors);
    ++errors_seen[e];
    r.result = random_result(kAllErrors[e], rng);
    std::string line = record_to_json(r).dump();
    INFO(line);
    REQUIRE(line.find('\n') == std::string::npos);
    check_same_record(record_from_json(json::parse(line)), r);
  }
  for (size_t k = 0; k < std::size(kinds_seen); ++k) {
    INFO("step kind " << k);
    CHECK(kinds_seen[k] > 0);
  }
  for (size_t e = 0; e < std::size(kAllErrors); ++e) CHECK(errors_seen[e] > 0);
}

TEST_CASE("measure error kinds convert to and from their names", "[unit]") {
  for (MeasureError e : kAllErrors) CHECK(measure_error_from_string(to_string(e)) == e);
  CHECK(std::string(to_string(MeasureError::WrongAnswer)) == "wrong_answer");
  CHECK_THAT(testing::user_error([&] { measure_error_from_string("segfault"); }),
             Contains("unknown measure error kind 'segfault'") && Contains("run_timeout"));
}

TEST_CASE("a record with a missing field is rejected naming the field", "[unit][error]") {
  const json good = sample_json();
  REQUIRE_NOTHROW(record_from_json(good));
  for (const char* top : {"task", "steps", "result"}) {
    json j = good;
    j.erase(top);
    check_rejected(j, std::string("field '") + top + "': missing");
  }
  for (const char* sub : {"key", "name", "target", "dag"}) {
    json j = good;
    j["task"].erase(sub);
    check_rejected(j, std::string("field 'task.") + sub + "': missing");
  }
  for (const char* sub : {"costs", "error", "msg", "build_s", "run_s", "time"}) {
    json j = good;
    j["result"].erase(sub);
    check_rejected(j, std::string("field 'result.") + sub + "': missing");
  }
}

TEST_CASE("a record with a field of the wrong kind is rejected naming the field", "[unit][error]") {
  const json good = sample_json();
  auto with = [&](const json::json_pointer& ptr, const json& value) {
    json j = good;
    j[ptr] = value;
    return j;
  };
  using ptr = json::json_pointer;
  check_rejected(with(ptr("/result/costs"), "fast"), "log record: field 'result.costs': expected an array of numbers");
  check_rejected(with(ptr("/result/costs"), {1e-3, "2"}), "field 'result.costs': expected an array of numbers");
  check_rejected(with(ptr("/result/costs"), {1e-3, -2e-3}),
                 "field 'result.costs': costs must be finite and non-negative");
  check_rejected(with(ptr("/result/costs"), json::array()),
                 "field 'result.costs': an ok record needs at least one cost");
  check_rejected(with(ptr("/result/error"), "runtime_error"),
                 "field 'result.costs': an error record (runtime_error) has no costs");
  check_rejected(with(ptr("/result/error"), "oops"), "field 'result.error': unknown measure error kind 'oops'");
  check_rejected(with(ptr("/result/error"), 3), "field 'result.error': expected a string, got number");
  check_rejected(with(ptr("/result/time"), 1.5), "field 'result.time': expected an integer");
  check_rejected(with(ptr("/result/build_s"), "1"), "field 'result.build_s': expected a number");
  check_rejected(with(ptr("/task/key"), 17), "field 'task.key': expected a string");
  check_rejected(with(ptr("/task/dag"), "C = A * B"), "field 'task.dag': expected an object");
  check_rejected(with(ptr("/task"), json::array()), "field 'task': expected an object, got array");
  check_rejected(with(ptr("/steps"), json::array({json::array({"SP", 2})})), "field 'steps': bad step JSON");
  check_rejected(with(ptr("/steps"), json::array({json::array({"XX", 0})})), "unknown step tag 'XX'");
  check_rejected(json::array({1, 2}), "log record: expected a JSON object, got array");
}

TEST_CASE("format versions: newer ones are refused with a clear message", "[unit][error]") {
  json j = sample_json();
  CHECK(record_from_json(j).version == kLogVersion);
  j["v"] = kLogVersion + 1;
  CHECK_THAT(testing::user_error([&] { record_from_json(j); }),
             Equals("log format version 3 is newer than this tunectl reads (2); upgrade tunectl"));
  j["v"] = uint64_t(1) << 63;  // must not wrap around into the known range
  CHECK_THAT(testing::user_error([&] { record_from_json(j); }), Contains("is newer than this tunectl reads (2)"));
  // Version 1 records read unchanged (version 2 only added a step and a DAG field).
  j["v"] = 1;
  CHECK(record_from_json(j).version == 1);
  j["v"] = 0;
  CHECK_THAT(testing::user_error([&] { record_from_json(j); }), Contains("format version 0 is not valid"));
  j["v"] = "1";
  CHECK_THAT(testing::user_error([&] { record_from_json(j); }),
             Contains("field 'v': expected the format version, an integer"));
  j.erase("v");
  CHECK_THAT(testing::user_error([&] { record_from_json(j); }), Contains("field 'v': missing"));
}

TEST_CASE("median cost: middle of the sorted costs, infinite on error", "[unit]") {
  MeasureResult r;
  r.costs = {3, 1, 2};
  CHECK(r.median_cost() == 2);
  r.costs = {4, 1, 3, 2};
  CHECK(r.median_cost() == 2.5);
  r.costs = {};
  r.error = MeasureError::RunTimeout;
  CHECK(std::isinf(r.median_cost()));
}

TEST_CASE("best_records keeps the lowest median per task and ignores errors", "[unit]") {
  auto record = [&](const std::string& key, std::vector<double> costs, MeasureError error, int64_t stamp,
                    const std::string& target = "llvm -mcpu=znver4") {
    Record r;
    r.task.workload_key = key;
    r.task.target = target;
    r.task.dag = json::object();
    r.result.error = error;
    r.result.costs = std::move(costs);
    r.result.timestamp = stamp;
    return r;
  };
  std::vector<Record> records = {
      record("a", {5, 1, 5}, MeasureError::None, 1),   // median 5
      record("a", {}, MeasureError::WrongAnswer, 2),   // never best
      record("a", {3, 2, 9}, MeasureError::None, 3),   // median 3: best of a
      record("a", {3}, MeasureError::None, 4),         // ties: the earliest stays
      record("b", {}, MeasureError::RuntimeError, 5),  // b has no valid record
      record("c", {7}, MeasureError::None, 6),        record("c", {}, MeasureError::BuildTimeout, 7),
      // Faster, but measured for another target: never applied to this one.
      record("a", {0.5}, MeasureError::None, 8, "llvm -mcpu=x86-64-v3"),
  };
  const std::string target = "llvm -mcpu=znver4";
  std::map<std::string, Record> best = best_records(records, target);
  REQUIRE(best.size() == 2);
  CHECK(best.at("a").result.timestamp == 3);
  CHECK(best.at("c").result.timestamp == 6);
  CHECK(best.count("b") == 0);
  CHECK(best_records({}, target).empty());
  CHECK(best_records(records, "llvm -mcpu=x86-64-v3").at("a").result.timestamp == 8);

  SECTION("a measured record beats any estimated one, which round-trips through JSON") {
    Record estimate = record("c", {0.1}, MeasureError::None, 9);
    estimate.result.estimated = true;
    const json j = record_to_json(estimate);
    CHECK(j.at("result").at("estimated") == true);
    CHECK(!record_to_json(records[0]).at("result").contains("estimated"));
    CHECK(record_from_json(j).result.estimated);
    std::vector<Record> with_estimate = records;
    with_estimate.push_back(estimate);
    CHECK(best_records(with_estimate, target).at("c").result.timestamp == 6);
    with_estimate.push_back(estimate);
    with_estimate.back().task.workload_key = "d";  // the only record of d
    CHECK(best_records(with_estimate, target).at("d").result.estimated);
  }

  SECTION("a task's latest runoff supersedes its records before it; later records still compete") {
    auto runoff = [&](const std::string& key, double cost, int64_t stamp) {
      Record r = record(key, {cost}, MeasureError::None, stamp);
      r.result.runoff = true;
      return r;
    };
    std::vector<Record> with_runoff = records;
    // a: its best so far (median 3, timestamp 3) timed again at 4 and 4.5.
    with_runoff.push_back(runoff("a", 4.5, 20));
    with_runoff.push_back(runoff("a", 4, 20));
    const json j = record_to_json(with_runoff.back());
    CHECK(j.at("result").at("runoff") == true);
    CHECK(!record_to_json(records[0]).at("result").contains("runoff"));
    CHECK(record_from_json(j).result.runoff);
    CHECK(best_records(with_runoff, target).at("a").result.costs == std::vector<double>{4});
    CHECK(competing_records(with_runoff, target).at("a").size() == 2);
    // A record logged after the runoff competes with its winner by cost.
    with_runoff.push_back(record("a", {3.5}, MeasureError::None, 21));
    CHECK(best_records(with_runoff, target).at("a").result.timestamp == 21);
    // A later runoff supersedes the first and that record too.
    with_runoff.push_back(runoff("a", 3.8, 30));
    with_runoff.push_back(runoff("a", 3.9, 30));
    CHECK(best_records(with_runoff, target).at("a").result.costs == std::vector<double>{3.8});
    CHECK(competing_records(with_runoff, target).at("a").size() == 2);
    // Tasks without a runoff keep every record: c's best is still its own.
    CHECK(best_records(with_runoff, target).at("c").result.timestamp == 6);
    CHECK(competing_records(with_runoff, target).at("c").size() == 2);
  }

  SECTION("records of other targets are named, and picked only when asked for") {
    CHECK(records_for_target(records, target).size() == 7);
    CHECK(other_targets_note(records, target) ==
          "1 record of 'llvm -mcpu=x86-64-v3' is for another target than 'llvm -mcpu=znver4' and not used "
          "(--target selects the target)");
    CHECK(other_targets_note(records_for_target(records, target), target).empty());
    CHECK_THROWS_WITH(pick_target(records, "", "log.json"), Contains("log.json: records of 2 targets") &&
                                                                 Contains("pick one with --target"));
    CHECK(pick_target(records, target, "log.json") == target);
    CHECK(pick_target(records_for_target(records, target), "", "log.json") == target);
    CHECK_THROWS_WITH(pick_target(records, "llvm -mcpu=skylake", "log.json"),
                      Contains("no records for target 'llvm -mcpu=skylake'"));
  }
}

TEST_CASE("program_key is equal exactly for equal steps of one task", "[unit]") {
  using namespace schedule;
  std::vector<Step> steps = {SplitStep{2, 0, 64, {8, 4}, true}, ReorderStep{2, {1, 0, 2}},
                             AnnotationStep{2, 0, "parallel"}};
  std::vector<Step> same = steps;
  std::vector<Step> other_length = {SplitStep{2, 0, 64, {8, 2}, true}, ReorderStep{2, {1, 0, 2}},
                                    AnnotationStep{2, 0, "parallel"}};
  std::vector<Step> fewer = {SplitStep{2, 0, 64, {8, 4}, true}, ReorderStep{2, {1, 0, 2}}};
  std::string key = program_key("abc", steps);
  CHECK(key == program_key("abc", same));
  CHECK(key.rfind("abc|[", 0) == 0);
  CHECK(key.find(' ') == std::string::npos);  // compact
  CHECK(key != program_key("abd", steps));
  CHECK(key != program_key("abc", other_length));
  CHECK(key != program_key("abc", fewer));
  CHECK(program_key("abc", {}) == "abc|[]");
  // Through a log record and back, the key does not change.
  CHECK(program_key("abc", record_from_json(json::parse(sample_json().dump())).steps) ==
        program_key("abc", record_from_json(sample_json()).steps));
}

TEST_CASE("workload keys are equal for separately built DAGs of the same op", "[unit]") {
  json conv = {{"N", 1}, {"C", 8}, {"H", 14}, {"W", 14}, {"K", 16}, {"relu", true}};
  std::string key = op_dag("conv2d", conv)->workload_key();
  CHECK(key.size() == 16);
  CHECK(key == op_dag("conv2d", conv)->workload_key());
  json other = conv;
  other["K"] = 32;
  CHECK(key != op_dag("conv2d", other)->workload_key());
  CHECK(op_dag("matmul")->workload_key() == op_dag("matmul")->workload_key());
  CHECK(op_dag("matmul")->workload_key() != op_dag("matmul", {{"M", 256}})->workload_key());
}

}  // namespace
}  // namespace tunectl::log

namespace tunectl::log {

TEST_CASE("a record's DAG rebuilds the task with the record's workload key", "[unit]") {
  auto dag = testing::op_dag("conv2d");
  Record r;
  r.task = testing::task_of(*dag, "conv2d");
  r.result.costs = {1e-3};
  Record back = record_from_json(nlohmann::json::parse(record_to_json(r).dump()));
  te::ComputeDAG rebuilt = te::dag_from_json(back.task.dag);
  CHECK(rebuilt.workload_key() == back.task.workload_key);
  CHECK(rebuilt.canonical_text() == dag->canonical_text());
}

}  // namespace tunectl::log
