// tune --records (transfer.h): the best record of a task from other logs is
// copied into the run's log unless the log has it or something faster; other
// targets, estimates and other tasks are left out; a tuning run then starts
// from the copied program. tune --retime: the fastest valid programs of each
// task are measured again, first, and nothing is copied.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "log/log_file.h"
#include "te/dag_json.h"
#include "tune/resume.h"
#include "tune/transfer.h"
#include "tune/tune_test_util.h"

namespace tunectl::tune {
namespace {

const char* const kTarget = "llvm -mcpu=znver4";

log::Record record_of(const tasks::Task& task, double cost, int64_t stamp, const std::string& target = kTarget,
                      std::vector<schedule::Step> steps = {}) {
  log::Record r;
  r.steps = std::move(steps);
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

// A distinct program of a matmul's initial state: its inner loop unrolled.
std::vector<schedule::Step> unrolled_loop(int loop) { return {schedule::AnnotationStep{0, loop, "unroll"}}; }

TEST_CASE("retime: the fastest valid programs of each task, distinct, fastest first", "[unit]") {
  tune_test::TempDir dir("retime");
  const std::vector<tasks::Task> tasks = tune_test::tiny_tasks();
  const tasks::Task other = tune_test::make_task("matmul", {{"M", 8}, {"N", 8}, {"K", 8}}, "matmul_8", 1);
  const std::string records = dir.file("other.json");
  log::Record failed = record_of(tasks[0], 1e-9, 5, kTarget, unrolled_loop(0));
  failed.result.error = log::MeasureError::WrongAnswer;
  failed.result.costs.clear();
  log::Record estimate = record_of(tasks[0], 1e-9, 6, kTarget, unrolled_loop(0));
  estimate.result.estimated = true;
  write(records, {record_of(tasks[0], 3e-3, 1, kTarget, unrolled_loop(1)), record_of(tasks[0], 2e-3, 2),
                  record_of(tasks[0], 4e-3, 3, kTarget, unrolled_loop(2)),
                  record_of(tasks[0], 2.5e-3, 4),  // the same program again, slower: merged logs
                  failed, estimate, record_of(other, 1e-3, 7),
                  record_of(tasks[1], 1e-3, 8, "llvm -mcpu=skylake")});

  const Retime r = programs_to_retime({records}, tasks, kTarget, 2);
  CHECK(r.files == 1);
  CHECK(r.records == 6);  // of this target, measured
  REQUIRE(r.programs.size() == 1);
  const std::vector<std::vector<schedule::Step>>& programs = r.programs.at(tasks[0].workload_key);
  REQUIRE(programs.size() == 2);
  CHECK(programs[0].empty());
  CHECK(log::program_key("", programs[1]) == log::program_key("", unrolled_loop(1)));
  CHECK(programs_to_retime({records}, tasks, kTarget, 8).programs.at(tasks[0].workload_key).size() == 3);
  CHECK(!std::filesystem::exists(dir.file("run.json")));  // nothing copied anywhere
  CHECK_THROWS_WITH(programs_to_retime({records}, tasks, kTarget, 0), Catch::Contains("--retime-top"));
}

TEST_CASE("retime: a run measures the programs first, with times of its own, unless its log has them", "[cpu][tune]") {
  tune_test::TempDir dir("retime_run");
  const std::vector<tasks::Task> tasks = tune_test::tiny_tasks();
  TuneOptions o = tune_test::fast_options(dir.file("there.json"));
  o.trials = 24;
  tune::tune(tasks, o);
  const Retime r = programs_to_retime({o.log_path}, tasks, kTarget, 3);
  REQUIRE(r.programs.size() == 2);

  o.log_path = dir.file("here.json");
  o.trials = 8;  // a round for each task
  o.measures_per_round = 4;
  o.retime = r.programs;
  const TuneSummary here = tune::tune(tasks, o);
  CHECK(here.new_trials == 8);
  const std::vector<log::Record> records = log::read_log(o.log_path).records;
  for (const tasks::Task& t : tasks) {
    INFO(t.name);
    // The task's one round here (results come back in no fixed order) holds
    // every program to retime.
    std::set<std::string> round;
    for (const log::Record& rec : records)
      if (rec.task.workload_key == t.workload_key) round.insert(log::program_key("", rec.steps));
    CHECK(round.size() == 4);
    for (const auto& steps : r.programs.at(t.workload_key)) CHECK(round.count(log::program_key("", steps)) == 1);
  }
  // Resumed, the log has them: nothing is measured twice.
  o.trials = 8;
  tune::tune(tasks, o);
  std::set<std::string> keys;
  for (const log::Record& rec : log::read_log(o.log_path).records)
    CHECK(keys.insert(log::program_key(rec.task.workload_key, rec.steps)).second);
}

}  // namespace
}  // namespace tunectl::tune
