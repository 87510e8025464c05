// What the bench suite's two halves share: the CPU suite against oneDNN
// (bench_suite.cpp) and the GPU suite against cuBLAS and cuDNN
// (bench_suite_cuda.cpp). A row is one workload: its tuned (or default)
// kernel from the logs, timed next to the vendor library's.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "cmd/bench.h"
#include "runtime/kernel.h"
#include "tasks/extract.h"

namespace tunectl::cmd {

struct SuiteRow {
  std::string workload;
  std::string note;      // "tuned", "untuned" or "no tuning log"
  double tunectl_s = 0;  // 0 when not timed
  double vendor_s = 0;
  double flops = 0;
  int trials = 0;
};

// The single task of a one-operator model; UserError when it makes more.
tasks::Task single_task(const std::string& path);

// The task's best kernel from the logs, or with --untuned its default one;
// null (row.note "no tuning log") when there is neither. Sets row.trials.
std::unique_ptr<runtime::Kernel> suite_row_kernel(const tasks::Task& task, const TuningLogs& logs,
                                                  const backend::Backend& backend, const BenchOptions& o,
                                                  SuiteRow& row);

// The table, ratios as `vendor` time / tunectl time.
void print_suite_rows(const std::vector<SuiteRow>& rows, const std::string& vendor);

// The GPU suite on `backend` (a cuda target, a device present).
void run_bench_suite_cuda(const BenchOptions& o, const TuningLogs& logs, const backend::Backend& backend);

}  // namespace tunectl::cmd
