// The runoff that ends a tuning run (tune/runoff.h): each task's fastest
// programs timed again side by side, one record each flagged `runoff`,
// whose winner becomes the task's best for every reader of the log.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "backend/backend.h"
#include "log/log_file.h"
#include "search/candidate.h"
#include "schedule/state.h"
#include "tune/side_by_side.h"
#include "tune/tuner.h"
#include "tune_test_util.h"

using namespace tunectl;

namespace {

std::string program_of(const log::Record& r) { return log::program_key(r.task.workload_key, r.steps); }

}  // namespace

TEST_CASE("the runoff times each task's fastest programs again and its winner becomes the best", "[cpu][tune]") {
  tune_test::TempDir dir("runoff");
  const std::vector<tasks::Task> tasks = tune_test::tiny_tasks();
  tune::TuneOptions o = tune_test::fast_options(dir.file("runoff.log.json"));
  o.trials = 24;
  o.runoff_top = 3;
  const tune::TuneSummary first = tune::tune(tasks, o);
  REQUIRE(first.runoff.size() == tasks.size());
  CHECK(first.time.runoff_s > 0);

  const std::vector<log::Record> records = log::read_log(o.log_path).records;
  const std::string target = records.front().task.target;
  std::map<std::string, std::vector<const log::Record*>> measured, runoff;
  std::set<int64_t> stamps;
  for (const log::Record& r : records) {
    (r.result.runoff ? runoff : measured)[r.task.workload_key].push_back(&r);
    if (r.result.runoff) stamps.insert(r.result.timestamp);
  }
  CHECK(stamps.size() == 1);  // one runoff, one timestamp
  const std::map<std::string, log::Record> best = log::best_records(records, target);
  for (size_t t = 0; t < tasks.size(); ++t) {
    const std::string& key = tasks[t].workload_key;
    INFO(tasks[t].name);
    // The task's 3 fastest distinct programs by the search's times, again.
    std::vector<const log::Record*> valid = measured.at(key);
    std::erase_if(valid, [](const log::Record* r) { return !r->result.ok(); });
    std::stable_sort(valid.begin(), valid.end(), [](const log::Record* a, const log::Record* b) {
      return a->result.median_cost() < b->result.median_cost();
    });
    std::set<std::string> fastest;
    for (const log::Record* r : valid)
      if (fastest.size() < 3) fastest.insert(program_of(*r));
    std::set<std::string> timed;
    for (const log::Record* r : runoff.at(key)) timed.insert(program_of(*r));
    CHECK(timed == fastest);
    CHECK(runoff.at(key).size() == fastest.size());
    // Its winner is the best every reader takes, and the summary's.
    const tune::RunoffTask& r = first.runoff[t];
    CHECK(r.programs == static_cast<int>(fastest.size()));
    CHECK(r.before_s == valid.front()->result.median_cost());
    REQUIRE(best.count(key));
    CHECK(best.at(key).result.runoff);
    CHECK(best.at(key).result.median_cost() == r.after_s);
    CHECK(first.tasks[t].best_cost == r.after_s);
    for (const log::Record* other : runoff.at(key)) CHECK(other->result.median_cost() >= r.after_s);
  }

  SECTION("a resumed run counts no runoff record as a trial and ends with a runoff of its own") {
    o.trials = 8;
    const tune::TuneSummary second = tune::tune(tasks, o);
    CHECK(second.resumed_trials == 24);
    CHECK(second.new_trials == 8);
    const std::vector<log::Record> all = log::read_log(o.log_path).records;
    const std::map<std::string, log::Record> now = log::best_records(all, target);
    for (size_t t = 0; t < tasks.size(); ++t) {
      CHECK(now.at(tasks[t].workload_key).result.runoff);
      CHECK(second.tasks[t].best_cost == now.at(tasks[t].workload_key).result.median_cost());
    }
  }
}

TEST_CASE("programs side by side in rounds: every program's calls of every round, each checked first", "[cpu][tune]") {
  const tasks::Task task = tune_test::small_matmul();
  measure::MeasureOptions o;
  o.backend = backend::host_backend();
  o.cpu_calls = 4;
  o.flush_cache = false;
  tune::SideBySide side(task.dag, o, 1);
  search::Candidate c{schedule::replay(task.dag, {}), nullptr};
  search::lower_candidate(c, o.backend->target());
  REQUIRE(c.lowering->func);
  const size_t a = side.add(*c.lowering->func);
  const size_t b = side.add(*c.lowering->func);
  CHECK(side.check(a).empty());
  CHECK(side.check(b).empty());
  const std::vector<runtime::Timing> t = side.time_in_rounds({a, b}, 3);
  REQUIRE(t.size() == 2);
  CHECK(t[0].seconds_per_call.size() == 12);
  CHECK(t[1].seconds_per_call.size() == 12);
  side.release(b);
  CHECK(side.time({a}).front().seconds_per_call.size() == 4);
}
