// What the commands that run whole models with tuned schedules share
// (`bench MODEL --log`, the suite of `bench`, `run --log`): the best records
// of tuning logs by workload key, and the executor's schedule hook that
// replays them.
#pragma once

#include <map>
#include <set>
#include <string>

#include "graph/executor.h"
#include "log/record.h"

namespace tunectl::cmd {

// The records of a set of tuning logs, reduced to what the commands need.
struct TuningLogs {
  std::string target;                       // the target of the records kept ("" for no records)
  std::map<std::string, log::Record> best;  // lowest median cost per workload key
  std::map<std::string, int> trials;        // records (measured programs) per workload key
  size_t files = 0;
};

// Reads one log file, or every *.json / *.jsonl file of a folder (sorted by
// name), keeping the records of `target` (a note on stderr says how many of
// other targets are left out), or when `target` is empty of the records'
// CPU target (GPU records only when there are no others; of several CPU
// targets, the one this CPU runs that covers most workloads, else
// log::pick_target's error); UserError when the path is missing or a file is
// unreadable.
TuningLogs read_tuning_logs(const std::string& path, const std::string& target);

// The lowest median cost of key's records in logs; +inf without one.
double best_cost(const TuningLogs& logs, const std::string& key);

// The workload keys a schedule hook was asked for, and those the log covered.
struct LogCoverage {
  std::set<std::string> seen, covered;
};

using ExecutorSchedule = decltype(graph::ExecutorOptions::schedule);

// Replays the best record of each subgraph's workload key; the default
// schedule where the logs have none. Holds `logs` and `coverage` by
// reference: both must outlive the executor's construction.
ExecutorSchedule schedules_from_log(const TuningLogs& logs, LogCoverage& coverage);

}  // namespace tunectl::cmd
