// Running one ONNX test case (a model plus input_N.pb / output_N.pb files)
// through the whole front end: import -> simplify_graph -> partition ->
// Executor, comparing every output with the expected file. Shared by the
// node conformance suite and the whole-model tests.
#pragma once

#include <string>
#include <vector>

#include "graph/import.h"

namespace tunectl::conformance {

// ../shared/onnx beside the repository; the test fails (not skips) when it is missing.
std::string onnx_data_dir();

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
};

enum class Outcome { Pass, Mismatch, Error };

struct CaseResult {
  Outcome outcome = Outcome::Pass;
  std::string message;  // why it did not pass
};

// model: the .onnx file, imported with import_options (--input-shape) and
// specialized on the inputs that decide shapes as `tunectl run` does
// (graph::specialize); inputs/outputs: TensorProto files in graph order (a
// file whose tensor name matches a graph input or output goes there).
CaseResult run_onnx_case(const std::string& model, const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs, const Tolerance& tolerance,
                         const graph::ImportOptions& import_options = {});

// input_0.pb, input_1.pb, ... (or output_N.pb) of a test_data_set folder, in numeric order.
std::vector<std::string> numbered_files(const std::string& folder, const std::string& prefix);

}  // namespace tunectl::conformance
