// `tunectl run MODEL.onnx --input NAME=FILE.pb ... --output-dir DIR`: runs a
// whole model once with one compiled kernel per subgraph (default schedules,
// or with --log the tuned schedules of the log's best records, naming the
// tasks the log does not cover) and writes every graph output to
// DIR/<output name>.pb or .npy. Inputs come from ONNX TensorProto files,
// NumPy .npy files or, as NAME=raw:FILE, from bare little-endian data in the
// dtype and shape the model gives the input; with --seed, the inputs not
// given are seeded random values. --repeat N then times N more runs.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <spdlog/fmt/ranges.h>

#include "backend/backend.h"
#include "cmd/model_inputs.h"
#include "cmd/model_layout.h"
#include "cmd/model_runner.h"
#include "cmd/subcommands.h"
#include "cmd/tuning_logs.h"
#include "graph/npy.h"
#include "graph/passes.h"
#include "graph/tensor_proto.h"
#include "ir/error.h"
#include "ir/printer.h"
#include "runtime/timer.h"

namespace tunectl::cmd {

namespace {

struct RunOptions {
  std::string model;
  std::vector<std::string> inputs;  // NAME=FILE.pb, NAME=FILE.npy or NAME=raw:FILE
  std::optional<uint64_t> seed;     // random values for the inputs not given
  ModelInputOptions model_inputs;
  std::string output_dir;
  std::string output_format = "auto";  // pb, npy, or auto: npy when an input is a .npy file
  std::string expected_dir;  // compare the outputs with the files there
  std::string save_inputs_dir;  // write the inputs run on there, as .npy
  int repeat = 0;
  std::string target = "llvm";
  std::string log;  // tuning log or folder: its best records schedule the subgraphs they cover
  std::string layout = "auto";
  bool profile = false;
  bool emulate = false;
};

bool is_graph_input(const graph::Graph& g, const std::string& name) {
  return std::find(g.inputs.begin(), g.inputs.end(), name) != g.inputs.end();
}

bool is_npy(const std::string& file) { return std::filesystem::path(file).extension() == ".npy"; }

// The values --input gives: tensors, and the sequences and optionals the
// model takes (ONNX SequenceProto / OptionalProto files).
struct GivenInputs {
  graph::InputValues tensors;
  std::map<std::string, graph::CompositeValue> containers;
  bool has(const std::string& name) const { return tensors.count(name) || containers.count(name); }
};

// The container input a bare FILE.pb holds, by the name the file gives, or "".
std::string container_named_by(const graph::Graph& g, const std::string& file) {
  for (const std::string& in : g.inputs) {
    const graph::ValueKind kind = g.info(in).kind;
    if (kind != graph::ValueKind::Tensor && graph::composite_pb_name(file, kind) == in) return in;
  }
  return "";
}

GivenInputs read_inputs(const graph::Graph& g, const std::vector<std::string>& specs) {
  GivenInputs given;
  for (const auto& spec : specs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos && std::filesystem::path(spec).extension() == ".pb") {
      // The file names its value, as ONNX's test data does.
      if (const std::string name = container_named_by(g, spec); !name.empty()) {
        user_check(!given.has(name), "--input '", name, "' is given twice");
        given.containers.emplace(name, graph::read_composite_pb(spec, g.info(name).kind).value);
        continue;
      }
      graph::NamedTensor t = graph::read_tensor_pb(spec);
      user_check(!t.name.empty(), "--input '", spec, "': the tensor in it has no name; give one as NAME=", spec);
      user_check(!given.has(t.name), "--input '", t.name, "' is given twice");
      given.tensors.emplace(t.name, std::move(t.value));
      continue;
    }
    user_check(eq != std::string::npos && eq > 0 && eq + 1 < spec.size(), "--input '", spec,
               "': expected NAME=FILE.pb, NAME=FILE.npy, NAME=raw:FILE or a FILE.pb that names its tensor");
    const std::string name = spec.substr(0, eq);
    const std::string file = spec.substr(eq + 1);
    user_check(!given.has(name), "--input '", name, "' is given twice");
    if (is_graph_input(g, name) && g.info(name).kind != graph::ValueKind::Tensor) {
      const graph::ValueKind kind = g.info(name).kind;
      user_check(std::filesystem::path(file).extension() == ".pb", "--input '", name, "': the input is ",
                 graph::describe(kind), "; give it as an ONNX ",
                 kind == graph::ValueKind::Sequence ? "SequenceProto" : "OptionalProto", " file (.pb)");
      given.containers.emplace(name, graph::read_composite_pb(file, kind).value);
    } else if (file.rfind("raw:", 0) == 0) {
      // A raw file has no shape of its own: it takes the model's.
      user_check(is_graph_input(g, name), "--input '", name, "': the model has no input of that name");
      const graph::ValueInfo& info = g.info(name);
      given.tensors.emplace(name, graph::read_raw_tensor(file.substr(4), info.dtype, info.shape));
    } else if (is_npy(file)) {
      given.tensors.emplace(name, graph::read_npy(file));
    } else {
      given.tensors.emplace(name, graph::read_tensor_pb(file).value);
    }
  }
  return given;
}

// The shapes of the tensors --input gives, read ahead of the import so that
// they pin the model's symbolic dimensions (ImportOptions::value_shapes); a
// file that does not read as a tensor is left to read_inputs, which knows
// the model's inputs.
std::map<std::string, std::vector<int64_t>> given_tensor_shapes(const std::vector<std::string>& specs) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const auto& spec : specs) {
    try {
      const size_t eq = spec.find('=');
      if (eq == std::string::npos) {
        const graph::NamedTensor t = graph::read_tensor_pb(spec);
        if (!t.name.empty()) shapes[t.name] = t.value.shape();
        continue;
      }
      const std::string file = spec.substr(eq + 1);
      if (file.rfind("raw:", 0) == 0) continue;
      shapes[spec.substr(0, eq)] = is_npy(file) ? graph::read_npy(file).shape() : graph::read_tensor_pb(file).value.shape();
    } catch (const UserError&) {
    }
  }
  return shapes;
}

