#include "cmd/model_runner.h"

#include <cstdio>
#include <random>

#include "graph/partition.h"

namespace tunectl::cmd {

LoadedModel load_model(const graph::Graph& g, const graph::ExecutorOptions& executor_options) {
  std::vector<graph::Subgraph> subgraphs = graph::partition(g);
  const size_t n = subgraphs.size();
  graph::Executor executor(g, std::move(subgraphs), executor_options);
  return {std::move(g), n, std::move(executor)};
}

std::map<std::string, runtime::NDArray> random_model_inputs(const graph::Graph& g, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::map<std::string, runtime::NDArray> inputs;
  for (const auto& name : g.inputs) {
    const graph::ValueInfo& info = g.info(name);
    runtime::NDArray a(info.dtype, info.shape);
    if (ir::is_float(info.dtype)) {
      a.fill_random(rng, -1.0, 1.0);
    } else {
      a.fill_random(rng, 0.0, 2.0);  // small non-negative values stay valid indices
    }
    inputs.emplace(name, std::move(a));
  }
  return inputs;
}

void print_profile(const std::vector<graph::SubgraphTime>& times) {
  double total = 0;
  size_t width = 8;
  for (const auto& t : times) {
    total += t.seconds;
    width = std::max(width, t.name.size());
  }
  const int w = static_cast<int>(width);
  std::printf("\n%-5s %-*s %12s %8s\n", "#", w, "subgraph", "ms", "share");
  for (size_t i = 0; i < times.size(); ++i) {
    std::printf("%-5zu %-*s %12.4f %7.1f%%\n", i, w, times[i].name.c_str(), times[i].seconds * 1e3,
                total > 0 ? times[i].seconds / total * 100 : 0.0);
  }
  std::printf("%-5s %-*s %12.4f\n", "", w, "total", total * 1e3);
}

}  // namespace tunectl::cmd
