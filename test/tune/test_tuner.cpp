// The tuning loop end to end on a tiny task set: records reach the log,
// resuming never measures a program twice, an interrupt keeps every
// measurement, and candidates that crash or hang become error records while
// tuning goes on.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "backend/backend.h"
#include "log/log_file.h"
#include "measure/fault_injection.h"
#include "search/construct.h"
#include "tune/construct_tasks.h"
#include "tune/tuner.h"
#include "tune_test_util.h"

using namespace tunectl;

namespace {

// Program keys of a log, asserting there are no duplicates.
std::set<std::string> unique_program_keys(const std::vector<log::Record>& records) {
  std::set<std::string> keys;
  for (const log::Record& r : records) {
    INFO("duplicate program of " << r.task.name);
    CHECK(keys.insert(log::program_key(r.task.workload_key, r.steps)).second);
  }
  return keys;
}

int total_trials(const tune::TuneSummary& s) {
  int n = 0;
  for (const tune::TaskSummary& t : s.tasks) n += t.trials;
  return n;
}

}  // namespace

TEST_CASE("tuning logs every measurement and a resumed run measures only new programs", "[cpu][tune]") {
  tune_test::TempDir dir("resume");
  const std::vector<tasks::Task> tasks = tune_test::tiny_tasks();
  tune::TuneOptions o = tune_test::fast_options(dir.file("tiny.log.json"));
  o.trials = 16;

  tune::TuneSummary first = tune::tune(tasks, o);
  CHECK_FALSE(first.interrupted);
  CHECK(first.stop_reason == "trial budget");
  CHECK(first.new_trials == 16);
  CHECK(first.resumed_trials == 0);
  CHECK(first.constructed_tasks == 2);  // the search of each starts from its constructed programs
  CHECK(total_trials(first) == 16);
  REQUIRE(first.tasks.size() == 2);
  for (const tune::TaskSummary& t : first.tasks) {
    INFO(t.name);
    CHECK(t.trials > 0);  // warm-up gives every task a round
    CHECK(t.errors <= t.trials);
    CHECK(t.rounds >= 1);
    CHECK(std::isfinite(t.best_cost));
    CHECK(t.best_cost > 0);
    CHECK_FALSE(t.status.empty());
  }
  CHECK(std::isfinite(first.estimated_latency()));
  CHECK(first.wall_seconds > 0);

  std::vector<log::Record> records = log::read_log(o.log_path).records;
  REQUIRE(records.size() == 16);
  std::set<std::string> before = unique_program_keys(records);
  for (const log::Record& r : records) {
    CHECK(!r.task.target.empty());
    CHECK(r.task.dag.is_object());
  }

  o.trials = 8;
  tune::TuneSummary second = tune::tune(tasks, o);
  CHECK(second.resumed_trials == 16);
  CHECK(second.new_trials == 8);
  CHECK(second.constructed_tasks == 2);  // their constructed best programs are in the log: not measured again
  CHECK(total_trials(second) == 24);
  for (size_t t = 0; t < 2; ++t) CHECK(second.tasks[t].best_cost <= first.tasks[t].best_cost);

  records = log::read_log(o.log_path).records;
  REQUIRE(records.size() == 24);
  std::set<std::string> after = unique_program_keys(records);
  CHECK(after.size() == 24);
  for (const std::string& k : before) CHECK(after.count(k) == 1);
}

