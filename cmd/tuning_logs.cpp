#include "cmd/tuning_logs.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <vector>

#include <spdlog/spdlog.h>

#include "backend/backend.h"
#include "ir/error.h"
#include "log/log_file.h"

namespace tunectl::cmd {

namespace {

// Without --target, bench runs on this machine's CPU: the records of a GPU
// target (a constructed CUDA log beside the CPU ones) are left out. Of
// several CPU targets, the one covering most workloads among those whose
// code this CPU runs (a Zen 5 runs both committed ones, the reference CPU's
// znver4 and the portable x86-64-v3; a Zen 3 only the latter). Of several
// that cover as many, the one whose instruction set includes every other's:
// its kernels use the most of this CPU (an Intel CPU with AVX-512 runs the
// portable x86-64-v4 logs and the x86-64-v3 ones, which cover the same
// workloads).
std::string host_target(const std::vector<log::Record>& all, const std::string& path) {
  std::vector<log::Record> cpu;
  std::map<std::string, std::set<std::string>> keys_by_target;
  for (const log::Record& r : all) {
    if (r.task.target.rfind("llvm", 0) != 0) continue;
    cpu.push_back(r);
    keys_by_target[r.task.target].insert(r.task.workload_key);
  }
  if (keys_by_target.size() <= 1) return log::pick_target(cpu.empty() ? all : cpu, "", path);
  size_t best_keys = 0;
  std::map<std::string, std::vector<std::string>> best;  // target -> its features
  for (const auto& [name, keys] : keys_by_target) {
    if (keys.size() < best_keys) continue;
    const target::Target t = backend::resolve_target(name);
    if (backend::make_backend(t)->why_not_here()) continue;
    if (keys.size() > best_keys) best.clear();
    best_keys = keys.size();
    best.emplace(name, t.features);
  }
  for (const auto& [name, features] : best) {
    const bool includes_all = std::all_of(best.begin(), best.end(), [&](const auto& other) {
      return std::includes(features.begin(), features.end(), other.second.begin(), other.second.end());
    });
    if (includes_all) return name;
  }
  // None runs here, or two cover as many and neither includes the other:
  // the user picks (pick_target's error).
  return log::pick_target(cpu, "", path);
}

}  // namespace

TuningLogs read_tuning_logs(const std::string& path, const std::string& target) {
  const std::vector<std::string> files = log::log_files(path);
  std::vector<log::Record> all;
  for (const auto& file : files) {
    log::LogContents contents = log::read_log(file);
    for (const auto& w : contents.warnings) spdlog::warn("{}", w);
    for (auto& r : contents.records) all.push_back(std::move(r));
  }
  TuningLogs logs;
  logs.target = !target.empty() || all.empty() ? target : host_target(all, path);
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

double best_cost(const TuningLogs& logs, const std::string& key) {
  auto it = logs.best.find(key);
  return it == logs.best.end() ? std::numeric_limits<double>::infinity() : it->second.result.median_cost();
}

}  // namespace tunectl::cmd
