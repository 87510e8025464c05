#include "cmd/model_layout.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "graph/partition.h"
#include "graph/passes.h"
#include "ir/error.h"

namespace tunectl::cmd {

void add_layout_option(CLI::App* sub, std::string& layout) {
  sub->add_option("--layout", layout,
                  "layout of the convolutions: nchwc (channel blocks of the vector width), nchw, auto (on CPUs the "
                  "faster as measured by tune and recorded in its log: nchw, or nchwc with each 3x3 stride-1 "
                  "convolution direct or by Winograd F(4x4, 3x3) or F(2x2, 3x3), whichever its task ran faster), "
                  "winograd (nchwc with every 3x3 stride-1 convolution by F(4x4, 3x3)) or winograd-f2 (by F(2x2, "
                  "3x3))")
      ->check(CLI::IsMember({"auto", "nchwc", "nchw", "winograd", "winograd-f2"}))
      ->capture_default_str();
}

namespace {

LaidOutModel laid_out(const std::string& name, graph::Graph graph, int64_t block, int64_t winograd_tile = 0) {
  std::vector<tasks::Task> tasks = tasks::extract_tasks(graph::partition(graph));
  return LaidOutModel{name, std::move(graph), std::move(tasks), block, winograd_tile};
}

bool has_op(const graph::Graph& g, const std::string& op_type) {
  return std::any_of(g.nodes.begin(), g.nodes.end(), [&](const graph::Node& n) { return n.op_type == op_type; });
}

// The blocked graph with every eligible 3x3 convolution by F(m x m, 3x3).
LaidOutModel all_winograd(const std::string& name, const graph::Graph& g, int64_t block, int64_t m) {
  return laid_out(name, graph::block_channels(g, block, [m](const graph::Node&) { return m; }), block, m);
}

// Each blocked convolution node's name -> the workload key of its task.
std::map<std::string, std::string> convolution_tasks(const LaidOutModel& m) {
  const std::vector<graph::Subgraph> subgraphs = graph::partition(m.graph);
  std::map<std::string, std::string> out;
  for (const tasks::Task& t : m.tasks)
    for (int s : t.subgraphs)
      for (int n : subgraphs[s].nodes) {
        const graph::Node& node = m.graph.nodes[n];
        if (node.op_type == "ConvNCHWc" || node.op_type == "ConvWinogradNCHWc") out[node.name] = t.workload_key;
      }
  return out;
}

// nchwc with each convolution by whichever of its direct and Winograd tasks
// (one per tile size) the log has fastest. A convolution's task holds its
// fused consumers in every graph alike, so the costs compare the same work.
LaidOutModel per_convolution(LaidOutModel direct, std::vector<LaidOutModel> winograd, const graph::Graph& model,
                             const TuningLogs& logs) {
  const std::map<std::string, std::string> direct_tasks = convolution_tasks(direct);
  std::map<std::string, double> fastest;  // convolution -> its best cost so far
  for (const auto& [conv, key] : direct_tasks) fastest[conv] = best_cost(logs, key);
  std::map<std::string, int64_t> tile;  // the convolutions by Winograd -> m
  std::set<std::string> eligible;
  for (const LaidOutModel& w : winograd)
    for (const auto& [conv, key] : convolution_tasks(w)) {
      if (key == direct_tasks.at(conv)) continue;  // the same direct task in both
      eligible.insert(conv);
      if (double cost = best_cost(logs, key); cost < fastest.at(conv)) {
        fastest[conv] = cost;
        tile[conv] = w.winograd_tile;
      }
    }
  std::map<int64_t, int> by_tile;
  for (const auto& [conv, m] : tile) ++by_tile[m];
  std::string split;
  for (auto it = by_tile.rbegin(); it != by_tile.rend(); ++it)
    split += (split.empty() ? "" : ", ") + std::to_string(it->second) + " by F(" + std::to_string(it->first) + "x" +
             std::to_string(it->first) + ")";
  std::printf("layout auto: Winograd for %zu of %zu 3x3 stride-1 convolutions (%s%stheir tasks faster in the log)\n",
              tile.size(), eligible.size(), split.c_str(), split.empty() ? "" : "; ");
  if (tile.empty()) return direct;
  for (LaidOutModel& w : winograd)
    if (by_tile.size() == 1 && by_tile.begin()->first == w.winograd_tile &&
        static_cast<size_t>(by_tile.begin()->second) == eligible.size())
      return std::move(w);
  return laid_out("nchwc+winograd", graph::block_channels(model, direct.block, [&](const graph::Node& n) {
                    auto it = tile.find(n.name);
                    return it == tile.end() ? int64_t{0} : it->second;
                  }), direct.block);
}

}  // namespace

std::vector<LaidOutModel> layout_candidates(graph::Graph g, const std::string& layout, const target::Target& target) {
  bool cpu = target.kind == target::TargetKind::Llvm;
  user_check(cpu || layout == "nchw" || layout == "auto", "--layout ", layout, " is for CPU targets; ", target.str(),
             " runs nchw");
  const int64_t block = target.vector_lanes;
  std::vector<LaidOutModel> out;
  if (!cpu) {
    out.push_back(laid_out("nchw", graph::store_split_inputs(std::move(g)), 0));
    return out;
  }
  if (layout == "nchw") {
    out.push_back(laid_out("nchw", std::move(g), 0));
    return out;
  }
  if (layout == "winograd" || layout == "winograd-f2") {
    out.push_back(all_winograd(layout, g, block, layout == "winograd" ? 4 : 2));
    return out;
  }
  graph::Graph blocked = graph::block_channels(g, block);
  // Blocks start at convolutions: without one the two graphs are the same.
  bool differs = has_op(blocked, "ConvNCHWc");
  out.push_back(laid_out("nchwc", std::move(blocked), block));
  if (layout != "auto" || !differs) return out;
  LaidOutModel f4 = all_winograd("winograd", g, block, 4);
  if (has_op(f4.graph, "ConvWinogradNCHWc")) {
    out.push_back(std::move(f4));
    out.push_back(all_winograd("winograd-f2", g, block, 2));
  }
  out.push_back(laid_out("nchw", std::move(g), 0));
  return out;
}

double logged_latency(const std::vector<tasks::Task>& tasks, const TuningLogs& logs) {
  double sum = 0;
  for (const tasks::Task& t : tasks) sum += t.weight * best_cost(logs, t.workload_key);
  return sum;
}

LaidOutModel choose_layout(std::vector<LaidOutModel> candidates, const TuningLogs* logs) {
  internal_check(!candidates.empty(), "choose_layout: no candidate");
  if (candidates.size() == 1 || !logs) return std::move(candidates.front());
  // nchwc and the Winograd layouts become one candidate, chosen convolution
  // by convolution; nchw (the model's own graph) is last.
  if (candidates.size() > 2 && candidates[1].winograd_tile != 0) {
    std::vector<LaidOutModel> winograd(std::make_move_iterator(candidates.begin() + 1),
                                       std::make_move_iterator(candidates.end() - 1));
    LaidOutModel mixed = per_convolution(std::move(candidates[0]), std::move(winograd), candidates.back().graph, *logs);
    candidates.erase(candidates.begin(), candidates.end() - 1);
    candidates.insert(candidates.begin(), std::move(mixed));
  }
  size_t best = 0;
  std::vector<double> latency;
  for (const LaidOutModel& c : candidates) latency.push_back(logged_latency(c.tasks, *logs));
  for (size_t i = 1; i < candidates.size(); ++i)
    if (latency[i] < latency[best]) best = i;
  std::string why;
  for (size_t i = 0; i < candidates.size(); ++i) {
    char line[96];
    if (std::isfinite(latency[i])) {
      std::snprintf(line, sizeof line, "%s%s %.4g ms", why.empty() ? "" : ", ", candidates[i].layout.c_str(),
                    latency[i] * 1e3);
    } else {
      std::snprintf(line, sizeof line, "%s%s not covered", why.empty() ? "" : ", ", candidates[i].layout.c_str());
    }
    why += line;
  }
  std::printf("layout %s (auto; the log's sum of weight x best: %s)\n", candidates[best].layout.c_str(), why.c_str());
  return std::move(candidates[best]);
}

}  // namespace tunectl::cmd
