// The log tools (log_tools.h): per-task summaries, the best record of each
// task and target, merging without repeats, and logs written whole.
#include <catch2/catch.hpp>

#include <fstream>

#include "log/log_file.h"
#include "log/log_test_util.h"
#include "log/log_tools.h"

namespace tunectl::log {
namespace {

using testing::op_dag;

Record record_of(const te::ComputeDAG& dag, const std::string& name, const std::string& target,
                 std::vector<double> costs, int64_t stamp, MeasureError error = MeasureError::None) {
  Record r;
  r.task = testing::task_of(dag, name);
  r.task.target = target;
  r.result.error = error;
  r.result.costs = std::move(costs);
  r.result.timestamp = stamp;
  return r;
}

const char* const kCpu = "llvm -mcpu=znver4";
const char* const kGpu = "cuda -arch=sm_90";

TEST_CASE("log tools: a summary per task and target", "[unit]") {
  const auto mm = op_dag("matmul", {{"M", 64}, {"N", 32}, {"K", 16}});
  const auto relu = op_dag("relu", {{"shape", {8, 8}}});
  const std::vector<Record> records = {
      record_of(*mm, "matmul_0", kCpu, {4e-6, 2e-6, 3e-6}, 300),  // median 3 us
      record_of(*relu, "relu_1", kCpu, {}, 100, MeasureError::CompileHostError),
      record_of(*mm, "matmul_0", kCpu, {1e-6}, 200),
      record_of(*mm, "matmul_0", kGpu, {}, 400, MeasureError::WrongAnswer),
      record_of(*mm, "matmul_0", kCpu, {}, 500, MeasureError::RunTimeout),
  };
  const std::vector<TaskLogSummary> s = summarize_records(records);
  REQUIRE(s.size() == 3);
  CHECK(s[0].name == "matmul_0");
  CHECK(s[0].target == kCpu);
  CHECK(s[0].trials == 3);
  CHECK(s[0].errors == 1);
  CHECK(s[0].error_kinds == std::map<std::string, int>{{"run_timeout", 1}});
  CHECK(s[0].best_cost == 1e-6);
  CHECK(s[0].flops == 2.0 * 64 * 32 * 16);
  CHECK(s[0].first_time == 200);
  CHECK(s[0].last_time == 500);
  CHECK(s[1].name == "relu_1");
  CHECK(s[1].errors == 1);
  CHECK(std::isinf(s[1].best_cost));
  CHECK(s[2].target == kGpu);
  CHECK(s[2].trials == 1);
  CHECK(std::isinf(s[2].best_cost));

  SECTION("best_per_task: one record per task and target with a valid one, in first-record order") {
    std::vector<Record> with_gpu = records;
    with_gpu.push_back(record_of(*mm, "matmul_0", kGpu, {5e-7}, 600));
    const std::vector<Record> best = best_per_task(with_gpu);
    REQUIRE(best.size() == 2);
    CHECK(best[0].task.target == kCpu);
    CHECK(best[0].result.timestamp == 200);
    CHECK(best[1].task.target == kGpu);
    CHECK(best[1].result.timestamp == 600);
  }
}

TEST_CASE("log tools: merge keeps each record once, in order", "[unit]") {
  const auto mm = op_dag("matmul", {{"M", 8}, {"N", 8}, {"K", 8}});
  const Record a = record_of(*mm, "m", kCpu, {1e-6}, 1), b = record_of(*mm, "m", kCpu, {2e-6}, 2),
               c = record_of(*mm, "m", kCpu, {3e-6}, 3);
  Record old_a = a;
  old_a.version = 1;  // read from a version 1 log: the same record once written
  const std::vector<Record> merged = merge_records({{a, b}, {old_a, c, b}});
  REQUIRE(merged.size() == 3);
  CHECK(merged[0].result.timestamp == 1);
  CHECK(merged[1].result.timestamp == 2);
  CHECK(merged[2].result.timestamp == 3);
}

TEST_CASE("log tools: write_log replaces a log whole, even one it read", "[unit]") {
  testing::ScratchDir dir;
  const auto mm = op_dag("matmul", {{"M", 8}, {"N", 8}, {"K", 8}});
  const std::string path = dir.file("sub/log.json");
  write_log(path, {record_of(*mm, "m", kCpu, {1e-6}, 1), record_of(*mm, "m", kCpu, {2e-6}, 2)});
  LogContents first = read_log(path);
  REQUIRE(first.records.size() == 2);
  write_log(path, {first.records[1]});
  LogContents second = read_log(path);
  REQUIRE(second.records.size() == 1);
  testing::check_same_record(second.records[0], first.records[1]);
  CHECK(std::distance(std::filesystem::directory_iterator(dir.file("sub")), {}) == 1);  // no temporary left
  CHECK_THROWS_AS(write_log(dir.file("sub/log.json/x"), {}), SystemError);
}

}  // namespace
}  // namespace tunectl::log
