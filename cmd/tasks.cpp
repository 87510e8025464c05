// `tunectl tasks`: what tuning a model would work on. Imports the ONNX file,
// simplifies and partitions the graph, extracts the tasks and prints them as
// a table (or JSON): one row per unique subgraph with its shapes, how often
// the model runs it, and its GFLOP per call.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/backend.h"
#include "cmd/model_inputs.h"
#include "cmd/model_layout.h"
#include "cmd/subcommands.h"
#include "graph/concat_views.h"
#include "graph/partition.h"
#include "ir/printer.h"
#include "tasks/extract.h"

namespace tunectl::cmd {

namespace {

struct TasksOptions {
  std::string model;
  ModelInputOptions model_inputs;
  std::string target = "llvm";
  std::string layout = "auto";
  bool json = false;
};

// Shapes as the table prints them; JSON gets the dimensions as numbers.
std::vector<std::string> shapes_of(const std::vector<te::Tensor>& tensors) {
  std::vector<std::string> out;
  for (const te::Tensor& t : tensors) out.push_back(ir::shape_to_string(t->shape()));
  return out;
}

std::vector<std::vector<int64_t>> dims_of(const std::vector<te::Tensor>& tensors) {
  std::vector<std::vector<int64_t>> out;
  for (const te::Tensor& t : tensors) out.push_back(t->shape());
  return out;
}

std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s;
}

void print_table(const std::vector<tasks::Task>& tasks, size_t subgraphs, size_t concats_in_place) {
  // Columns as wide as their longest entry (GPT-2's split projection).
  std::vector<std::string> shapes;
  int name_width = 32, shapes_width = 60;
  for (const tasks::Task& t : tasks) {
    shapes.push_back(join(shapes_of(t.dag->placeholders())) + " -> " + join(shapes_of(t.dag->outputs())));
    name_width = std::max(name_width, static_cast<int>(t.name.size()));
    shapes_width = std::max(shapes_width, static_cast<int>(shapes.back().size()));
  }
  std::printf("%4s  %-*s  %-*s  %6s  %10s  %12s\n", "#", name_width, "name", shapes_width, "inputs -> outputs",
              "weight", "GFLOP/call", "weight*GFLOP");
  double total = 0;
  int total_weight = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const tasks::Task& t = tasks[i];
    double gflop = t.flops / 1e9;
    std::printf("%4zu  %-*s  %-*s  %6d  %10.4f  %12.4f\n", i, name_width, t.name.c_str(), shapes_width,
                shapes[i].c_str(), t.weight, gflop, gflop * t.weight);
    total += gflop * t.weight;
    total_weight += t.weight;
  }
  std::printf("total: %zu tasks, %zu subgraphs (sum of weights %d), %.4f GFLOP per model run\n", tasks.size(),
              subgraphs, total_weight, total);
  if (concats_in_place > 0)
    std::printf("%zu Concat%s computed in place: no kernel, their inputs written into their output\n", concats_in_place,
                concats_in_place == 1 ? "" : "s");
}

nlohmann::ordered_json to_json(const std::vector<tasks::Task>& tasks) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (size_t i = 0; i < tasks.size(); ++i) {
    const tasks::Task& t = tasks[i];
    out.push_back({{"index", i},
                   {"name", t.name},
                   {"workload_key", t.workload_key},
                   {"inputs", dims_of(t.dag->placeholders())},
                   {"outputs", dims_of(t.dag->outputs())},
                   {"weight", t.weight},
                   {"gflop", t.flops / 1e9},
                   {"weighted_gflop", t.flops / 1e9 * t.weight}});
  }
  return out;
}

void run_tasks(const TasksOptions& o) {
  graph::Graph g = choose_layout(layout_candidates(specialize_model(o.model, o.model_inputs), o.layout,
                                                   backend::resolve_target(o.target)),
                                 nullptr)
                      .graph;
  std::vector<graph::Subgraph> subgraphs = graph::partition(g);
  std::vector<tasks::Task> tasks = tasks::extract_tasks(subgraphs);
  if (o.json) {
    std::printf("%s\n", to_json(tasks).dump(2).c_str());
  } else {
    print_table(tasks, subgraphs.size(), graph::concat_views(g).size());
  }
}

}  // namespace

void register_tasks(CLI::App& app) {
  auto o = std::make_shared<TasksOptions>();
  CLI::App* sub = app.add_subcommand("tasks", "List the tuning tasks of an ONNX model (unique fused subgraphs)");
  sub->add_option("model", o->model, "ONNX model file")->required();
  add_model_input_options(sub, o->model_inputs);
  sub->add_option("--target", o->target, "the target the tasks are for (it sets the layout's block)")->capture_default_str();
  add_layout_option(sub, o->layout);
  sub->add_flag("--json", o->json, "Print a JSON array instead of a table");
  sub->callback([o] { run_tasks(*o); });
}

}  // namespace tunectl::cmd
