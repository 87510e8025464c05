// graph::executor: runs a whole partitioned model with one
// compiled kernel per subgraph (the default schedule of its task unless a
// schedule is supplied, e.g. from a tuning log), a memory plan that reuses
// intermediate buffers whose lifetimes do not overlap, and named inputs and
// outputs. Constants a kernel takes prepacked are packed once, when the
// executor is built. Kernels that run on a device (a GPU) keep the whole
// model there: constants uploaded once, intermediates in a device arena,
// kernels queued back to back on one stream (recorded once as a CUDA
// graph and replayed by each run), only inputs and outputs copied per run.
// Optionally times every subgraph.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "graph/graph.h"
#include "graph/partition.h"
#include "runtime/ndarray.h"
#include "runtime/timer.h"
#include "schedule/state.h"

namespace tunectl::graph {

struct ExecutorOptions {
  // Builds the kernels; default: the host CPU ("llvm").
  std::shared_ptr<const backend::Backend> backend;
  // The schedule of each subgraph's DAG; where it is null or gives nullopt,
  // the backend's default_schedule.
  std::function<std::optional<schedule::State>(const std::shared_ptr<const te::ComputeDAG>&)> schedule;
  bool profile = false;  // time every subgraph on each run
  // Run every kernel in the backend's emulator (backend::emulated_kernel):
  // a target's code where this machine cannot run it.
  bool emulate = false;
  // On a device that can (a GPU: runtime::DeviceMemory::capture), record
  // the model's launches once as one CUDA graph and replay it on each run;
  // false launches the kernels one by one. A profiled run never records.
  bool launch_graph = true;
};

struct SubgraphTime {
  std::string name;
  double seconds = 0;  // the median over the profiled runs
};

// Where one argument of a kernel call lives (Executor::launch_plan).
struct ArgSource {
  enum class Kind : uint8_t { Input, Constant, Packed, Arena };
  Kind kind = Kind::Arena;
  std::string value;  // the graph value (for Packed: the constant it was packed from)
  size_t offset = 0;  // Arena: the byte offset of the value in the arena
  const runtime::NDArray* packed = nullptr;  // Packed: the constant as the kernel takes it, packed once
};

// One kernel call of a model run, in run order.
struct PlannedLaunch {
  std::string workload_key;
  std::vector<ArgSource> args;  // in LoweredFunc::args order
};

// The symbol of the kernel the executor builds for a subgraph (the first of
// its workload key): "sg_" and the name, anything odd replaced.
std::string subgraph_kernel_symbol(const std::string& subgraph_name);

class Executor {
 public:
  // Compiles every subgraph (kernels shared between subgraphs with one workload key).
  Executor(Graph graph, std::vector<Subgraph> subgraphs, ExecutorOptions options = {});
  ~Executor();
  Executor(Executor&&) noexcept;

  // inputs by graph input name; UserError for a missing, extra or misshapen input.
  std::map<std::string, runtime::NDArray> run(const std::map<std::string, runtime::NDArray>& inputs);
  // Each subgraph's median time over the runs so far (ExecutorOptions::profile).
  std::vector<SubgraphTime> profile() const;
  // Each subgraph's kernel timed alone, after a run on `inputs`, in run
  // order (so each reads the values it reads in a run): repeats of
  // `timing` (its flush limited to the kernel's constants, prepacked copies
  // included, runtime::flushing_only), as the tuner times a candidate; the
  // median of each. Against a run's time, what is lost between kernels in
  // this process now, free of how the machine ran when the log was made.
  // Host kernels only (InternalError on a device).
  std::vector<SubgraphTime> time_kernels_alone(const std::map<std::string, runtime::NDArray>& inputs,
                                               const runtime::TimingOptions& timing);
  // The subgraphs, in the order they run (their DAGs name their workload keys).
  const std::vector<Subgraph>& subgraphs() const;
  // What a run does, for a deployed model (deploy/) to do the same without
  // tunectl: every kernel call with its arguments' homes, and the arena
  // offsets of the graph outputs. Valid while the executor lives; host
  // kernels only (InternalError on a device).
  std::vector<PlannedLaunch> launch_plan() const;
  size_t arena_offset(const std::string& value) const;  // InternalError unless it lives in the arena
  // Bytes of intermediate memory after buffer reuse, and without reuse.
  size_t planned_bytes() const;
  size_t unplanned_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tunectl::graph
