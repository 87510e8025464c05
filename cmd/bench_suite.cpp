// `tunectl bench` without a model: the bench suite. For each one-operator
// model of models/bench/ (1024^3 GEMM, ResNet-50's 3x3 and 1x1 convolutions
// with bias and ReLU, its 7x7 stem, stride-2 3x3 and 1x1 projection,
// MobileNet's depthwise 3x3, BERT-base's dense 128x768x3072) it imports the model,
// takes its single task, rebuilds the task's best program from the tuning
// logs (replay of the record's steps, lower, JIT), checks it against oneDNN
// on the same seeded random inputs and weights, and times both in this
// process, their repeats interleaved (runtime::time_interleaved: median,
// caches flushed between repeats). The table gives GFLOP/s and the ratio
// oneDNN time / tunectl time (> 1: tunectl is faster). A workload the logs
// do not cover gets a "no tuning log" row, or with --untuned the time of its
// default schedule. Each convolution has a second row, "... nchw16c": the
// task it makes in channel blocks (--layout nchwc; blocked input and output)
// against oneDNN in the layouts oneDNN picks, neither timing a reorder, as
// inside a model whose convolutions all run in such layouts.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "baseline/onednn_conv2d.h"
#include "baseline/onednn_dense.h"
#include "baseline/onednn_matmul.h"
#include "check/reference_check.h"
#include "backend/backend.h"
#include "cmd/bench_suite.h"
#include "graph/import.h"
#include "graph/partition.h"
#include "graph/passes.h"
#include "ir/error.h"
#include "lower/lower.h"
#include "runtime/thread_pool.h"
#include "schedule/state.h"
#include "tasks/extract.h"

