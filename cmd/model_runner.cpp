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

void print_profile(const std::vector<graph::SubgraphTime>& times, const std::vector<graph::SubgraphTime>& alone) {
  double total = 0, total_alone = 0;
  size_t width = 8;
  for (const auto& t : times) {
    total += t.seconds;
    width = std::max(width, t.name.size());
  }
  for (const auto& t : alone) total_alone += t.seconds;
  const bool with_alone = alone.size() == times.size() && !alone.empty();
  const int w = static_cast<int>(width);
  std::printf("\n%-5s %-*s %12s %8s", "#", w, "subgraph", "ms", "share");
  if (with_alone) std::printf(" %12s %9s", "alone ms", "in model");
  std::printf("\n");
  for (size_t i = 0; i < times.size(); ++i) {
    std::printf("%-5zu %-*s %12.4f %7.1f%%", i, w, times[i].name.c_str(), times[i].seconds * 1e3,
                total > 0 ? times[i].seconds / total * 100 : 0.0);
    if (with_alone) std::printf(" %12.4f %8.2fx", alone[i].seconds * 1e3, times[i].seconds / alone[i].seconds);
    std::printf("\n");
  }
  std::printf("%-5s %-*s %12.4f", "", w, "total", total * 1e3);
  if (with_alone) std::printf(" %8s %12.4f %8.2fx", "", total_alone * 1e3, total / total_alone);
  std::printf("\n");
}

}  // namespace tunectl::cmd
