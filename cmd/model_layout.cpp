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
                  "convolution direct or by Winograd F(4x4, 3x3), whichever its task ran faster), or winograd "
                  "(nchwc with every 3x3 stride-1 convolution by Winograd)")
      ->check(CLI::IsMember({"auto", "nchwc", "nchw", "winograd"}))
      ->capture_default_str();
}

namespace {

LaidOutModel laid_out(const std::string& name, graph::Graph graph, int64_t block) {
  std::vector<tasks::Task> tasks = tasks::extract_tasks(graph::partition(graph));
  return LaidOutModel{name, std::move(graph), std::move(tasks), block};
}

bool every_eligible(const graph::Node&) { return true; }

bool has_op(const graph::Graph& g, const std::string& op_type) {
  return std::any_of(g.nodes.begin(), g.nodes.end(), [&](const graph::Node& n) { return n.op_type == op_type; });
}

double best_cost(const TuningLogs& logs, const std::string& key) {
  auto it = logs.best.find(key);
  return it == logs.best.end() ? std::numeric_limits<double>::infinity() : it->second.result.median_cost();
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

// nchwc with Winograd for the convolutions whose Winograd task the log has
// faster than their direct one. A convolution's task holds its fused
// consumers in both graphs alike, so the two costs compare the same work.
LaidOutModel per_convolution(LaidOutModel direct, LaidOutModel winograd, const graph::Graph& model,
                             const TuningLogs& logs) {
  const std::map<std::string, std::string> direct_tasks = convolution_tasks(direct);
  std::set<std::string> faster;
  size_t eligible = 0;
  for (const auto& [conv, key] : convolution_tasks(winograd)) {
    if (key == direct_tasks.at(conv)) continue;  // the same direct task in both
    ++eligible;
    if (best_cost(logs, key) < best_cost(logs, direct_tasks.at(conv))) faster.insert(conv);
  }
  std::printf("layout auto: Winograd for %zu of %zu 3x3 stride-1 convolutions (their tasks faster in the log)\n",
              faster.size(), eligible);
  if (faster.empty()) return direct;
  if (faster.size() == eligible) return winograd;
  return laid_out("nchwc+winograd", graph::block_channels(model, direct.block, [&](const graph::Node& n) {
                    return faster.count(n.name) > 0;
                  }), direct.block);
}

}  // namespace

std::vector<LaidOutModel> layout_candidates(graph::Graph g, const std::string& layout, const target::Target& target) {
  bool cpu = target.kind == target::TargetKind::Llvm;
  user_check(cpu || (layout != "nchwc" && layout != "winograd"), "--layout ", layout, " is for CPU targets; ",
             target.str(), " runs nchw");
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
  if (layout == "winograd") {
    out.push_back(laid_out("winograd", graph::block_channels(std::move(g), block, every_eligible), block));
    return out;
  }
  graph::Graph blocked = graph::block_channels(g, block);
  // Blocks start at convolutions: without one the two graphs are the same.
  bool differs = has_op(blocked, "ConvNCHWc");
  out.push_back(laid_out("nchwc", std::move(blocked), block));
  if (layout != "auto" || !differs) return out;
  graph::Graph winograd = graph::block_channels(g, block, every_eligible);
  if (has_op(winograd, "ConvWinogradNCHWc")) out.push_back(laid_out("winograd", std::move(winograd), block));
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
  // nchwc and winograd become one candidate, chosen convolution by
  // convolution; nchw (the model's own graph) is last.
  if (candidates.size() == 3 && candidates[1].layout == "winograd") {
    LaidOutModel mixed = per_convolution(std::move(candidates[0]), std::move(candidates[1]), candidates[2].graph, *logs);
    candidates.erase(candidates.begin(), candidates.begin() + 2);
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
