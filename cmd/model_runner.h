// What the model commands (run, bench, tune, tasks) share: an ONNX file
// through import and graph passes into the graph they compile for a target
// (in the layout --layout asks), a ready graph::Executor, random inputs for
// benchmarking, and the per-subgraph time table of --profile.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph/executor.h"
#include "graph/import.h"
#include "target/target.h"

namespace CLI {
class App;
}

namespace tunectl::cmd {

// --layout: the layout the model's convolutions run in. "nchwc": blocks of
// the target's vector width (graph::block_channels; CPU targets only);
// "nchw": the ONNX layout; "auto": nchwc on CPU targets, nchw on CUDA ones.
void add_layout_option(CLI::App* sub, std::string& layout);

// The model imported, simplified and laid out for the target.
graph::Graph load_graph(const std::string& path, const graph::ImportOptions& import_options, const std::string& layout,
                        const target::Target& target);

struct LoadedModel {
  graph::Graph graph;  // simplified; the executor holds its own copy
  size_t num_subgraphs = 0;
  graph::Executor executor;
};

// load_graph for the executor's backend's target, partitioned and compiled.
LoadedModel load_model(const std::string& path, const graph::ImportOptions& import_options, const std::string& layout,
                       const graph::ExecutorOptions& executor_options);

// Seeded uniform values in [-1, 1) (integers and bools: 0 and 1) for every graph input.
std::map<std::string, runtime::NDArray> random_model_inputs(const graph::Graph& g, uint64_t seed);

// One row per subgraph (name, ms, share of the total) and the total.
void print_profile(const std::vector<graph::SubgraphTime>& times);

}  // namespace tunectl::cmd