TEST_CASE("a resumed task measures its constructed program first where the log lacks it", "[cpu][tune]") {
  tune_test::TempDir dir("resume_construct");
  const std::vector<tasks::Task> tasks = tune_test::tiny_tasks();
  tune::TuneOptions o = tune_test::fast_options(dir.file("tiny.log.json"));
  o.trials = 16;
  tune::tune(tasks, o);
  // The matmul's constructed best as the tuner builds it (its seed, the
  // seeds' walk), found in the log and then dropped from it, as from a log
  // written before a sketch rule that constructs it.
  const auto backend = backend::host_backend();
  std::optional<search::Construction> c =
      search::construct_program(tasks[0].dag, search::for_target(o.search, backend->target()),
                                tune::construction_seed(o.seed, tasks[0].workload_key),
                                [&](const lower::LoweredFunc& f) { return tune::compiler_accepts(*backend, f); },
                                {.draws_per_sketch = 24, .walks = 3});
  REQUIRE(c);
  const std::string constructed = log::program_key(tasks[0].workload_key, c->best.state.history);
  std::vector<log::Record> records = log::read_log(o.log_path).records;
  const size_t before = records.size();
  std::erase_if(records, [&](const log::Record& r) {
    return log::program_key(r.task.workload_key, r.steps) == constructed;
  });
  REQUIRE(records.size() == before - 1);
  std::filesystem::remove(o.log_path);
  {
    log::LogWriter writer(o.log_path);
    for (const log::Record& r : records) writer.append(r);
  }
  o.trials = 8;
  tune::TuneSummary resumed = tune::tune(tasks, o);
  CHECK(resumed.constructed_tasks == 2);
  records = log::read_log(o.log_path).records;
  REQUIRE(records.size() == before - 1 + 8);
  // Measured again, once, first of all.
  CHECK(log::program_key(records[before - 1].task.workload_key, records[before - 1].steps) == constructed);
  unique_program_keys(records);
}

TEST_CASE("stop_when ends a run with its reason once it sees the best costs it waits for", "[cpu][tune]") {
  tune_test::TempDir dir("stop_when");
  const std::vector<tasks::Task> tasks = tune_test::tiny_tasks();
  tune::TuneOptions o = tune_test::fast_options(dir.file("stop.log.json"));
  o.trials = 64;
  int asked = 0;
  // Stops once the relu (the second task, warmed up second) has a program.
  o.stop_when = [&](const std::map<std::string, double>& best) -> std::string {
    ++asked;
    REQUIRE(best.size() == 2);
    CHECK(best.count(tasks[0].workload_key) == 1);
    return std::isfinite(best.at(tasks[1].workload_key)) ? "the relu has a program" : "";
  };
  tune::TuneSummary s = tune::tune(tasks, o);
  CHECK(s.stop_reason == "the relu has a program");
  CHECK_FALSE(s.interrupted);
  CHECK(asked > 1);
  REQUIRE(s.tasks.size() == 2);
  CHECK(std::isfinite(s.tasks[1].best_cost));
  // The matmul's warm-up round and the relu's first measurements, no more:
  // the answer is asked after each measurement.
  CHECK(s.new_trials > 8);
  CHECK(s.new_trials < 16);
  CHECK(static_cast<int>(log::read_log(o.log_path).records.size()) == s.new_trials);
}

TEST_CASE("an interrupt ends tuning after the candidates in flight with every record logged", "[cpu][tune]") {
  tune_test::TempDir dir("interrupt");
  tune::TuneOptions o = tune_test::fast_options(dir.file("interrupt.log.json"));
  o.trials = 64;
  // The second candidate to run tells the tuner (this process) to stop, as
  // Ctrl-C would, while the batch is being measured. Once per run child:
  // the kernel is called again for timing.
  const pid_t tuner = getpid();
  o.measure.run_override = [tuner](size_t index, const runtime::Kernel& kernel, void* const* args) {
    static bool sent = false;  // each forked child starts from the parent's false
    if (index == 1 && !sent) {
      sent = true;
      kill(tuner, SIGINT);
    }
    kernel.run(args);
  };
  tune::TuneSummary s = tune::tune(tune_test::tiny_tasks(), o);
  CHECK(s.interrupted);
  CHECK(s.stop_reason == "interrupted");
  CHECK(s.new_trials > 0);
  CHECK(s.new_trials < o.trials);
  const std::vector<log::Record> records = log::read_log(o.log_path).records;
  CHECK(static_cast<int>(records.size()) == s.new_trials);
  CHECK(records.size() == 2);  // the run in flight ends, nothing more starts
  unique_program_keys(records);
  for (const log::Record& r : records) CHECK(r.result.ok());  // the signal harmed no measurement

  // The handler is gone again: a later tune is not born interrupted.
  o.measure.run_override = nullptr;
  o.trials = 4;
  tune::TuneSummary next = tune::tune(tune_test::tiny_tasks(), o);
  CHECK_FALSE(next.interrupted);
  CHECK(next.new_trials == 4);
}

