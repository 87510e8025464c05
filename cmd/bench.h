// What the parts of `tunectl bench` share (cmd/bench.cpp registers the
// command and picks a mode): the options, the three modes (the suite of
// tuned kernels against oneDNN, the hand-scheduled matmul core rows, and a
// whole model with default and tuned schedules), and the best records of
// tuning logs by workload key, which the suite and the model mode look up.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "log/record.h"
#include "runtime/timer.h"

namespace tunectl::cmd {

struct BenchOptions {
  int repeats = 5;                        // timed repeats; medians are reported
  // --target: only records of this target are applied. Default: the suite's
  // logs' own target for the suite, this CPU ("llvm") for the other modes.
  std::string target;
  std::shared_ptr<const backend::Backend> backend;  // of the target, set by the mode
  // Suite (no MODEL).
  std::string logs = "tuning_logs";       // every *.json / *.jsonl log in this folder
  std::string suite = "models/bench";     // the suite's one-operator models
  bool untuned = false;                   // time the default schedule of a task without a log record
  uint64_t seed = 7;                      // random inputs shared by tunectl and oneDNN
  // Core matmul rows (--core).
  bool core = false;
  int64_t size = 1024;                    // M = N = K
  // Model mode.
  std::string model;                      // empty: the suite or the core rows
  std::string log;                        // a tuning log whose best records give the tuned schedules
  std::vector<std::string> input_shapes;  // NAME=1x3x224x224
  bool profile = false;                   // per-subgraph table (of the tuned run when there is one)
};

// The records of a set of tuning logs, reduced to what bench needs.
struct TuningLogs {
  std::string target;                       // the target of the records kept ("" for no records)
  std::map<std::string, log::Record> best;  // lowest median cost per workload key
  std::map<std::string, int> trials;        // records (measured programs) per workload key
  size_t files = 0;
};

// Reads one log file, or every *.json / *.jsonl file of a folder (sorted by
// name), keeping the records of `target` (a note on stderr says how many of
// other targets are left out), or when `target` is empty of the records' one
// CPU target (log::pick_target; GPU records only when there are no others);
// UserError when the path is missing or a file is unreadable.
TuningLogs read_tuning_logs(const std::string& path, const std::string& target);

// "median 1.234 ms, min..max 1.200..1.300 ms (spread 8.1%)".
std::string timing_summary(const runtime::Timing& t);

void run_bench_suite(const BenchOptions& o);
void run_bench_core(const BenchOptions& o);
// The same on a GPU, against cuBLAS (bench_core_cuda.cpp).
void run_bench_core_cuda(const BenchOptions& o);
void run_bench_model(const BenchOptions& o);

}  // namespace tunectl::cmd
