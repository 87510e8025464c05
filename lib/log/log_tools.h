// What `tunectl log` does with the records of tuning logs: a summary per
// task and target (show), the best record of each (best: the file to commit
// or ship), several logs in one without repeats (merge), and a log file
// written whole. Records of an older format version come in upgraded
// (record.h) and are written in the current one.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "log/record.h"

namespace tunectl::log {

// The records of one task on one target.
struct TaskLogSummary {
  std::string name;
  std::string workload_key;
  std::string target;
  double flops = 0;  // of the task's DAG, per call
  int trials = 0;    // records
  int errors = 0;    // of those, error records
  std::map<std::string, int> error_kinds;  // error name -> records
  double best_cost = std::numeric_limits<double>::infinity();  // seconds; +inf when none is valid
  bool best_estimated = false;  // the best is an analytic estimate, not a measurement
  int64_t first_time = 0, last_time = 0;  // seconds since the epoch
};

// One summary per (target, workload key), in the order of their first record.
std::vector<TaskLogSummary> summarize_records(const std::vector<Record>& records);

// The best valid record of each task on each target (best_records' choice),
// in the order of the tasks' first records.
std::vector<Record> best_per_task(const std::vector<Record>& records);

// The records of every log in order, each record that is equal to an
// earlier one (the same line in two logs) kept once.
std::vector<Record> merge_records(const std::vector<std::vector<Record>>& logs);

// Writes `records` as a complete log (written beside it, then renamed over
// it: `path` may be one of the logs read). SystemError when it cannot.
void write_log(const std::string& path, const std::vector<Record>& records);

}  // namespace tunectl::log
