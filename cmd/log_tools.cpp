// `tunectl log show|best|merge|rank`: the tools for the one artefact users
// keep. show prints a table per target (trials, errors, best, GFLOP/s, first
// and last measurement of every task); rank, how well the analytic model
// orders each task's measured programs; best writes the best record of each task
// and target (the file to commit or ship); merge writes several logs as one,
// each record once. Every LOG may be a file or a folder of logs; a truncated
// last line is skipped with a warning, a corrupt line or a newer format
// version is an error naming file and line (nothing is written then), and
// records of version 1 are written upgraded.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "cmd/subcommands.h"
#include "ir/error.h"
#include "log/log_file.h"
#include "log/log_lock.h"
#include "log/log_tools.h"
#include "tune/analytic_ranking.h"

namespace tunectl::cmd {

namespace {

struct LogToolOptions {
  std::vector<std::string> logs;
  std::string output;
  int min_programs = 20;  // rank
  bool retime = false;    // rank: time every program again here
  int calls = 10;         // rank --retime: timed calls of each
};

// The records of each log (a folder's files in name order, one entry each).
std::vector<std::vector<log::Record>> read_logs(const std::vector<std::string>& paths) {
  std::vector<std::vector<log::Record>> out;
  int upgraded = 0;
  for (const std::string& path : paths) {
    for (const std::string& file : log::log_files(path)) {
      log::LogContents contents = log::read_log(file);
      for (const std::string& w : contents.warnings) spdlog::warn("{}", w);
      for (const log::Record& r : contents.records) upgraded += r.version < log::kLogVersion ? 1 : 0;
      out.push_back(std::move(contents.records));
    }
  }
  if (upgraded > 0)
    spdlog::info("{} record(s) of an older format version read (written as version {})", upgraded, log::kLogVersion);
  return out;
}

std::vector<log::Record> all_records(const std::vector<std::string>& paths) {
  std::vector<log::Record> all;
  for (auto& records : read_logs(paths)) all.insert(all.end(), records.begin(), records.end());
  return all;
}

std::string utc_time(int64_t seconds) {
  if (seconds <= 0) return "-";
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", &tm);
  return text;
}

void show(const LogToolOptions& o) {
  const std::vector<log::Record> records = all_records(o.logs);
  user_check(!records.empty(), "log show: no records in ", o.logs.front(), o.logs.size() > 1 ? " and the rest" : "");
  std::map<std::string, std::vector<log::TaskLogSummary>> by_target;
  for (log::TaskLogSummary& s : log::summarize_records(records)) by_target[s.target].push_back(std::move(s));
  for (const auto& [target, tasks] : by_target) {
    size_t width = 4;
    for (const auto& t : tasks) width = std::max(width, t.name.size());
    const int w = static_cast<int>(width);
    int trials = 0, errors = 0;
    std::map<std::string, int> kinds;
    std::printf("target '%s': %zu tasks\n", target.c_str(), tasks.size());
    std::printf("%-4s %-*s %-16s %7s %7s %10s %9s  %-16s  %-16s\n", "#", w, "task", "workload key", "trials", "errors",
                "best ms", "GFLOP/s", "first (UTC)", "last (UTC)");
    for (size_t i = 0; i < tasks.size(); ++i) {
      const log::TaskLogSummary& t = tasks[i];
      char best[32] = "-", gflops[32] = "-";
      if (std::isfinite(t.best_cost)) {
        // "~": the best is the analytic model's estimate, not a measurement.
        std::snprintf(best, sizeof best, "%s%.4f", t.best_estimated ? "~" : "", t.best_cost * 1e3);
        if (t.best_cost > 0) std::snprintf(gflops, sizeof gflops, "%.2f", t.flops / t.best_cost / 1e9);
      }
      std::printf("%-4zu %-*s %-16s %7d %7d %10s %9s  %-16s  %-16s\n", i, w, t.name.c_str(), t.workload_key.c_str(),
                  t.trials, t.errors, best, gflops, utc_time(t.first_time).c_str(), utc_time(t.last_time).c_str());
      trials += t.trials;
      errors += t.errors;
      for (const auto& [kind, n] : t.error_kinds) kinds[kind] += n;
    }
    std::string kind_text;
    for (const auto& [kind, n] : kinds) kind_text += (kind_text.empty() ? " (" : ", ") + kind + " " + std::to_string(n);
    std::printf("total: %d records, %d errors%s\n\n", trials, errors, kind_text.empty() ? "" : (kind_text + ")").c_str());
  }
}

// The lock of an existing output log (a new one no run writes), held from
// before the logs are read: -o may be one of them, and a run appending to
// it meanwhile would lose its records to the replacement.
std::unique_ptr<log::LogLock> lock_output(const std::string& output) {
  if (!std::filesystem::exists(output)) return nullptr;
  return std::make_unique<log::LogLock>(output, /*wait=*/false);
}

// Per target, the tasks with enough measured programs: Spearman between
// the analytic estimates and the times, and what trusting the model's first
// pick (or five) would cost against the task's best; geometric means last.
void rank(const LogToolOptions& o) {
  // -o holds only the ranked tasks' programs: never one of the logs read.
  for (const std::string& path : o.logs)
    for (const std::string& file : log::log_files(path))
      user_check(o.output.empty() || !std::filesystem::exists(o.output) ||
                     !std::filesystem::equivalent(file, o.output),
                 "log rank: -o ", o.output, " is one of the logs it reads (it would keep only the ranked tasks)");
  const std::unique_ptr<log::LogLock> lock = o.output.empty() ? nullptr : lock_output(o.output);
  std::vector<log::Record> records = all_records(o.logs);
  if (o.retime) {
    records = tune::retime_records(records, o.min_programs, tune::Retime{.calls = o.calls});
    if (!o.output.empty()) {
      log::write_log(o.output, records);
      std::printf("wrote the %zu programs timed again to %s\n", records.size(), o.output.c_str());
    }
  }
  const std::vector<tune::TaskRanking> tasks = tune::rank_measured_programs(records, o.min_programs);
  user_check(!tasks.empty(), "log rank: no task of ", o.logs.front(), o.logs.size() > 1 ? " and the rest" : "",
             " has ", o.min_programs, " or more measured programs that replay (--min-programs sets how many)");
  std::map<std::string, std::vector<const tune::TaskRanking*>> by_target;
  for (const tune::TaskRanking& t : tasks) by_target[t.target].push_back(&t);
  for (const auto& [target, rows] : by_target) {
    size_t width = 4;
    for (const tune::TaskRanking* t : rows) width = std::max(width, t->name.size());
    const int w = static_cast<int>(width);
    std::printf("target '%s': the analytic model's ranking of %zu tasks' measured programs (%s)\n", target.c_str(),
                rows.size(),
                o.retime ? ("times taken again here: " + std::to_string(o.calls) + " calls each").c_str()
                         : "times as logged");
    std::printf("%-4s %-*s %9s %10s %9s %8s %8s\n", "#", w, "task", "programs", "best ms", "Spearman", "top-1",
                "top-5");
    double spearman = 0, top1 = 0, top5 = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      const tune::TaskRanking& t = *rows[i];
      std::printf("%-4zu %-*s %9d %10.4f %9.3f %7.2fx %7.2fx\n", i, w, t.name.c_str(), t.programs,
                  t.best_seconds * 1e3, t.spearman, t.top1_regret, t.top5_regret);
      spearman += t.spearman;
      top1 += std::log(t.top1_regret);
      top5 += std::log(t.top5_regret);
    }
    const double n = static_cast<double>(rows.size());
    std::printf("mean Spearman %.3f; the model's first pick %.2fx the best time, the best of its first five %.2fx "
                "(geometric means)\n\n",
                spearman / n, std::exp(top1 / n), std::exp(top5 / n));
  }
}

void best(const LogToolOptions& o) {
  const std::unique_ptr<log::LogLock> lock = lock_output(o.output);
  const std::vector<log::Record> records = all_records(o.logs);
  const std::vector<log::Record> best = log::best_per_task(records);
  log::write_log(o.output, best);
  std::printf("wrote the best records of %zu tasks (of %zu records) to %s\n", best.size(), records.size(),
              o.output.c_str());
}

void merge(const LogToolOptions& o) {
  const std::unique_ptr<log::LogLock> lock = lock_output(o.output);
  const std::vector<std::vector<log::Record>> logs = read_logs(o.logs);
  size_t read = 0;
  for (const auto& records : logs) read += records.size();
  const std::vector<log::Record> merged = log::merge_records(logs);
  log::write_log(o.output, merged);
  std::printf("wrote %zu records to %s (%zu read from %zu file%s, %zu repeated ones left out)\n", merged.size(),
              o.output.c_str(), read, logs.size(), logs.size() == 1 ? "" : "s", read - merged.size());
}

CLI::App* add_tool(CLI::App* log_cmd, const std::string& name, const std::string& help,
                   const std::shared_ptr<LogToolOptions>& o, void (*run)(const LogToolOptions&), bool writes) {
  CLI::App* sub = log_cmd->add_subcommand(name, help);
  sub->add_option("logs", o->logs, "tuning logs (files or folders of *.json / *.jsonl)")->required();
  if (writes) sub->add_option("-o,--output", o->output, "the log to write (replaced whole)")->required();
  sub->callback([o, run] { run(*o); });
  return sub;
}

}  // namespace

