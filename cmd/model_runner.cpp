#include "cmd/model_runner.h"

#include <cstdio>
#include <random>

#include <CLI/CLI.hpp>

#include "graph/partition.h"
#include "graph/passes.h"
#include "ir/error.h"

namespace tunectl::cmd {

void add_layout_option(CLI::App* sub, std::string& layout) {
  sub->add_option("--layout", layout,
                  "layout of the convolutions: nchwc (channel blocks of the vector width), nchw, or auto (nchwc on "
                  "CPUs, nchw on GPUs)")
      ->check(CLI::IsMember({"auto", "nchwc", "nchw"}))
      ->capture_default_str();
}

graph::Graph load_graph(const std::string& path, const graph::ImportOptions& import_options, const std::string& layout,
                        const target::Target& target) {
  graph::Graph g = graph::simplify_graph(graph::import_onnx(path, import_options));
  bool cpu = target.kind == target::TargetKind::Llvm;
  user_check(cpu || layout != "nchwc", "--layout nchwc is for CPU targets; ", target.str(), " runs nchw");
  if (layout == "nchw" || !cpu) return g;
  return graph::block_channels(std::move(g), target.vector_lanes);
}

LoadedModel load_model(const std::string& path, const graph::ImportOptions& import_options, const std::string& layout,
                       const graph::ExecutorOptions& executor_options) {
  graph::Graph g = load_graph(path, import_options, layout, executor_options.backend->target());
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