TEST_CASE("crashing, hanging and scribbling candidates become error records and tuning finishes", "[cpu][tune]") {
  tune_test::TempDir dir("faults");
  tune::TuneOptions o = tune_test::fast_options(dir.file("faults.log.json"));
  o.trials = 8;
  o.measure.run_timeout_s = 0.5;
  // The first three candidates of every four in a batch are faulty.
  o.measure.run_override = [](size_t index, const runtime::Kernel& kernel, void* const* args) {
    constexpr test::Fault kFaults[] = {test::Fault::Segfault, test::Fault::Hang, test::Fault::OutOfBounds,
                                       test::Fault::None};
    test::run_with_fault(kFaults[index % 4], kernel, args, 2, 16 * 24 * sizeof(float));
  };
  tune::TuneSummary s = tune::tune({tune_test::small_matmul()}, o);
  CHECK_FALSE(s.interrupted);
  CHECK(s.new_trials == 8);
  const std::vector<log::Record> records = log::read_log(o.log_path).records;
  REQUIRE(records.size() == 8);
  for (size_t i = 0; i < records.size(); ++i) {
    const log::MeasureResult& r = records[i].result;
    INFO(i << ": " << log::to_string(r.error) << ": " << r.error_message);
    switch (i % 4) {  // a batch runs, and is logged, in input order
      case 0:
        CHECK(r.error == log::MeasureError::RuntimeError);
        break;
      case 1:
        CHECK(r.error == log::MeasureError::RunTimeout);
        break;
      case 2:
        CHECK((r.error == log::MeasureError::RuntimeError || r.error == log::MeasureError::WrongAnswer));
        break;
      default:
        CHECK(r.ok());
    }
  }
  REQUIRE(s.tasks.size() == 1);
  CHECK(s.tasks[0].errors == 6);
  CHECK(std::isfinite(s.tasks[0].best_cost));
  CHECK(s.bugs.empty());
}

TEST_CASE("an internal error in a worker is a bug in the summary, with the command that reproduces it", "[cpu][tune]") {
  tune_test::TempDir dir("bugs");
  tune::TuneOptions o = tune_test::fast_options(dir.file("bugs.log.json"));
  o.trials = 8;
  // The second candidate of every four in a batch meets an internal error.
  o.measure.run_override = [](size_t index, const runtime::Kernel& kernel, void* const* args) {
    test::run_with_fault(index % 4 == 1 ? test::Fault::InternalError : test::Fault::None, kernel, args, 2,
                         16 * 24 * sizeof(float));
  };
  tune::TuneSummary s = tune::tune({tune_test::small_matmul()}, o);
  CHECK(s.new_trials == 8);
  const log::LogContents log = log::read_log(o.log_path);
  REQUIRE(s.bugs.size() == 2);
  for (const tune::Bug& bug : s.bugs) {
    CHECK(bug.task == s.tasks[0].name);
    CHECK(bug.message == "internal error: planted internal error");
    // The line it names holds the record of that candidate.
    const size_t i = static_cast<size_t>(bug.log_line - 1);
    REQUIRE(i < log.records.size());
    CHECK(log.lines[i] == bug.log_line);
    CHECK(log.records[i].result.error == log::MeasureError::InternalError);
  }
  CHECK(s.bugs[0].log_line == 2);
  const std::string table = tune::summary_table(s);
  INFO(table);
  CHECK(table.find("2 candidate(s) hit an internal error in tunectl") != std::string::npos);
  CHECK(table.find("reproduce: tunectl compile-op --log " + o.log_path + " --line 2 --check") != std::string::npos);
}
