#include "tune/runoff.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iterator>
#include <map>
#include <set>

#include "ir/error.h"
#include "search/candidate.h"
#include "schedule/state.h"
#include "tune/side_by_side.h"

namespace tunectl::tune {

namespace {

// Rounds of the runoff's timing (SideBySide::time_in_rounds).
constexpr int kRounds = 3;

// The task's competing valid, measured records, fastest first, one per
// program.
std::vector<const log::Record*> fastest_programs(std::vector<const log::Record*> competing, int top) {
  std::erase_if(competing, [](const log::Record* r) { return !r->result.ok() || r->result.estimated; });
  std::stable_sort(competing.begin(), competing.end(), [](const log::Record* a, const log::Record* b) {
    return a->result.median_cost() < b->result.median_cost();
  });
  std::vector<const log::Record*> out;
  std::set<std::string> programs;
  for (const log::Record* r : competing) {
    if (static_cast<int>(out.size()) == top) break;
    if (programs.insert(log::program_key(r->task.workload_key, r->steps)).second) out.push_back(r);
  }
  return out;
}

RunoffTask runoff_task(const tasks::Task& task, const std::vector<const log::Record*>& candidates,
                       const measure::MeasureOptions& options, int64_t timestamp, log::LogWriter& writer,
                       std::vector<log::Record>& appended) {
  RunoffTask out;
  out.before_s = candidates.front()->result.median_cost();
  SideBySide side(task.dag, options, options.reference_seed);
  std::vector<size_t> which;
  std::vector<const log::Record*> timed;
  std::vector<double> build_s;
  for (const log::Record* r : candidates) {
    const auto start = std::chrono::steady_clock::now();
    try {
      search::Candidate c{schedule::replay(task.dag, r->steps), nullptr};
      search::lower_candidate(c, options.backend->target());
      user_check(c.lowering->func != nullptr, "it no longer lowers");
      const size_t i = side.add(*c.lowering->func);
      const std::string wrong = side.check(i);
      user_check(wrong.empty(), "its output differs from the reference: ", wrong);
      which.push_back(i);
      timed.push_back(r);
      build_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    } catch (const std::exception& e) {
      if (out.problem.empty()) out.problem = std::string("a program left out: ") + e.what();
    }
  }
  out.programs = static_cast<int>(timed.size());
  if (timed.empty()) return out;
  const auto start = std::chrono::steady_clock::now();
  const std::vector<runtime::Timing> times = side.time_in_rounds(which, kRounds);
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  size_t winner = 0;
  for (size_t i = 0; i < timed.size(); ++i) {
    log::Record r = *timed[i];
    r.result.costs = times[i].seconds_per_call;
    r.result.build_seconds = build_s[i];
    r.result.run_seconds = run_s / static_cast<double>(timed.size());
    r.result.timestamp = timestamp;
    r.result.runoff = true;
    writer.append(r);
    appended.push_back(std::move(r));
    if (times[i].median() < times[winner].median()) winner = i;
  }
  out.after_s = times[winner].median();
  out.changed = timed[winner] != candidates.front();
  return out;
}

}  // namespace

std::vector<RunoffTask> runoff(const std::vector<tasks::Task>& tasks, std::vector<log::Record>& records,
                               int top, const measure::MeasureOptions& options, log::LogWriter& writer,
                               const std::function<bool(size_t task)>& next) {
  user_check(!options.backend->builds_device_code(), "tune: the runoff times programs on the host CPU only");
  user_check(top >= 1, "tune: a runoff needs at least one program per task, got ", top);
  const std::map<std::string, std::vector<const log::Record*>> competing =
      log::competing_records(records, options.backend->target().str());
  // One timestamp for the whole runoff (a task's records, appended one after
  // another, are what marks its runoff in the log: log::competing_records).
  const int64_t timestamp = static_cast<int64_t>(std::time(nullptr));
  std::vector<RunoffTask> out(tasks.size());
  std::vector<log::Record> appended;  // apart until the end: `competing` points into `records`
  for (size_t t = 0; t < tasks.size(); ++t) {
    if (next && !next(t)) break;
    auto it = competing.find(tasks[t].workload_key);
    if (it == competing.end()) continue;
    const std::vector<const log::Record*> candidates = fastest_programs(it->second, top);
    if (!candidates.empty()) out[t] = runoff_task(tasks[t], candidates, options, timestamp, writer, appended);
  }
  records.insert(records.end(), std::make_move_iterator(appended.begin()), std::make_move_iterator(appended.end()));
  return out;
}

}  // namespace tunectl::tune
