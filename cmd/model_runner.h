// What `tunectl run` and `tunectl bench MODEL` share: a model's graph (laid
// out by model_layout.h) partitioned into a ready graph::Executor, random
// inputs for benchmarking, and the per-subgraph time table of --profile.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph/executor.h"

namespace tunectl::cmd {

struct LoadedModel {
  graph::Graph graph;  // simplified; the executor holds its own copy
  size_t num_subgraphs = 0;
  graph::Executor executor;
};

// The graph partitioned and compiled.
LoadedModel load_model(const graph::Graph& g, const graph::ExecutorOptions& executor_options);

// Seeded uniform values in [-1, 1) (integers and bools: 0 and 1) for every graph input.
std::map<std::string, runtime::NDArray> random_model_inputs(const graph::Graph& g, uint64_t seed);

// One row per subgraph (name, ms, share of the total) and the total; given
// the subgraphs' kernels timed alone (Executor::time_kernels_alone), also
// those times and the ratio in the model / alone.
void print_profile(const std::vector<graph::SubgraphTime>& times, const std::vector<graph::SubgraphTime>& alone = {});

}  // namespace tunectl::cmd
