#include "onnx_case.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "graph/executor.h"
#include "graph/import.h"
#include "graph/partition.h"
#include "graph/passes.h"
#include "graph/specialize.h"
#include "graph/tensor_proto.h"
#include "ir/error.h"

namespace tunectl::conformance {

namespace fs = std::filesystem;

std::string onnx_data_dir() {
  const fs::path dir = fs::path(TUNECTL_SOURCE_DIR) / ".." / "shared" / "onnx";
  internal_check(fs::is_directory(dir / "node"), "the ONNX test data is missing: expected ", dir.string(),
                 "/node (the ONNX backend test data beside the repository)");
  return fs::canonical(dir).string();
}

std::vector<std::string> numbered_files(const std::string& folder, const std::string& prefix) {
  std::vector<std::string> files;
  for (int i = 0;; ++i) {
    const fs::path p = fs::path(folder) / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    files.push_back(p.string());
  }
  return files;
}

namespace {

// Assigns each file's tensor to a name: its own name when that is one of
// `names`, else the name at its position. A file at the position of a
// sequence or optional input holds that container.
std::map<std::string, runtime::NDArray> assign(const std::vector<std::string>& files,
                                               const std::vector<std::string>& names, const std::string& what,
                                               const graph::Graph& g,
                                               std::map<std::string, graph::CompositeValue>* composites = nullptr) {
  std::map<std::string, runtime::NDArray> out;
  for (size_t i = 0; i < files.size(); ++i) {
    if (composites && i < names.size() && g.info(names[i]).kind != graph::ValueKind::Tensor) {
      (*composites)[names[i]] = graph::read_composite_pb(files[i], g.info(names[i]).kind).value;
      continue;
    }
    graph::NamedTensor t = graph::read_tensor_pb(files[i]);
    std::string name = t.name;
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      internal_check(i < names.size(), what, " file ", files[i], " has no matching ", what);
      name = names[i];
    }
    out[name] = t.value;
  }
  return out;
}

}  // namespace

CaseResult run_onnx_case(const std::string& model, const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs, const Tolerance& tolerance,
                         const graph::ImportOptions& import_options) {
  try {
    // As `tunectl run` does: the inputs' values pin symbolic dimensions.
    graph::ImportOptions options = import_options;
    for (const std::string& file : inputs) {
      try {
        const graph::NamedTensor t = graph::read_tensor_pb(file);
        if (!t.name.empty()) options.value_shapes[t.name] = t.value.shape();
      } catch (const UserError&) {
      }
    }
    graph::Graph imported = graph::import_onnx(model, options);
    std::map<std::string, graph::CompositeValue> containers;
    auto given = assign(inputs, imported.inputs, "input", imported, &containers);
    imported = graph::expand_composite_inputs(imported, containers, given);
    // Node tests feed shapes, axes, pads and Resize's scales as inputs:
    // `tunectl run` specializes the model on those, and so does this.
    graph::Graph g = graph::specialize(imported, given);
    // Inputs bound, or found unused by simplification, are no longer the graph's.
    std::map<std::string, runtime::NDArray> feed;
    for (const auto& name : g.inputs)
      if (given.count(name)) feed[name] = given.at(name);
    graph::Executor executor(g, graph::partition(g));
    auto actual = executor.run(feed);
    const std::vector<std::string>& declared = g.model_outputs();
    std::vector<std::string> tensor_files, tensor_names;
    for (size_t i = 0; i < outputs.size() && i < declared.size(); ++i) {
      auto layout = g.composite_outputs.find(declared[i]);
      if (layout == g.composite_outputs.end()) {
        tensor_files.push_back(outputs[i]);
        tensor_names.push_back(declared[i]);
        continue;
      }
      runtime::CompareResult r =
          graph::compare_composites(graph::composite_value(layout->second, actual),
                                    graph::read_composite_pb(outputs[i], layout->second.kind).value, tolerance.rtol,
                                    tolerance.atol);
      if (!r.ok) return {Outcome::Mismatch, "output " + declared[i] + ": " + r.message};
    }
    auto expected = assign(tensor_files, tensor_names, "output", g);
    for (const auto& [name, want] : expected) {
      auto it = actual.find(name);
      if (it == actual.end()) return {Outcome::Error, "no output named " + name};
      runtime::CompareResult r = runtime::all_close(it->second, want, tolerance.rtol, tolerance.atol);
      if (!r.ok) return {Outcome::Mismatch, "output " + name + ": " + r.message};
    }
    return {Outcome::Pass, ""};
  } catch (const UserError& e) {
    return {Outcome::Error, std::string("UserError: ") + e.what()};
  } catch (const InternalError& e) {
    return {Outcome::Error, std::string("InternalError: ") + e.what()};
  } catch (const std::exception& e) {
    return {Outcome::Error, std::string("exception: ") + e.what()};
  }
}

}  // namespace tunectl::conformance
