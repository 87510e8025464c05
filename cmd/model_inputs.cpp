#include "cmd/model_inputs.h"

#include <CLI/CLI.hpp>

#include "graph/passes.h"

namespace tunectl::cmd {

graph::ImportOptions ModelInputOptions::import_options() const {
  graph::ImportOptions options;
  for (const std::string& spec : input_shapes) graph::parse_input_shape(spec, options);
  for (const std::string& spec : bindings) graph::parse_binding(spec, options);
  return options;
}

void add_model_input_options(CLI::App* sub, ModelInputOptions& o, const std::string& scope) {
  sub->add_option("--input-shape", o.input_shapes, scope + "NAME=1x3x224x224 pins an input's symbolic dimensions (repeatable)");
  sub->add_option("--bind", o.bindings,
                  scope + "NAME=1,2,3 gives the value of an input that decides shapes (Reshape's shape, Slice's "
                          "starts, ...): the model is compiled for it (repeatable)");
}

graph::Graph specialize_model(const graph::Graph& imported, const graph::ImportOptions& options,
                              const graph::InputValues& known) {
  return graph::specialize(graph::bind_inputs(imported, graph::bound_values(imported, options)), known);
}

graph::Graph specialize_model(const std::string& path, const ModelInputOptions& o) {
  const graph::ImportOptions options = o.import_options();
  return specialize_model(graph::import_onnx(path, options), options);
}

}  // namespace tunectl::cmd