void register_log(CLI::App& app) {
  CLI::App* log_cmd = app.add_subcommand(
      "log", "Inspect tuning logs, keep their best records, merge them, rank their programs by the analytic model");
  log_cmd->require_subcommand(1);
  add_tool(log_cmd, "show", "A table per target: each task's trials, errors, best, GFLOP/s, first and last record",
           std::make_shared<LogToolOptions>(), show, false);
  add_tool(log_cmd, "best", "Write the best record of each task and target: the log to commit or ship",
           std::make_shared<LogToolOptions>(), best, true);
  add_tool(log_cmd, "merge", "Write several logs as one, each record once", std::make_shared<LogToolOptions>(), merge,
           true);
  auto rank_options = std::make_shared<LogToolOptions>();
  CLI::App* rank_cmd = add_tool(
      log_cmd, "rank",
      "How well the analytic model (the one --search construct walks by) ranks each task's measured programs",
      rank_options, rank, false);
  rank_cmd->add_option("--min-programs", rank_options->min_programs, "tasks with at least this many measured programs")
      ->check(CLI::Range(2, 1000000))
      ->capture_default_str();
  rank_cmd->add_flag("--retime", rank_options->retime,
                     "time every program again on this machine with this build (a log's times are those of the code "
                     "generation and machine of their day)");
  rank_cmd->add_option("--calls", rank_options->calls, "--retime: timed calls of each program (median)")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  rank_cmd->add_option("-o,--output", rank_options->output,
                       "--retime: also write the programs timed again as a log (ranked again without --retime "
                       "in seconds: what a change of the model does)")
      ->needs(rank_cmd->get_option("--retime"));
}

}  // namespace tunectl::cmd
