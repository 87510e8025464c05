#include "cmd/tuning_logs.h"

#include <spdlog/spdlog.h>

#include "ir/error.h"
#include "log/log_file.h"

namespace tunectl::cmd {

TuningLogs read_tuning_logs(const std::string& path, const std::string& target) {
  const std::vector<std::string> files = log::log_files(path);
  std::vector<log::Record> all;
  for (const auto& file : files) {
    log::LogContents contents = log::read_log(file);
    for (const auto& w : contents.warnings) spdlog::warn("{}", w);
    for (auto& r : contents.records) all.push_back(std::move(r));
  }
  TuningLogs logs;
  if (!target.empty() || all.empty()) {
    logs.target = target;
  } else {
    // Without --target, bench runs on this machine's CPU: the records of a
    // GPU target (a constructed CUDA log beside the CPU ones) are left out.
    std::vector<log::Record> cpu;
    for (const log::Record& r : all)
      if (r.task.target.rfind("llvm", 0) == 0) cpu.push_back(r);
    logs.target = log::pick_target(cpu.empty() ? all : cpu, "", path);
  }
  const std::string note = log::other_targets_note(all, logs.target);
  if (!note.empty()) spdlog::info("{}: {}", path, note);
  for (const log::Record& r : all)
    if (r.task.target == logs.target) ++logs.trials[r.task.workload_key];
  logs.best = log::best_records(all, logs.target);
  logs.files = files.size();
  return logs;
}

ExecutorSchedule schedules_from_log(const TuningLogs& logs, LogCoverage& coverage) {
  return [&logs, &coverage](const std::shared_ptr<const te::ComputeDAG>& dag) {
    const std::string key = dag->workload_key();
    coverage.seen.insert(key);
    auto it = logs.best.find(key);
    if (it == logs.best.end()) return std::optional<schedule::State>();
    coverage.covered.insert(key);
    return std::optional<schedule::State>(schedule::replay(dag, it->second.steps));
  };
}

}  // namespace tunectl::cmd
