// `tunectl replay LOG [--kernels DIR] [--task NAME_OR_KEY] [--target T] [--no-check]`: the
// kernels folder from a tuning log alone. Reads the log (printing what the
// reader skipped), takes the target its records were tuned for (--target
// picks one when the log holds several, and must match one of them), keeps
// the best valid record of each task for it (log::best_records), rebuilds and
// checks each program (unless --no-check) and writes the folder (kernels::write_kernel_cache), then
// prints one row per kernel. Two replays of one log give byte-identical files.
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "backend/backend.h"
#include "cmd/subcommands.h"
#include "ir/error.h"
#include "kernels/kernel_cache.h"
#include "log/log_file.h"
#include "te/dag_json.h"

namespace tunectl::cmd {

namespace {

struct ReplayOptions {
  std::string log;
  std::string kernels = "kernels";
  std::string task;  // name or workload key; empty = every task
  std::string target;  // empty = the one target of the log's records
  bool no_check = false;
};

// What the log holds about one task.
struct TaskSummary {
  std::string name;
  int measured = 0;
};

void run_replay(const ReplayOptions& o) {
  log::LogContents contents = log::read_log(o.log);
  for (const std::string& w : contents.warnings) spdlog::warn("{}", w);

  const std::string wanted = o.target.empty() ? "" : backend::resolve_target(o.target).str();
  const std::string target = log::pick_target(contents.records, wanted, o.log);
  std::map<std::string, TaskSummary> tasks;  // by workload key, the target's records only
  for (const log::Record& r : contents.records) {
    if (r.task.target != target) continue;
    if (!o.task.empty() && r.task.name != o.task && r.task.workload_key != o.task) continue;
    TaskSummary& t = tasks[r.task.workload_key];
    t.name = r.task.name;
    ++t.measured;
  }
  user_check(!tasks.empty(), o.log, ": ", o.task.empty() ? "no records" : "no task named '" + o.task + "'");

  std::unique_ptr<backend::Backend> backend = backend::make_backend(backend::resolve_target(target));
  std::map<std::string, log::Record> best = log::best_records(contents.records, target);
  std::vector<log::Record> records;
  for (const auto& [key, t] : tasks) {
    auto it = best.find(key);
    if (it == best.end())
      std::printf("task %s (%s): no valid record in the log (%d measured, all failed); no kernel\n", t.name.c_str(),
                  key.c_str(), t.measured);
    else
      records.push_back(it->second);
  }
  user_check(!records.empty(), o.log, ": no valid record (every measurement failed); nothing to replay");

  std::printf("target: %s\n", target.c_str());
  const std::vector<kernels::KernelEntry> entries = kernels::write_kernel_cache(
      records, o.kernels, *backend, o.no_check ? kernels::KernelCheck::None : kernels::KernelCheck::AgainstReference).kernels;
  std::printf("%-24s %-16s %12s %10s  %s\n", "task", "key", "ms", "GFLOP/s", "symbol");
  bool estimated = false;
  for (const kernels::KernelEntry& e : entries) {
    double flops = te::dag_from_json(e.record.task.dag).flop_count();
    std::printf("%-24s %-16s %12.4f %10.2f  %s%s\n", e.task_name.c_str(), e.workload_key.c_str(), e.cost_seconds * 1e3,
                flops / e.cost_seconds * 1e-9, e.symbol.c_str(), e.record.result.estimated ? " (estimated)" : "");
    estimated = estimated || e.record.result.estimated;
  }
  if (estimated) std::printf("(estimated: the analytic model's cost of a constructed program; never timed)\n");
  const std::string files = backend->links_objects() ? "<symbol>" + backend->file_suffix() + ", libtunectl_kernels.so"
                                                     : "<symbol>" + backend->file_suffix();
  std::printf("wrote %zu kernel%s to %s/: %s, manifest.json\n", entries.size(), entries.size() == 1 ? "" : "s",
              o.kernels.c_str(), files.c_str());
}

}  // namespace

void register_replay(CLI::App& app) {
  auto options = std::make_shared<ReplayOptions>();
  CLI::App* sub = app.add_subcommand(
      "replay", "Rebuild the best program of each task from a tuning log, check it, write the kernels folder");
  sub->add_option("log", options->log, "tuning log (JSON lines, from tunectl tune)")->required();
  sub->add_option("--kernels", options->kernels, "kernels folder to write (default: kernels)");
  sub->add_option("--task", options->task, "replay only this task (name or workload key)");
  sub->add_option("--target", options->target,
                  "the target whose records to replay (default: the log's; needed when it holds several)");
  sub->add_flag("--no-check", options->no_check,
               "write the kernels without checking them against the reference (a log replayed and checked before)");
  sub->callback([options] { run_replay(*options); });
}

}  // namespace tunectl::cmd
