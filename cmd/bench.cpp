// `tunectl bench`: speed of generated kernels in one process, side by side
// with what they are measured against. Three modes, one file each:
//   tunectl bench [--logs DIR] [--untuned]   the suite (cmd/bench_suite.cpp):
//       tuned kernels of the bench models against oneDNN
//   tunectl bench --core [--size N]          hand-scheduled matmul rows
//       (cmd/bench_core.cpp), what scripts/bench-core.sh runs; with
//       --target cuda against cuBLAS (cmd/bench_core_cuda.cpp)
//   tunectl bench MODEL [--log FILE]         a whole ONNX model end to end,
//       default against tuned schedules (cmd/bench_model.cpp)
// This file registers the command and the timing summary the modes share.
#include "cmd/bench.h"

#include <cstdio>
#include <memory>

#include "cmd/model_layout.h"
#include "cmd/subcommands.h"
#include "ir/error.h"

namespace tunectl::cmd {

std::string timing_summary(const runtime::Timing& t) {
  char text[160];
  std::snprintf(text, sizeof text, "median %.3f ms, min..max %.3f..%.3f ms (spread %.1f%%)", t.median() * 1e3,
                t.min() * 1e3, t.max() * 1e3, (t.max() - t.min()) / t.median() * 100);
  return text;
}

void register_bench(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* sub = app.add_subcommand(
      "bench",
      "Benchmark tuned kernels against oneDNN (the bench suite), or a whole ONNX MODEL with and without a log");
  sub->add_option("model", o->model, "an ONNX model: end-to-end latency with default and (with --log) tuned schedules");
  sub->add_option("--repeats", o->repeats, "timed repeats; the median is reported")->check(CLI::Range(1, 1000));
  sub->add_option("--target", o->target,
                  "code generation target: llvm (this CPU), \"llvm -mcpu=NAME\", cuda, ... (default: the suite's logs' "
                  "target for the suite, llvm otherwise)");
  sub->add_option("--logs", o->logs,
                  "suite: a folder of tuning logs (*.json, *.jsonl) or one log file (default: tuning_logs of the "
                  "working directory)");
  sub->add_option("--suite", o->suite,
                  "suite: the folder of the suite's models (default: models/bench of the working directory)");
  sub->add_flag("--untuned", o->untuned, "suite: time the default schedule of a workload the logs do not cover");
  sub->add_option("--seed", o->seed, "suite: seed of the random inputs given to tunectl and oneDNN");
  sub->add_flag("--core", o->core,
                "hand-scheduled fp32 matmul rows (naive, hand schedule, oneDNN; with a cuda target: a hand GPU "
                "schedule and cuBLAS) instead of the suite");
  sub->add_option("--size", o->size, "--core: matmul size M = N = K (multiple of 32; of 128 with a cuda target)");
  sub->add_option("--log", o->log, "model: a tuning log; its best records give the tuned schedules");
  sub->add_option("--against", o->against,
                  "model: a second tuning log; its tuned model is timed in the same rounds as --log's and the two "
                  "are compared round by round (how many rounds each won, the median ratio, its 95% interval)");
  add_model_input_options(sub, o->model_inputs, "model: ");
  sub->add_flag("--profile", o->profile, "model: print the time of every subgraph (its median over the runs)");
  sub->add_flag("--tuned-only", o->tuned_only, "model: time the log's tuned schedules alone, not the defaults");
  sub->add_flag("--no-cuda-graph{false}", o->launch_graph,
                "model, cuda: launch the kernels one by one instead of replaying them as one CUDA graph");
  add_layout_option(sub, o->layout);
  sub->callback([o] {
    if (!o->model.empty() || o->core) {
      o->backend = backend::make_backend(backend::resolve_target(o->target.empty() ? "llvm" : o->target));
      o->backend->check_runs_here("bench runs");
    }
    if (o->model.empty()) {
      user_check(o->model_inputs.empty() && !o->profile && o->log.empty() && o->against.empty() && !o->tuned_only &&
                     o->launch_graph,
                 "bench: --input-shape, --bind, --profile, --log, --against, --tuned-only and --no-cuda-graph need a "
                 "MODEL");
      if (o->core) {
        // A target whose kernels run on a device compares with its vendor library.
        o->backend->builds_device_code() ? run_bench_core_cuda(*o) : run_bench_core(*o);
      } else {
        run_bench_suite(*o);
      }
    } else {
      user_check(!o->core && !o->untuned, "bench: --core and --untuned do not take a MODEL");
      run_bench_model(*o);
    }
  });
}

}  // namespace tunectl::cmd