// Output names may hold characters a file name cannot ("/" in TF exports).
std::string file_name_for(const std::string& value, const std::string& extension) {
  std::string s = value;
  for (char& c : s)
    if (c == '/' || c == '\\' || c == ':') c = '_';
  return s + extension;
}

void create_folder(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) system_fail("cannot create the folder", "mkdir", dir, ec.message());
}

// The inputs of the compiled model: those given (less the ones it was
// specialized on, no longer its inputs), the rest random with --seed.
graph::InputValues model_feed(const graph::Graph& model, const graph::Graph& imported, const graph::InputValues& given,
                              std::optional<uint64_t> seed) {
  graph::InputValues feed;
  for (const auto& [name, value] : given) {
    user_check(is_graph_input(imported, name), "unknown input '", name, "'; the model's inputs are: ",
               fmt::format("{}", fmt::join(imported.inputs, ", ")));
    if (is_graph_input(model, name)) feed.emplace(name, value);
  }
  std::map<std::string, runtime::NDArray> random = seed ? random_model_inputs(model, *seed) : graph::InputValues{};
  for (const auto& name : model.inputs) {
    if (feed.count(name)) continue;
    const graph::ValueInfo& info = model.info(name);
    user_check(seed.has_value(), "missing input '", name, "' (", ir::to_string(info.dtype), " ",
               ir::shape_to_string(info.shape), "): give it with --input ", name,
               "=FILE.pb or FILE.npy, or use --seed N for random values");
    feed.emplace(name, random.at(name));
  }
  return feed;
}

// Output i's expected file in DIR: <output name>.npy or .pb as run writes
// them, or output_<i>.pb as ONNX's test data sets hold them.
std::filesystem::path expected_file(const std::string& dir, const std::string& name, size_t i) {
  for (const std::string& file : {file_name_for(name, ".npy"), file_name_for(name, ".pb"), "output_" + std::to_string(i) + ".pb"}) {
    const std::filesystem::path path = std::filesystem::path(dir) / file;
    if (std::filesystem::exists(path)) return path;
  }
  user_fail("--expected: ", dir, " holds no ", file_name_for(name, ".npy"), ", ", file_name_for(name, ".pb"),
            " or output_", i, ".pb for output ", name);
}

