// The closing report of a tuning run (tuner.h summary_table): per task its
// weight, measurements, errors, best latency and throughput, and its share of
// the estimated end-to-end latency sum(weight x best); then where the wall
// time went.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <utility>

#include "tune/tuner.h"

namespace tunectl::tune {

double TuneSummary::estimated_latency() const {
  double total = 0;
  for (const TaskSummary& t : tasks) {
    if (!std::isfinite(t.best_cost)) return std::numeric_limits<double>::infinity();
    total += t.weight * t.best_cost;
  }
  return total;
}

namespace {

// "wall time: search 12.0 s (10%), lowering ..." over the parts of TimeSplit.
std::string time_split_line(const TimeSplit& t, double wall_s) {
  const std::pair<const char*, double> parts[] = {
      {"search", t.search_s},     {"lowering", t.lowering_s}, {"compiling", t.compiling_s}, {"checking", t.checking_s},
      {"timing", t.timing_s},     {"training", t.training_s}, {"runoff", t.runoff_s},   {"other", t.other_s}};
  std::string out = "wall time:";
  char buf[96];
  for (const auto& [name, s] : parts) {
    std::snprintf(buf, sizeof(buf), " %s %.1f s (%.0f%%)%s", name, s, wall_s > 0 ? s / wall_s * 100 : 0.0,
                  name == parts[std::size(parts) - 1].first ? "" : ",");
    out += buf;
  }
  return out + "\n";
}

// "runoff: 4 programs at most of each of 30 tasks timed side by side
// (41.2 s): a new best for 7 of them; sum of weight x best 36.10 ms by the
// runoff's times, 35.20 ms by the search's".
std::string runoff_line(const TuneSummary& summary) {
  int tasks = 0, changed = 0, most = 0;
  double before = 0, after = 0;
  for (size_t i = 0; i < summary.runoff.size(); ++i) {
    const RunoffTask& r = summary.runoff[i];
    if (r.programs == 0) continue;
    ++tasks;
    changed += r.changed ? 1 : 0;
    most = std::max(most, r.programs);
    before += summary.tasks[i].weight * r.before_s;
    after += summary.tasks[i].weight * r.after_s;
  }
  if (tasks == 0) return "";
  char buf[320];
  std::snprintf(buf, sizeof(buf),
                "runoff: up to %d programs of each of %d tasks timed side by side (%.1f s): a new best for %d of them; "
                "their sum of weight x best %.4f ms by the runoff's times, %.4f ms by the search's\n",
                most, tasks, summary.time.runoff_s, changed, after * 1e3, before * 1e3);
  return buf;
}

// Why each task without a valid program has none: its first failure.
std::string failed_tasks_text(const TuneSummary& summary) {
  std::string out;
  for (const TaskSummary& t : summary.tasks) {
    if (std::isfinite(t.best_cost) || t.first_error.empty()) continue;
    out += "  " + t.name + ": every measurement failed; the first: " + t.first_error + "\n";
  }
  return out.empty() ? "" : "tasks without a valid program:\n" + out;
}

// The bugs met, each with its reproduction (at most kShown of them).
std::string bugs_text(const TuneSummary& summary) {
  constexpr size_t kShown = 5;
  if (summary.bugs.empty()) return "";
  std::string out = std::to_string(summary.bugs.size()) +
                    " candidate(s) hit an internal error in tunectl: a bug, please report it with these lines\n";
  for (size_t i = 0; i < std::min(kShown, summary.bugs.size()); ++i) {
    const Bug& b = summary.bugs[i];
    out += "  " + b.task + ", log line " + std::to_string(b.log_line) + ": " + b.message + "\n";
    out += "    reproduce: tunectl compile-op --log " + summary.log_path + " --line " + std::to_string(b.log_line) +
           " --check\n";
  }
  if (summary.bugs.size() > kShown) out += "  ... and " + std::to_string(summary.bugs.size() - kShown) + " more\n";
  return out;
}

}  // namespace

std::string summary_table(const TuneSummary& summary) {
  size_t width = 4;
  for (const TaskSummary& t : summary.tasks) width = std::max(width, t.name.size());
  const int w = static_cast<int>(width);
  const double latency = summary.estimated_latency();
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof(buf), "%-4s %-*s %6s %7s %7s %10s %9s %7s  %s\n", "#", w, "name", "weight", "trials",
                "errors", summary.estimated ? "est. ms" : "best ms", "GFLOP/s", "share", "status");
  out += buf;
  int trials = 0;
  int errors = 0;
  for (size_t i = 0; i < summary.tasks.size(); ++i) {
    const TaskSummary& t = summary.tasks[i];
    trials += t.trials;
    errors += t.errors;
    const bool valid = std::isfinite(t.best_cost);
    char best[32] = "-";
    char gflops[32] = "-";
    char share[32] = "-";
    if (valid) {
      std::snprintf(best, sizeof(best), "%.4f", t.best_cost * 1e3);
      if (t.best_cost > 0) std::snprintf(gflops, sizeof(gflops), "%.2f", t.flops / t.best_cost / 1e9);
      if (std::isfinite(latency) && latency > 0) {
        std::snprintf(share, sizeof(share), "%.1f%%", t.weight * t.best_cost / latency * 100);
      }
    }
    std::snprintf(buf, sizeof(buf), "%-4zu %-*s %6d %7d %7d %10s %9s %7s  %s\n", i, w, t.name.c_str(), t.weight,
                  t.trials, t.errors, best, gflops, share, t.status.c_str());
    out += buf;
  }
  char total_ms[32] = "-";
  if (std::isfinite(latency)) std::snprintf(total_ms, sizeof(total_ms), "%.4f", latency * 1e3);
  std::snprintf(buf, sizeof(buf), "%-4s %-*s %6s %7d %7d %10s %9s %7s  %s\n", "", w, "total", "", trials, errors,
                total_ms, "", std::isfinite(latency) ? "100%" : "-", "");
  out += buf;
  std::snprintf(buf, sizeof(buf),
                "%d new measurements, %d resumed from the log; stopped after %.1f s (%s); estimated latency %s ms "
                "(sum of weight x best)\n",
                summary.new_trials, summary.resumed_trials, summary.wall_seconds, summary.stop_reason.c_str(),
                total_ms);
  out += buf;
  if (summary.constructed_tasks > 0) {
    std::snprintf(buf, sizeof(buf),
                  "the search of %d task%s started from constructed programs (a resumed one's beside its measured "
                  "ones)\n",
                  summary.constructed_tasks, summary.constructed_tasks == 1 ? "" : "s");
    out += buf;
  }
  if (summary.estimated)
    out += "no program was timed: the costs are the analytic model's estimates (construction), the records are "
           "marked estimated\n";
  out += runoff_line(summary);
  out += time_split_line(summary.time, summary.wall_seconds);
  out += failed_tasks_text(summary);
  out += bugs_text(summary);
  return out;
}

}  // namespace tunectl::tune
