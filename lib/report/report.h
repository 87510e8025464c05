// `tunectl report LOG [--model MODEL] -o report.html`: how a tuning run went,
// as one self-contained HTML file (inline CSS and SVG; no script, nothing
// fetched when viewed). Its figures, computed from the log's records of one
// target in log order:
//   - the estimated end-to-end latency (sum over tasks of weight x best so
//     far; from the first record at which every task has a valid program)
//     against trials and against wall time (seconds since the first record);
//   - each task's best GFLOP/s against its own trials;
//   - each task's share of the final estimated latency;
//   - the error kinds and how often each occurred;
//   - a table of the tasks with their best program's steps.
// Every plotted point carries its exact values as data-x / data-y
// attributes, inside a <g data-series="NAME">, so tests (and users' scripts)
// can read the figures back.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "log/record.h"

namespace tunectl::report {

struct Point {
  double x = 0, y = 0;
};

// One task of the report: its weight (how often the model runs it; 1
// without a model) and name.
struct ReportTask {
  std::string workload_key;
  std::string name;
  int weight = 1;
};

struct ReportData {
  std::string target;
  std::vector<ReportTask> tasks;  // the tasks the estimate sums over
  size_t records = 0;             // of the target, all tasks
  std::vector<Point> latency_by_trial;   // (trial, ms): at each improvement, and the last trial
  std::vector<Point> latency_by_time;    // (seconds since the first record, ms), likewise
  std::map<std::string, std::vector<Point>> task_gflops;  // by workload key: (task trial, best GFLOP/s)
  std::map<std::string, double> task_best_s;              // by workload key; absent while none is valid
  std::map<std::string, int> task_trials, task_errors;
  std::map<std::string, std::string> task_steps;          // the best record's steps as JSON
  std::map<std::string, double> task_flops;
  std::map<std::string, int> error_kinds;                 // error name -> records
};

// The figures of `records` (all of one target) for `tasks`; with tasks
// empty, every task of the records with weight 1.
ReportData report_data(const std::vector<log::Record>& records, std::vector<ReportTask> tasks);

// The HTML page; `title` names the log (and model).
std::string report_html(const ReportData& data, const std::string& title);

}  // namespace tunectl::report