// Each output the model declares against its expected value in `dir`;
// UserError naming the first that differs or is missing.
void check_outputs(const graph::Graph& g, const std::map<std::string, runtime::NDArray>& outputs, const std::string& dir) {
  const std::vector<std::string>& names = g.model_outputs();
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    const std::filesystem::path file = expected_file(dir, name, i);
    if (auto layout = g.composite_outputs.find(name); layout != g.composite_outputs.end()) {
      const runtime::CompareResult cmp =
          graph::compare_composites(graph::composite_value(layout->second, outputs),
                                    graph::read_composite_pb(file.string(), layout->second.kind).value, 1e-3, 1e-4);
      user_check(cmp.ok, "output ", name, " differs from the expected one in ", dir, ": ", cmp.message);
      continue;
    }
    const runtime::NDArray expected = file.extension() == ".npy" ? graph::read_npy(file.string())
                                                                 : graph::read_tensor_pb(file.string()).value;
    const runtime::NDArray& actual = outputs.at(name);
    user_check(actual.dtype() == expected.dtype() && actual.shape() == expected.shape(), "output ", name, " is ",
               ir::to_string(actual.dtype()), " ", ir::shape_to_string(actual.shape()), "; the expected one is ",
               ir::to_string(expected.dtype()), " ", ir::shape_to_string(expected.shape()));
    const runtime::CompareResult cmp = runtime::all_close(actual, expected, 1e-3, 1e-4);
    user_check(cmp.ok, "output ", name, " differs from the expected one in ", dir, ": ", cmp.message);
  }
  std::printf("outputs match the expected ones in %s (%zu compared, rtol 1e-3, atol 1e-4)\n", dir.c_str(),
              names.size());
}

// The subgraphs whose workload key the log does not cover, by name.
std::string untuned_subgraphs(const graph::Executor& executor, const LogCoverage& coverage) {
  std::string names;
  size_t count = 0;
  for (const auto& sg : executor.subgraphs()) {
    if (coverage.covered.count(sg.dag->workload_key())) continue;
    if (++count <= 8) names += (names.empty() ? "" : ", ") + sg.name;
  }
  if (count > 8) names += ", ...";
  return names;
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
  graph::ImportOptions import_options = o.model_inputs.import_options();
  import_options.value_shapes = given_tensor_shapes(o.inputs);
  // Read every input before compiling: a bad file fails fast, the values of
  // inputs that decide shapes specialize the model, and a sequence or
  // optional input's value gives its tensors' number and shapes.
  const graph::Graph model = graph::import_onnx(o.model, import_options);
  GivenInputs given = read_inputs(model, o.inputs);
  graph::InputValues inputs = std::move(given.tensors);
  const graph::Graph imported = graph::expand_composite_inputs(model, given.containers, inputs);
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
  if (o.log.empty()) {
    // The default schedules are the unscheduled loops (light ResNet-50 on
    // two Xeon cores within one hour: 4.49 s a run, 165 ms constructed, 65 ms
    // tuned).
    std::printf("default schedules (no --log): `tunectl tune %s --search construct` builds every task's program in "
                "seconds, `tunectl tune` measures better ones\n",
                o.model.c_str());
  } else {
    std::printf("tuned schedules from %s for %zu of %zu tasks\n", o.log.c_str(), coverage.covered.size(),
                coverage.seen.size());
    if (coverage.covered.size() < coverage.seen.size())
      std::printf("default schedules (no record for target '%s') for %zu tasks: %s\n",
                  executor_options.backend->target().str().c_str(), coverage.seen.size() - coverage.covered.size(),
                  untuned_subgraphs(m.executor, coverage).c_str());
  }
  const graph::InputValues feed = model_feed(m.graph, imported, inputs, o.seed);
  if (!o.save_inputs_dir.empty()) {
    create_folder(o.save_inputs_dir);
    for (const auto& name : m.graph.inputs)
      graph::write_npy((std::filesystem::path(o.save_inputs_dir) / file_name_for(name, ".npy")).string(), feed.at(name));
  }
  std::map<std::string, runtime::NDArray> outputs = m.executor.run(feed);

  create_folder(o.output_dir);
  const bool npy = o.output_format == "npy" ||
                   (o.output_format == "auto" && std::any_of(o.inputs.begin(), o.inputs.end(), is_npy));
  for (const auto& name : m.graph.model_outputs()) {
    if (auto layout = m.graph.composite_outputs.find(name); layout != m.graph.composite_outputs.end()) {
      // NumPy has no sequences: a container is always an ONNX .pb file.
      const std::string path = (std::filesystem::path(o.output_dir) / file_name_for(name, ".pb")).string();
      graph::write_composite_pb(path, name, graph::composite_value(layout->second, outputs));
      std::printf("%s: %s, %s\n", name.c_str(), graph::describe(layout->second.kind).c_str(),
                  layout->second.present ? (std::to_string(layout->second.elements.size()) + " tensors").c_str() : "empty");
      for (size_t i = 0; i < layout->second.elements.size(); ++i)
        print_output(name + "[" + std::to_string(i) + "]", outputs.at(layout->second.elements[i]));
      continue;
    }
    const runtime::NDArray& value = outputs.at(name);
    const std::string path = (std::filesystem::path(o.output_dir) / file_name_for(name, npy ? ".npy" : ".pb")).string();
    if (npy) graph::write_npy(path, value);
    else graph::write_tensor_pb(path, name, value);
    print_output(name, value);
  }
  if (!o.expected_dir.empty()) check_outputs(m.graph, outputs, o.expected_dir);
  if (o.profile) print_profile(m.executor.profile());
  if (o.repeat > 0) {
    runtime::TimingOptions timing;
    timing.repeats = o.repeat;
    timing.min_repeat_seconds = 0;  // call by call, as a model serves requests
    timing.flush_cache = false;
    const runtime::Timing t = runtime::time_function([&] { m.executor.run(feed); }, timing);
    std::printf("latency over %d runs: median %.3f ms, min %.3f ms, max %.3f ms\n", o.repeat, t.median() * 1e3,
                t.min() * 1e3, t.max() * 1e3);
  }
}

}  // namespace