namespace tunectl::cmd {

namespace {

using Shape = std::vector<int64_t>;
// Runs oneDNN on the task's inputs (placeholders in DAG order) into out.
using Baseline = std::function<void(const std::vector<runtime::NDArray>& inputs, runtime::NDArray& out)>;

struct SuiteEntry {
  std::string file;                 // under the suite folder
  std::vector<Shape> input_shapes;  // the task's placeholders, in order
  // Builds the oneDNN primitive; constant inputs (weights, bias) are handed over here.
  std::function<Baseline(const std::vector<runtime::NDArray>& inputs)> make_baseline;
  // Convolutions: oneDNN in the layouts it chooses, no reorders (run_native),
  // for the row of the channel-blocked task; null for the other entries.
  std::function<std::function<void()>(const std::vector<runtime::NDArray>& inputs)> make_native = nullptr;
};

Baseline matmul_baseline(int64_t m, int64_t k, int64_t n) {
  auto p = std::make_shared<baseline::OneDnnMatmul>(m, n, k);
  return [p](const std::vector<runtime::NDArray>& in, runtime::NDArray& out) {
    p->run(in[0].data<float>(), in[1].data<float>(), out.data<float>());
  };
}

// Conv with bias and ReLU of models/make_bench_models.cpp: padding r / 2.
SuiteEntry conv_entry(const std::string& file, int64_t c, int64_t k, int64_t r, int64_t size, int64_t stride = 1,
                      int64_t groups = 1) {
  baseline::Conv2dShape s{1, c, size, size, k, r, r, stride, r / 2, groups};
  auto make = [s](const std::vector<runtime::NDArray>& in) {
    return std::make_shared<baseline::OneDnnConv2d>(s, in[1].data<float>(), in[2].data<float>(), true);
  };
  return {file, {{1, c, size, size}, {k, c / groups, r, r}, {k}},
          [make](const std::vector<runtime::NDArray>& in) -> Baseline {
            auto p = make(in);
            return [p](const std::vector<runtime::NDArray>& in, runtime::NDArray& out) {
              p->run(in[0].data<float>(), out.data<float>());
            };
          },
          [make](const std::vector<runtime::NDArray>& in) -> std::function<void()> {
            auto p = make(in);
            return [p] { p->run_native(); };
          }};
}

std::vector<SuiteEntry> suite_entries() {
  std::vector<SuiteEntry> e;
  e.push_back({"gemm_1024.onnx", {{1024, 1024}, {1024, 1024}}, [](const std::vector<runtime::NDArray>&) {
                 return matmul_baseline(1024, 1024, 1024);
               }});
  e.push_back(conv_entry("conv3x3_resnet.onnx", 64, 64, 3, 56));
  e.push_back(conv_entry("conv1x1_resnet.onnx", 64, 256, 1, 56));
  e.push_back(conv_entry("conv7x7_stem.onnx", 3, 64, 7, 224, 2));
  e.push_back(conv_entry("conv3x3_s2_resnet.onnx", 128, 128, 3, 56, 2));
  e.push_back(conv_entry("conv1x1_s2_resnet.onnx", 256, 512, 1, 56, 2));
  e.push_back(conv_entry("depthwise3x3_mobilenet.onnx", 32, 32, 3, 112, 1, 32));
  e.push_back({"dense_bert.onnx", {{128, 768}, {768, 3072}, {3072}}, [](const std::vector<runtime::NDArray>& in) {
                 auto p = std::make_shared<baseline::OneDnnDense>(128, 768, 3072, in[1].data<float>(),
                                                                  in[2].data<float>(), baseline::DenseWeights::InOut);
                 return Baseline([p](const std::vector<runtime::NDArray>& in, runtime::NDArray& out) {
                   p->run(in[0].data<float>(), out.data<float>());
                 });
               }});
  return e;
}

// The convolution task of a one-convolution model in channel blocks of
// `block` (--layout nchwc): blocked data in and out (the model's other tasks
// are the transforms of its input and output), but for data of one block
// (the stem's 3 channels), which the task reads as it is (graph/partition.h).
tasks::Task blocked_conv_task(const std::string& path, int64_t block) {
  graph::Graph g = graph::block_channels(graph::simplify_graph(graph::import_onnx(path, {})), block);
  std::vector<tasks::Task> tasks = tasks::extract_tasks(graph::partition(g));
  auto conv = std::max_element(tasks.begin(), tasks.end(),
                               [](const tasks::Task& a, const tasks::Task& b) { return a.flops < b.flops; });
  user_check(conv != tasks.end() && conv->name.find("conv2d_nchwc") != std::string::npos, "bench: ", path,
             " makes no channel-blocked convolution");
  return std::move(*conv);
}

// Times oneDNN alone (no kernel) or interleaved with the kernel on args
// (weights prepacked before timing, as oneDNN's are when its primitive is
// built) into the row.
void time_row(SuiteRow& row, const std::function<void()>& onednn, runtime::Kernel* kernel,
              const std::vector<runtime::NDArray*>& args, const BenchOptions& o) {
  runtime::TimingOptions timing;
  timing.repeats = o.repeats;
  // oneDNN's OpenMP workers spin after each call; they must not steal the
  // cores from the tunectl kernel timed next (nor ours from oneDNN).
  timing.settle_seconds = 0.05;
  if (!kernel) {
    row.vendor_s = runtime::time_function(onednn, timing).median();
    return;
  }
  std::vector<runtime::NDArray> packed;
  std::vector<void*> raw = kernel->pack_inputs(check::raw_pointers(args), packed);
  // A default schedule runs for seconds; three repeats say enough about it.
  if (row.note == "untuned") timing.repeats = std::min(o.repeats, 3);
  std::vector<runtime::Timing> t = runtime::time_interleaved({onednn, [&] { kernel->run(raw.data()); }}, timing);
  row.vendor_s = t[0].median();
  row.tunectl_s = t[1].median();
}

std::vector<runtime::NDArray*> arguments(std::vector<runtime::NDArray>& inputs, std::vector<runtime::NDArray>& outputs) {
  std::vector<runtime::NDArray*> args;
  for (auto& a : inputs) args.push_back(&a);
  for (auto& a : outputs) args.push_back(&a);
  return args;
}

// The entry's NCHW row: the kernel checked against oneDNN's output on the
// same inputs, both timed with NCHW data in and out.
SuiteRow bench_entry(const SuiteEntry& entry, const std::string& path, const TuningLogs& logs,
                const backend::Backend& backend, const BenchOptions& o) {
  tasks::Task task = single_task(path);
  const auto& placeholders = task.dag->placeholders();
  user_check(placeholders.size() == entry.input_shapes.size(), "bench: ", path, " does not have the suite's inputs");
  for (size_t i = 0; i < placeholders.size(); ++i) {
    user_check(placeholders[i]->shape() == entry.input_shapes[i], "bench: ", path, " input ", i,
               " does not have the suite's shape");
  }
  SuiteRow row{entry.file.substr(0, entry.file.rfind('.')), "no tuning log", 0, 0, task.flops, 0};
  std::vector<runtime::NDArray> inputs = check::check_inputs(*task.dag, o.seed);
  const te::Tensor& output = task.dag->outputs().at(0);
  std::vector<runtime::NDArray> expected;
  expected.emplace_back(output->dtype(), output->shape());
  Baseline onednn = entry.make_baseline(inputs);
  auto run_onednn = [&] { onednn(inputs, expected[0]); };
  std::unique_ptr<runtime::Kernel> kernel = suite_row_kernel(task, logs, backend, o, row);
  std::vector<runtime::NDArray> outputs = check::poisoned_outputs(*task.dag);
  std::vector<runtime::NDArray*> args = arguments(inputs, outputs);
  if (kernel) {
    run_onednn();
    kernel->pack_and_run(check::raw_pointers(args));
    check::CheckResult cmp = check::compare_outputs(*task.dag, outputs, expected);
    user_check(cmp.ok, "bench: the ", row.note, " kernel of ", task.name, " disagrees with oneDNN: ", cmp.message);
  }
  time_row(row, run_onednn, kernel.get(), args, o);
  return row;
}

// The entry's channel-blocked row (convolutions): the blocked task's kernel,
// checked against the reference evaluator, against oneDNN in its own
// layouts, neither timing a reorder, as between two layers of a network.
SuiteRow bench_blocked_entry(const SuiteEntry& entry, const std::string& path, const TuningLogs& logs,
                        const backend::Backend& backend, const BenchOptions& o) {
  const int64_t block = backend.target().vector_lanes;
  tasks::Task task = blocked_conv_task(path, block);
  SuiteRow row{entry.file.substr(0, entry.file.rfind('.')) + " nchw" + std::to_string(block) + "c", "no tuning log", 0, 0,
          task.flops, 0};
  std::function<void()> onednn = entry.make_native(check::check_inputs(*single_task(path).dag, o.seed));
  std::unique_ptr<runtime::Kernel> kernel = suite_row_kernel(task, logs, backend, o, row);
  std::vector<runtime::NDArray> inputs = check::check_inputs(*task.dag, o.seed);
  std::vector<runtime::NDArray> outputs = check::poisoned_outputs(*task.dag);
  std::vector<runtime::NDArray*> args = arguments(inputs, outputs);
  if (kernel) {
    check::CheckResult cmp = check::check_against_reference(
        *task.dag, [&](const std::vector<runtime::NDArray*>& a) { kernel->pack_and_run(check::raw_pointers(a)); },
        o.seed);
    user_check(cmp.ok, "bench: the ", row.note, " kernel of ", task.name, " disagrees with the reference: ", cmp.message);
  }
  time_row(row, onednn, kernel.get(), args, o);
  return row;
}

}  // namespace

tasks::Task single_task(const std::string& path) {
  graph::Graph g = graph::simplify_graph(graph::import_onnx(path, {}));
  std::vector<tasks::Task> tasks = tasks::extract_tasks(graph::partition(g));
  user_check(tasks.size() == 1, "bench: ", path, " must make exactly one task, not ", tasks.size());
  return std::move(tasks.front());
}

void print_suite_rows(const std::vector<SuiteRow>& rows, const std::string& vendor) {
  std::printf("\n%-31s %-14s %11s %9s %11s %9s %9s %7s\n", "workload", "schedule", "tunectl ms", "GFLOP/s",
              (vendor + " ms").c_str(), "GFLOP/s", "ratio", "trials");
  for (const SuiteRow& r : rows) {
    std::printf("%-31s %-14s ", r.workload.c_str(), r.note.c_str());
    if (r.tunectl_s > 0) {
      std::printf("%11.3f %9.1f ", r.tunectl_s * 1e3, r.flops / r.tunectl_s * 1e-9);
    } else {
      std::printf("%11s %9s ", "-", "-");
    }
    std::printf("%11.3f %9.1f ", r.vendor_s * 1e3, r.flops / r.vendor_s * 1e-9);
    if (r.tunectl_s > 0) {
      std::printf("%8.2fx ", r.vendor_s / r.tunectl_s);
    } else {
      std::printf("%9s ", "-");
    }
    std::printf("%7d\n", r.trials);
  }
  std::printf("ratio = %s time / tunectl time (> 1: tunectl is faster)\n", vendor.c_str());
}

std::unique_ptr<runtime::Kernel> suite_row_kernel(const tasks::Task& task, const TuningLogs& logs,
                                                  const backend::Backend& backend, const BenchOptions& o,
                                                  SuiteRow& row) {
  if (auto it = logs.trials.find(task.workload_key); it != logs.trials.end()) row.trials = it->second;
  auto best = logs.best.find(task.workload_key);
  if (best == logs.best.end() && !o.untuned) return nullptr;
  std::vector<schedule::Step> steps;
  if (best != logs.best.end()) steps = best->second.steps;
  row.note = best != logs.best.end() ? "tuned" : "untuned";
  return backend.build(lower::lower(schedule::replay(task.dag, steps), task.name, backend.target()));
}

void run_bench_suite(const BenchOptions& o) {
  TuningLogs logs = read_tuning_logs(o.logs, o.target.empty() ? "" : backend::resolve_target(o.target).str());
  if (logs.target.empty()) logs.target = backend::resolve_target("llvm").str();
  std::shared_ptr<const backend::Backend> backend = backend::make_backend(backend::resolve_target(logs.target));
  backend->check_runs_here("bench runs");
  if (backend->builds_device_code()) return run_bench_suite_cuda(o, logs, *backend);
  std::printf("bench suite: %s against oneDNN, fp32, %d threads, median of %d repeats (caches flushed)\n",
              o.suite.c_str(), runtime::num_threads(), o.repeats);
  std::printf("tuning logs: %s (%zu files, %zu tuned workloads for %s)\n", o.logs.c_str(), logs.files,
              logs.best.size(), logs.target.c_str());
  std::vector<SuiteRow> rows;
  for (const SuiteEntry& entry : suite_entries()) {
    const std::string path = o.suite + "/" + entry.file;
    rows.push_back(bench_entry(entry, path, logs, *backend, o));
    if (entry.make_native && backend->target().kind == target::TargetKind::Llvm)
      rows.push_back(bench_blocked_entry(entry, path, logs, *backend, o));
    std::fflush(stdout);
  }
  print_suite_rows(rows, "oneDNN");
}

}  // namespace tunectl::cmd
