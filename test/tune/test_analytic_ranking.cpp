// tune::rank_measured_programs (tune/analytic_ranking.h) on a committed
// log's records whose times are made to agree with the analytic model, to
// disagree with it, or to be estimates.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include "backend/backend.h"
#include "log/log_file.h"
#include "search/candidate.h"
#include "search/construct.h"
#include "te/dag_json.h"
#include "tune/analytic_ranking.h"

using namespace tunectl;

namespace {

// The measured records of the small_cnn log's task with the most of them,
// each with its analytic estimate.
std::vector<std::pair<log::Record, double>> busiest_task() {
  const log::LogContents log =
      log::read_log(std::string(TUNECTL_SOURCE_DIR) + "/tuning_logs/small_cnn.llvm.json");
  std::map<std::string, std::vector<const log::Record*>> by_task;
  for (const log::Record& r : log.records)
    if (r.result.ok() && !r.result.estimated) by_task[r.task.workload_key].push_back(&r);
  const auto busiest = std::max_element(by_task.begin(), by_task.end(),
                                        [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
  const log::TaskInfo& task = busiest->second[0]->task;
  auto dag = std::make_shared<const te::ComputeDAG>(te::dag_from_json(task.dag));
  const target::Target target = backend::resolve_target(task.target);
  std::vector<std::pair<log::Record, double>> out;
  for (const log::Record* r : busiest->second) {
    search::Candidate c{schedule::replay(dag, r->steps), nullptr};
    const search::Lowering& lowering = search::lower_candidate(c, target);
    if (lowering.func != nullptr) out.emplace_back(*r, search::analytic_cost(lowering, target));
  }
  return out;
}

}  // namespace

TEST_CASE("analytic ranking: times that follow the model rank perfectly, reversed ones worst", "[cpu]") {
  std::vector<std::pair<log::Record, double>> programs = busiest_task();
  REQUIRE(programs.size() >= 20);
  // Distinct estimates, so that the reversed order is a strict one.
  std::sort(programs.begin(), programs.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  programs.erase(std::unique(programs.begin(), programs.end(),
                             [](const auto& a, const auto& b) { return a.second == b.second; }),
                 programs.end());
  REQUIRE(programs.size() >= 20);
  const int n = static_cast<int>(programs.size());
  const double slowest = programs.back().second, fastest = programs.front().second;

  std::vector<log::Record> agreeing, reversed;
  for (auto& [record, estimate] : programs) {
    record.result.costs = {estimate};
    agreeing.push_back(record);
    record.result.costs = {1 / estimate};
    reversed.push_back(record);
  }
  const std::vector<tune::TaskRanking> good = tune::rank_measured_programs(agreeing, n);
  REQUIRE(good.size() == 1);
  CHECK(good[0].programs == n);
  CHECK(good[0].best_seconds == Approx(fastest));
  CHECK(good[0].spearman == Approx(1.0));
  CHECK(good[0].top1_regret == Approx(1.0));
  CHECK(good[0].top5_regret == Approx(1.0));

  const std::vector<tune::TaskRanking> bad = tune::rank_measured_programs(reversed, n);
  REQUIRE(bad.size() == 1);
  CHECK(bad[0].spearman == Approx(-1.0));
  // The model's first pick is the slowest program: (1 / fastest) / (1 / slowest).
  CHECK(bad[0].top1_regret == Approx(slowest / fastest));
  CHECK(bad[0].top5_regret < bad[0].top1_regret);

  // Fewer programs than asked for, or only estimates: no task.
  CHECK(tune::rank_measured_programs(agreeing, n + 1).empty());
  for (log::Record& r : agreeing) r.result.estimated = true;
  CHECK(tune::rank_measured_programs(agreeing, 2).empty());
}

TEST_CASE("analytic ranking: the programs timed again here, as a log records none of them", "[cpu]") {
  std::vector<std::pair<log::Record, double>> programs = busiest_task();
  programs.resize(6);
  // Times no program could take: retimed, every one is replaced by a real one.
  std::vector<log::Record> records;
  for (auto& [record, estimate] : programs) {
    record.result.costs = {1e6};
    records.push_back(record);
  }
  const std::vector<tune::TaskRanking> as_logged = tune::rank_measured_programs(records, 6);
  REQUIRE(as_logged.size() == 1);
  CHECK(as_logged[0].best_seconds == 1e6);
  CHECK(as_logged[0].top1_regret == 1.0);  // every program "took" the same time
  const std::vector<log::Record> timed_again = tune::retime_records(records, 6, tune::Retime{.calls = 2, .batch = 2});
  REQUIRE(timed_again.size() == 6);
  for (const log::Record& r : timed_again) CHECK(r.result.costs.size() == 2);
  const std::vector<tune::TaskRanking> retimed = tune::rank_measured_programs(timed_again, 6);
  REQUIRE(retimed.size() == 1);
  CHECK(retimed[0].programs == 6);
  CHECK(retimed[0].best_seconds > 0);
  CHECK(retimed[0].best_seconds < 0.1);  // small_cnn's tasks take microseconds
  CHECK(retimed[0].top1_regret >= 1.0);
  CHECK(retimed[0].top1_regret < 1e3);  // real times, a few in a row of which are alike
  CHECK(retimed[0].top5_regret <= retimed[0].top1_regret);
}

