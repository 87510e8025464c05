// `tunectl run MODEL.onnx --input NAME=FILE.pb ... --output-dir DIR`: runs a
// whole model once with one compiled kernel per subgraph (default schedules,
// or with --log the tuned schedules of the log's best records) and writes
// every graph output to DIR/<output name>.pb. Inputs come from
// ONNX TensorProto files or, as NAME=raw:FILE, from bare little-endian data
// in the dtype and shape the model gives the input.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "cmd/model_inputs.h"
#include "cmd/model_layout.h"
#include "cmd/model_runner.h"
#include "cmd/subcommands.h"
#include "cmd/tuning_logs.h"
#include "graph/tensor_proto.h"
#include "ir/error.h"
#include "ir/printer.h"

namespace tunectl::cmd {

namespace {

struct RunOptions {
  std::string model;
  std::vector<std::string> inputs;  // NAME=FILE.pb or NAME=raw:FILE
  ModelInputOptions model_inputs;
  std::string output_dir;
  std::string target = "llvm";
  std::string log;  // tuning log or folder: its best records schedule the subgraphs they cover
  std::string layout = "auto";
  bool profile = false;
  bool emulate = false;
};

bool is_graph_input(const graph::Graph& g, const std::string& name) {
  return std::find(g.inputs.begin(), g.inputs.end(), name) != g.inputs.end();
}

std::map<std::string, runtime::NDArray> read_inputs(const graph::Graph& g, const std::vector<std::string>& specs) {
  std::map<std::string, runtime::NDArray> inputs;
  for (const auto& spec : specs) {
    const size_t eq = spec.find('=');
    user_check(eq != std::string::npos && eq > 0 && eq + 1 < spec.size(), "--input '", spec,
               "': expected NAME=FILE.pb or NAME=raw:FILE");
    const std::string name = spec.substr(0, eq);
    const std::string file = spec.substr(eq + 1);
    user_check(!inputs.count(name), "--input '", name, "' is given twice");
    if (file.rfind("raw:", 0) == 0) {
      // A raw file has no shape of its own: it takes the model's.
      user_check(is_graph_input(g, name), "--input '", name, "': the model has no input of that name");
      const graph::ValueInfo& info = g.info(name);
      inputs.emplace(name, graph::read_raw_tensor(file.substr(4), info.dtype, info.shape));
    } else {
      inputs.emplace(name, graph::read_tensor_pb(file).value);
    }
  }
  return inputs;
}

// Output names may hold characters a file name cannot ("/" in TF exports).
std::string file_name_for(const std::string& value) {
  std::string s = value;
  for (char& c : s)
    if (c == '/' || c == '\\' || c == ':') c = '_';
  return s + ".pb";
}

void print_output(const std::string& name, const runtime::NDArray& value) {
  std::printf("%s %s %s:", name.c_str(), std::string(ir::to_string(value.dtype())).c_str(),
              ir::shape_to_string(value.shape()).c_str());
  const int64_t shown = std::min<int64_t>(value.num_elements(), 6);
  for (int64_t i = 0; i < shown; ++i) std::printf(" %.6g", value.get(i));
  if (value.num_elements() > shown) std::printf(" ...");
  std::printf("\n");
}

void run_model(const RunOptions& o) {
  const graph::ImportOptions import_options = o.model_inputs.import_options();
  const graph::Graph imported = graph::import_onnx(o.model, import_options);
  // Read every input before compiling: a bad file fails fast, and the values
  // of inputs that decide shapes specialize the model.
  const graph::InputValues inputs = read_inputs(imported, o.inputs);
  graph::ExecutorOptions executor_options;
  executor_options.backend = backend::make_backend(backend::resolve_target(o.target));
  if (!o.emulate) executor_options.backend->check_runs_here("run runs");
  executor_options.profile = o.profile;
  executor_options.emulate = o.emulate;
  TuningLogs logs;
  LogCoverage coverage;
  if (!o.log.empty()) {
    logs = read_tuning_logs(o.log, executor_options.backend->target().str());
    executor_options.schedule = schedules_from_log(logs, coverage);
  }
  graph::Graph g = choose_layout(layout_candidates(specialize_model(imported, import_options, inputs), o.layout,
                                                   executor_options.backend->target()),
                                 o.log.empty() ? nullptr : &logs)
                      .graph;
  LoadedModel m = load_model(g, executor_options);
  if (!o.log.empty())
    std::printf("tuned schedules from %s for %zu of %zu tasks\n", o.log.c_str(), coverage.covered.size(),
                coverage.seen.size());
  // Inputs the model was specialized on are no longer its inputs.
  graph::InputValues feed;
  for (const auto& [name, value] : inputs)
    if (is_graph_input(m.graph, name) || !is_graph_input(imported, name)) feed.emplace(name, value);
  std::map<std::string, runtime::NDArray> outputs = m.executor.run(feed);

  std::error_code ec;
  std::filesystem::create_directories(o.output_dir, ec);
  if (ec) system_fail("cannot create the output folder", "mkdir", o.output_dir, ec.message());
  for (const auto& name : m.graph.outputs) {
    const runtime::NDArray& value = outputs.at(name);
    graph::write_tensor_pb((std::filesystem::path(o.output_dir) / file_name_for(name)).string(), name, value);
    print_output(name, value);
  }
  if (o.profile) print_profile(m.executor.profile());
}

}  // namespace

void register_run(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand("run", "Run a whole ONNX model with compiled kernels (default or tuned schedules)");
  sub->add_option("model", options->model, "the ONNX model")->required();
  sub->add_option("--input", options->inputs, "NAME=FILE.pb (ONNX TensorProto) or NAME=raw:FILE; repeatable");
  add_model_input_options(sub, options->model_inputs);
  sub->add_option("--target", options->target, "code generation target: llvm (this CPU), \"llvm -mcpu=NAME\", cuda, \"cuda -arch=sm_80\", ...")
      ->capture_default_str();
  sub->add_option("--output-dir", options->output_dir, "where to write <output name>.pb files")->required();
  sub->add_option("--log", options->log, "a tuning log (or folder of logs): its best records schedule the tasks they cover");
  add_layout_option(sub, options->layout);
  sub->add_flag("--profile", options->profile, "print the time of every subgraph");
  sub->add_flag("--emulate", options->emulate,
                "run every kernel in the target's emulator on this CPU (the GPU emulator for cuda): slow, but needs "
                "no device");
  sub->callback([options] { run_model(*options); });
}

}  // namespace tunectl::cmd
