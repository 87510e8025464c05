#include "cmd/model_layout.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "graph/partition.h"
#include "graph/passes.h"
#include "ir/error.h"

namespace tunectl::cmd {

void add_layout_option(CLI::App* sub, std::string& layout) {
  sub->add_option("--layout", layout,
                  "layout of the convolutions: nchwc (channel blocks of the vector width), nchw, auto (on CPUs the "
                  "faster of the two as measured by tune and recorded in its log), or winograd (nchwc with the 3x3 "
                  "stride-1 convolutions by Winograd F(4x4, 3x3))")
      ->check(CLI::IsMember({"auto", "nchwc", "nchw", "winograd"}))
      ->capture_default_str();
}

std::vector<LaidOutModel> layout_candidates(graph::Graph g, const std::string& layout, const target::Target& target) {
  bool cpu = target.kind == target::TargetKind::Llvm;
  user_check(cpu || (layout != "nchwc" && layout != "winograd"), "--layout ", layout, " is for CPU targets; ",
             target.str(), " runs nchw");
  auto laid_out = [](const std::string& name, graph::Graph graph) {
    std::vector<tasks::Task> tasks = tasks::extract_tasks(graph::partition(graph));
    return LaidOutModel{name, std::move(graph), std::move(tasks)};
  };
  std::vector<LaidOutModel> out;
  if (layout == "nchw" || !cpu) {
    out.push_back(laid_out("nchw", std::move(g)));
    return out;
  }
  if (layout == "winograd") {
    out.push_back(laid_out("winograd", graph::block_channels(std::move(g), target.vector_lanes, true)));
    return out;
  }
  graph::Graph blocked = graph::block_channels(g, target.vector_lanes);
  // Blocks start at convolutions: without one the two graphs are the same.
  bool differs = std::any_of(blocked.nodes.begin(), blocked.nodes.end(),
                             [](const graph::Node& n) { return n.op_type == "ConvNCHWc"; });
  out.push_back(laid_out("nchwc", std::move(blocked)));
  if (layout == "auto" && differs) out.push_back(laid_out("nchw", std::move(g)));
  return out;
}

double logged_latency(const std::vector<tasks::Task>& tasks, const TuningLogs& logs) {
  double sum = 0;
  for (const tasks::Task& t : tasks) {
    auto it = logs.best.find(t.workload_key);
    if (it == logs.best.end()) return std::numeric_limits<double>::infinity();
    sum += t.weight * it->second.result.median_cost();
  }
  return sum;
}

LaidOutModel choose_layout(std::vector<LaidOutModel> candidates, const TuningLogs* logs) {
  internal_check(!candidates.empty(), "choose_layout: no candidate");
  if (candidates.size() == 1 || !logs) return std::move(candidates.front());
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
