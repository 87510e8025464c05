// A deployable compiled model (`tunectl compile MODEL --log LOG -o DIR`):
//   DIR/libNAME.so   every kernel of the model (tuned where the log has a
//                    record, else the default schedule; each checked against
//                    the reference evaluator first), the model's plan (inputs,
//                    outputs, kernel calls and where their arguments live)
//                    and the runtime (lib/deploy_runtime: thread pool, C API)
//   DIR/NAME.weights the constants the kernels read, prepacked as they read
//                    them, 64-byte aligned (mapped read-only at load)
//   DIR/NAME.h       the C API (lib/deploy_runtime/tunectl_model.h)
//   DIR/example.c    a program that runs the model on .npy files
// The plan is graph::Executor::launch_plan: the library runs exactly the
// kernel calls `tunectl run` makes, on the same memory plan. For a CUDA
// target the library holds cubins, which its runtime launches through the
// driver (lib/deploy_runtime/cuda_runner.h). The library is linked by the
// system C compiler ($CC or cc).
#pragma once

#include <cstddef>
#include <string>

#include "graph/executor.h"
#include "graph/graph.h"

namespace tunectl::deploy {

struct ModelLibrary {
  std::string library;     // DIR/libNAME.so
  size_t kernels = 0;      // distinct kernels
  size_t launches = 0;     // kernel calls per run
  size_t weights_bytes = 0;
  size_t arena_bytes = 0;  // intermediate values per model instance
};

// The name of a model's files: `stem` with every character other than a
// letter, digit or '_' replaced by '_'.
std::string library_name(const std::string& stem);

// Compiles g (specialized and laid out) with options' backend and schedule
// hook into dir as above, replacing the folder whole once everything is
// written (kernels::StagedFolder: a failure leaves it as it was). UserError
// for a kernel that computes a wrong answer, a failed link, or a dir that
// holds other files.
ModelLibrary write_model_library(const graph::Graph& g, const graph::ExecutorOptions& options, const std::string& name,
                                 const std::string& dir);

}  // namespace tunectl::deploy
