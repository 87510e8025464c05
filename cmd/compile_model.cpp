// `tunectl compile MODEL --log LOG -o DIR`: a deployable compiled model. The
// model is imported, specialized and laid out as `tunectl run` does it, every
// task gets the best schedule the log holds for the target (or its default
// schedule, named), and deploy::write_model_library writes DIR/libNAME.so,
// NAME.weights, NAME.h and example.c, for a CPU or a GPU.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "backend/backend.h"
#include "cmd/model_inputs.h"
#include "cmd/model_layout.h"
#include "cmd/subcommands.h"
#include "cmd/tuning_logs.h"
#include "deploy/model_library.h"
#include "ir/error.h"

namespace tunectl::cmd {

namespace {

struct CompileModelOptions {
  std::string model;
  std::string log;
  std::string output_dir;
  std::string name;
  std::string target = "llvm";
  ModelInputOptions model_inputs;
  std::string layout = "auto";
};

void compile_model(const CompileModelOptions& o) {
  graph::ExecutorOptions executor_options;
  executor_options.backend = backend::make_backend(backend::resolve_target(o.target));
  TuningLogs logs;
  LogCoverage coverage;
  if (!o.log.empty()) {
    logs = read_tuning_logs(o.log, executor_options.backend->target().str());
    executor_options.schedule = schedules_from_log(logs, coverage);
  }
  const graph::Graph g = choose_layout(layout_candidates(specialize_model(o.model, o.model_inputs), o.layout,
                                                         executor_options.backend->target()),
                                       o.log.empty() ? nullptr : &logs)
                             .graph;
  const std::string name =
      deploy::library_name(o.name.empty() ? std::filesystem::path(o.model).stem().string() : o.name);
  const deploy::ModelLibrary lib = deploy::write_model_library(g, executor_options, name, o.output_dir);
  if (!o.log.empty())
    std::printf("tuned schedules from %s for %zu of %zu tasks; default schedules for the other %zu\n", o.log.c_str(),
                coverage.covered.size(), coverage.seen.size(), coverage.seen.size() - coverage.covered.size());
  std::printf("compiled %s for %s: %zu kernels, %zu calls per run, %.2f MiB of weights, %.2f MiB of activations\n",
              o.model.c_str(), executor_options.backend->target().str().c_str(), lib.kernels, lib.launches,
              lib.weights_bytes / 1048576.0, lib.arena_bytes / 1048576.0);
  const std::filesystem::path dir(o.output_dir);
  std::printf("wrote %s, %s, %s and %s\n", lib.library.c_str(), (dir / (name + ".weights")).string().c_str(),
              (dir / (name + ".h")).string().c_str(), (dir / "example.c").string().c_str());
}

}  // namespace

void register_compile(CLI::App& app) {
  auto o = std::make_shared<CompileModelOptions>();
  CLI::App* sub = app.add_subcommand(
      "compile", "Compile a model with its tuned schedules into a deployable library with a C API (libNAME.so)");
  sub->add_option("model", o->model, "the ONNX model")->required()->check(CLI::ExistingFile);
  sub->add_option("-o,--output-dir", o->output_dir, "the folder to write libNAME.so, NAME.weights, NAME.h, example.c")
      ->required();
  sub->add_option("--log", o->log, "a tuning log (or folder of logs): its best records schedule the tasks they cover");
  sub->add_option("--name", o->name, "NAME of the files (default: the model's file name without extension)");
  sub->add_option("--target", o->target,
                  "the target: llvm (this CPU), \"llvm -mcpu=NAME\", cuda (this GPU, or sm_90 without one) or "
                  "\"cuda -arch=sm_NN\"")
      ->capture_default_str();
  add_model_input_options(sub, o->model_inputs);
  add_layout_option(sub, o->layout);
  sub->callback([o] { compile_model(*o); });
}

}  // namespace tunectl::cmd
