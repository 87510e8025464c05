#include "log/log_tools.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "ir/error.h"
#include "log/log_file.h"
#include "te/dag_json.h"

namespace tunectl::log {

namespace {

std::string task_id(const Record& r) { return r.task.target + "|" + r.task.workload_key; }

}  // namespace

std::vector<TaskLogSummary> summarize_records(const std::vector<Record>& records) {
  std::vector<TaskLogSummary> out;
  std::map<std::string, size_t> index;
  for (const Record& r : records) {
    auto [it, first] = index.emplace(task_id(r), out.size());
    if (first) {
      TaskLogSummary s;
      s.name = r.task.name;
      s.workload_key = r.task.workload_key;
      s.target = r.task.target;
      s.flops = te::dag_from_json(r.task.dag).flop_count();
      s.first_time = s.last_time = r.result.timestamp;
      out.push_back(std::move(s));
    }
    TaskLogSummary& s = out[it->second];
    ++s.trials;
    s.first_time = std::min(s.first_time, r.result.timestamp);
    s.last_time = std::max(s.last_time, r.result.timestamp);
    if (!r.result.ok()) {
      ++s.errors;
      ++s.error_kinds[to_string(r.result.error)];
    }
  }
  for (const Record& r : best_per_task(records)) {
    TaskLogSummary& s = out[index.at(task_id(r))];
    s.best_cost = r.result.median_cost();
    s.best_estimated = r.result.estimated;
  }
  return out;
}

std::vector<Record> best_per_task(const std::vector<Record>& records) {
  std::set<std::string> targets;
  for (const Record& r : records) targets.insert(r.task.target);
  std::map<std::string, Record> best;
  for (const std::string& target : targets)
    for (auto& [key, r] : best_records(records, target)) best.emplace(task_id(r), std::move(r));
  std::vector<Record> out;
  for (const Record& r : records) {
    auto it = best.find(task_id(r));
    if (it == best.end()) continue;
    out.push_back(std::move(it->second));
    best.erase(it);
  }
  return out;
}

std::vector<Record> merge_records(const std::vector<std::vector<Record>>& logs) {
  std::set<std::string> seen;
  std::vector<Record> out;
  for (const auto& records : logs)
    for (const Record& r : records)
      if (seen.insert(record_to_json(r).dump()).second) out.push_back(r);
  return out;
}

void write_log(const std::string& path, const std::vector<Record>& records) {
  const std::filesystem::path final_path(path);
  if (final_path.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(final_path.parent_path(), ec);
    if (ec) system_fail("cannot create the folder of the log", "mkdir", final_path.parent_path().string(), ec.message());
  }
  const std::string temp = path + ".tmp" + std::to_string(::getpid());
  std::string text;
  for (const Record& r : records) text += record_to_json(r).dump() + "\n";
  std::FILE* file = std::fopen(temp.c_str(), "we");
  system_check(file != nullptr, "cannot write the log", "open", temp);
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size() && std::fflush(file) == 0 &&
                       ::fsync(fileno(file)) == 0;
  const int saved_errno = errno;
  std::fclose(file);
  if (!written) {
    std::remove(temp.c_str());
    errno = saved_errno;
    system_check(false, "cannot write the log", "write", temp);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    std::remove(temp.c_str());
    errno = e;
    system_check(false, "cannot write the log", "rename", path);
  }
}

}  // namespace tunectl::log