void register_run(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand("run", "Run a whole ONNX model with compiled kernels (default or tuned schedules)");
  sub->add_option("model", options->model, "the ONNX model")->required();
  sub->add_option("--input", options->inputs,
                  "NAME=FILE.pb (ONNX TensorProto; FILE.pb alone takes the name the file gives), NAME=FILE.npy (NumPy) or "
                  "NAME=raw:FILE (bare data); repeatable");
  sub->add_option("--seed", options->seed, "fill the inputs not given with --input with random values of this seed");
  add_model_input_options(sub, options->model_inputs);
  sub->add_option("--target", options->target, "code generation target: llvm (this CPU), \"llvm -mcpu=NAME\", cuda, \"cuda -arch=sm_80\", ...")
      ->capture_default_str();
  sub->add_option("--output-dir", options->output_dir, "where to write one <output name>.pb or .npy file per output")
      ->required();
  sub->add_option("--output-format", options->output_format,
                  "pb (ONNX TensorProto), npy (NumPy), or auto: npy when an --input is a .npy file, else pb")
      ->check(CLI::IsMember({"auto", "pb", "npy"}))
      ->capture_default_str();
  sub->add_option("--expected", options->expected_dir,
                  "a folder of expected outputs (<output name>.npy or .pb, or output_<i>.pb as in ONNX test data): fail unless every output matches within "
                  "rtol 1e-3, atol 1e-4");
  sub->add_option("--save-inputs", options->save_inputs_dir,
                  "write the inputs the model ran on (given or --seed) to this folder as <input name>.npy");
  sub->add_option("--repeat", options->repeat, "then run the model N more times and print the median, min and max latency")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--log", options->log, "a tuning log (or folder of logs): its best records schedule the tasks they cover");
  add_layout_option(sub, options->layout);
  sub->add_flag("--profile", options->profile, "print the time of every subgraph");
  sub->add_flag("--emulate", options->emulate,
                "run every kernel in the target's emulator on this CPU (the GPU emulator for cuda): slow, but needs "
                "no device");
  sub->callback([options] { run_model(*options); });
}

}  // namespace tunectl::cmd
