// How a model's inputs are fixed before compiling, for the commands that
// load a model (tune, run, bench MODEL, tasks): --input-shape pins symbolic
// dimensions and --bind gives the values of inputs that decide shapes
// (graph/specialize.h).
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/import.h"
#include "graph/specialize.h"

namespace CLI {
class App;
}

namespace tunectl::cmd {

struct ModelInputOptions {
  std::vector<std::string> input_shapes;  // NAME=1x3x224x224
  std::vector<std::string> bindings;      // NAME=1,2,3

  bool empty() const { return input_shapes.empty() && bindings.empty(); }
  // Parsed; UserError for a malformed flag.
  graph::ImportOptions import_options() const;
};

// Registers --input-shape and --bind; `scope` prefixes their help ("model: ").
void add_model_input_options(CLI::App* sub, ModelInputOptions& o, const std::string& scope = "");

// The imported model with its --bind values bound and specialized on the
// values in `known` (run's input files) that decide shapes.
graph::Graph specialize_model(const graph::Graph& imported, const graph::ImportOptions& options,
                              const graph::InputValues& known = {});
// The model at `path` imported and specialized with the options alone.
graph::Graph specialize_model(const std::string& path, const ModelInputOptions& o);

}  // namespace tunectl::cmd
