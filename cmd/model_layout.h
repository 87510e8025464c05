// The layout a model's convolutions run in (--layout on tune, run, bench
// MODEL and tasks): NCHW as ONNX gives it, or channel blocks of the target's
// vector width (graph::block_channels). Neither wins everywhere (light
// ResNet-50 tuned: 38 ms blocked against 55 ms NCHW; the 32x32 small_cnn:
// 0.084 ms against 0.046 ms), so "auto" measures: `tune` tunes both layouts'
// tasks for a first share of its trials and goes on with the layout whose
// tasks are faster in sum, and run/bench pick the layout whose tasks the
// log says are faster. The layout is part of every task's DAG, so records and
// keys stay exact and the choice is a function of the model and the log.
// "winograd" is nchwc with the plain 3x3 stride-1 convolutions computed by
// Winograd F(4x4, 3x3) (fewer multiplications, more rounding), "winograd-f2"
// by F(2x2, 3x3). Under "auto" both are candidates whose tasks `tune`
// measures too, and the blocked graph then takes, convolution by
// convolution, whichever of its direct and two Winograd tasks the log has
// fastest (none wins everywhere: F(4x4)'s transformed weights are 4x larger,
// F(2x2)'s 16/9, and a 7x7 image is 8x8 in 4x4 tiles).
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "cmd/tuning_logs.h"
#include "graph/graph.h"
#include "tasks/extract.h"
#include "target/target.h"

namespace CLI {
class App;
}

namespace tunectl::cmd {

void add_layout_option(CLI::App* sub, std::string& layout);

// A model's graph in one layout, and its tasks.
struct LaidOutModel {
  std::string layout;  // "nchw", "nchwc", "winograd", "winograd-f2" or "nchwc+winograd" (some convolutions)
  graph::Graph graph;
  std::vector<tasks::Task> tasks;
  int64_t block = 0;          // the channel block; 0 in nchw
  int64_t winograd_tile = 0;  // m of "winograd" (4) and "winograd-f2" (2); 0 in the others
};

// The layouts --layout allows for the target: the one it names; for "auto"
// on a CPU target nchwc, winograd and winograd-f2 (when a convolution is
// eligible) and nchw,
// in that order, when blocking changes the graph (a model without
// convolutions to block has one graph); a GPU target's nchw.
// `g` is the model as cmd/model_inputs.h specializes it.
std::vector<LaidOutModel> layout_candidates(graph::Graph g, const std::string& layout, const target::Target& target);

// Sum over the tasks of weight x the logs' best median cost; +inf when the
// logs miss a task.
double logged_latency(const std::vector<tasks::Task>& tasks, const TuningLogs& logs);

// The candidate to compile: the only one, or (auto) the one with the lowest
// logged_latency, after nchwc and the Winograd layouts are merged into one
// graph that takes each convolution's fastest task; the first (nchwc) when no log is
// given or covers none fully. Says on stdout which layout auto chose and why.
LaidOutModel choose_layout(std::vector<LaidOutModel> candidates, const TuningLogs* logs);

}  // namespace tunectl::cmd
