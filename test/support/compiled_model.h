// Runs a compiled model library (`tunectl compile`, deploy/model_library.h)
// through its C API, loaded with dlopen as a program would: for tests.
#pragma once

#include <string>
#include <vector>

#include "graph/executor.h"
#include "graph/graph.h"
#include "runtime/ndarray.h"

namespace tunectl::testing {

// Creates the model from dir (which holds `library`), runs it once on
// `inputs` into arrays shaped as `outputs` are, and destroys it. Fails the
// test (Catch) with the library's message when it refuses.
void run_compiled_model(const std::string& library, const std::string& dir, const std::vector<runtime::NDArray>& inputs,
                        std::vector<runtime::NDArray>& outputs);

// Runs the library compiled from g (one input) on a seeded random input and
// checks every output against graph::Executor's run of g with `options`.
void check_compiled_model(const graph::Graph& g, const graph::ExecutorOptions& options, const std::string& library,
                          const std::string& dir);

}  // namespace tunectl::testing
