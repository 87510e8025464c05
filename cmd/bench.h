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
#include "cmd/model_inputs.h"
#include "cmd/tuning_logs.h"
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
  std::string against;                    // a second log, timed in the same rounds and compared with --log's
  ModelInputOptions model_inputs;         // --input-shape, --bind
  bool profile = false;                   // per-subgraph table (of the tuned run when there is one)
  bool tuned_only = false;                // time the tuned schedules alone (needs a log)
  bool launch_graph = true;               // on a GPU, replay the launches as one CUDA graph
  std::string layout = "auto";            // --layout
};

// "median 1.234 ms, min..max 1.200..1.300 ms (spread 8.1%)".
std::string timing_summary(const runtime::Timing& t);

void run_bench_suite(const BenchOptions& o);
void run_bench_core(const BenchOptions& o);
// The same on a GPU, against cuBLAS (bench_core_cuda.cpp).
void run_bench_core_cuda(const BenchOptions& o);
void run_bench_model(const BenchOptions& o);

}  // namespace tunectl::cmd
