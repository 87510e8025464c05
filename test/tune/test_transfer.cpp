// tune --records (transfer.h): the best record of a task from other logs is
// copied into the run's log unless the log has it or something faster; other
// targets, estimates and other tasks are left out; a tuning run then starts
// from the copied program.
#include <catch2/catch.hpp>

#include "log/log_file.h"
#include "te/dag_json.h"
#include "tune/resume.h"
#include "tune/transfer.h"
#include "tune/tune_test_util.h"

namespace tunectl::tune {
namespace {

const char* const kTarget = "llvm -mcpu=znver4";

log::Record record_of(const tasks::Task& task, double cost, int64_t stamp, const std::string& target = kTarget) {
  log::Record r;
  r.task = {task.workload_key, task.name, target, te::dag_to_json(*task.dag)};
  r.result.costs = {cost};
  r.result.timestamp = stamp;
  return r;
}

void write(const std::string& path, const std::vector<log::Record>& records) {
  log::LogWriter w(path);
  for (const log::Record& r : records) w.append(r);
}

TEST_CASE("transfer: the best program of each task from other logs starts the run", "[unit]") {
  tune_test::TempDir dir("transfer");
  const std::vector<tasks::Task> tasks = tune_test::tiny_tasks();
  const tasks::Task other = tune_test::make_task("matmul", {{"M", 8}, {"N", 8}, {"K", 8}}, "matmul_8", 1);
  const std::string records = (dir.path / "other.json").string();
  log::Record estimate = record_of(tasks[1], 1e-9, 6);
  estimate.result.estimated = true;
  write(records, {record_of(tasks[0], 3e-3, 1), record_of(tasks[0], 2e-3, 2), record_of(tasks[1], 5e-3, 3),
                  record_of(other, 1e-3, 4), record_of(tasks[1], 1e-3, 5, "llvm -mcpu=skylake"), estimate});
  const std::string log_path = (dir.path / "run.json").string();

  SECTION("an empty log receives the best of each task") {
    const Transfer t = transfer_records({records}, tasks, kTarget, log_path);
    CHECK(t.files == 1);
    CHECK(t.records == 4);  // of this target, measured
    CHECK(t.tasks == std::vector<std::string>{"matmul_16", "relu_32"});
    REQUIRE(t.warnings.size() == 1);
    CHECK_THAT(t.warnings[0], Catch::Contains("1 record of 'llvm -mcpu=skylake'"));
    const log::LogContents log = log::read_log(log_path);
    REQUIRE(log.records.size() == 2);
    CHECK(log.records[0].result.timestamp == 2);
    CHECK(log.records[1].result.timestamp == 3);
    // A second transfer finds the programs already there.
    CHECK(transfer_records({records}, tasks, kTarget, log_path).tasks.empty());
    CHECK(log::read_log(log_path).records.size() == 2);
    // The resumed run starts from them.
    const ResumeState resumed = resume_from_log(log::read_log(log_path).records, tasks, 8, target::Target{});
    CHECK(resumed.tasks[0].best_cost == 2e-3);
    CHECK(resumed.tasks[1].best_cost == 5e-3);
  }
  SECTION("a log with a faster program of a task keeps it") {
    write(log_path, {record_of(tasks[0], 1e-3, 10)});
    const Transfer t = transfer_records({records}, tasks, kTarget, log_path);
    CHECK(t.tasks == std::vector<std::string>{"relu_32"});
    CHECK(log::read_log(log_path).records.size() == 2);
  }
  SECTION("a folder of logs, and a missing one") {
    CHECK(transfer_records({dir.path.string()}, tasks, kTarget, log_path).files == 1);
    CHECK_THROWS_WITH(transfer_records({(dir.path / "none.json").string()}, tasks, kTarget, log_path),
                      Catch::Contains("no tuning log or folder"));
  }
}

}  // namespace
}  // namespace tunectl::tune
