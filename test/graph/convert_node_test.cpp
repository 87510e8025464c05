// The ONNX node conformance tests (../shared/onnx/node) through import and
// the converters only: every node test whose operators are all supported is
// imported, converted node by node into tensor expressions, evaluated with
// the reference evaluator on input_N.pb and compared with output_N.pb (rtol
// 1e-3, atol 1e-7, upstream's tolerances; no test needs more). No
// partitioning, code generation or executor: a failure here is in import,
// the converters or ops/.
#include <catch2/catch.hpp>

#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "convert_test_util.h"
#include "graph/import.h"
#include "graph/model_ops.h"
#include "graph/passes.h"
#include "graph/specialize.h"
#include "graph/tensor_proto.h"
#include "ir/error.h"

using namespace tunectl;
using namespace tunectl::graph;
namespace fs = std::filesystem;

namespace {

// Node tests with supported operators that the converters reject on
// purpose, with the reason; the test fails if one of them starts passing
// (then drop it from here) or if any other test fails.
const std::map<std::string, std::string> kExpectedFailures = {
    // ONNX's reference casts an out-of-range int8 result without the
    // saturation its spec asks for (-236 comes out as 20); tunectl saturates.
    {"test_qlinearmatmul_2D_int8_float32", "saturates where the reference wraps"},
    {"test_qlinearmatmul_3D_int8_float32", "saturates where the reference wraps"},
};

// Prefix of run_node_test's message when import_onnx itself refused the
// model (an opset, dtype or empty tensor outside what tunectl supports):
// counted apart, the importer's own tests cover those.
const std::string kImportFailed = "import: ";

fs::path node_test_dir() {
  fs::path dir = fs::path(TUNECTL_SOURCE_DIR) / ".." / "shared" / "onnx" / "node";
  return dir;
}

// Runs one node test; "" when every output matches, else what went wrong.
std::string run_node_test(const fs::path& dir) {
  try {
    Graph g;
    try {
      g = import_onnx((dir / "model.onnx").string());
    } catch (const UserError& e) {
      return kImportFailed + e.what();
    }
    std::map<std::string, runtime::NDArray> feed;
    std::map<std::string, CompositeValue> containers;
    fs::path data = dir / "test_data_set_0";
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      const std::string file = (data / ("input_" + std::to_string(i) + ".pb")).string();
      const ValueKind kind = g.info(g.inputs[i]).kind;
      if (kind == ValueKind::Tensor) feed[g.inputs[i]] = read_tensor_pb(file).value;
      else containers[g.inputs[i]] = read_composite_pb(file, kind).value;
    }
    // As `tunectl run` does: sequences and optionals become their tensors,
    // fold what is constant, and bind the inputs that decide shapes (node
    // tests pass shapes, axes, pads, Resize's scales as inputs) to their
    // test values.
    g = specialize(expand_composite_inputs(g, containers, feed), feed);
    std::map<std::string, te::Tensor> tensors;
    for (const auto& name : g.inputs) {
      const ValueInfo& info = g.info(name);
      tensors[name] = te::placeholder(name, te_shape(info.shape), info.dtype);
    }
    for (const auto& [name, value] : g.constants) {
      tensors[name] = te::placeholder(name, te_shape(value.shape()), value.dtype());
      feed[name] = value;
    }
    for (const Node& node : g.nodes) {
      std::vector<te::Tensor> in;
      for (const auto& name : node.inputs) in.push_back(name.empty() ? nullptr : tensors.at(name));
      std::vector<te::Tensor> outs = convert_node(node, in, g);
      for (size_t k = 0; k < outs.size(); ++k) tensors[node.outputs[k]] = outs[k];
    }
    // Outputs that folded to constants are compared as they are.
    std::vector<te::Tensor> computed;
    for (const auto& name : g.outputs)
      if (!g.is_constant(name)) computed.push_back(tensors.at(name));
    std::vector<runtime::NDArray> evaluated;
    if (!computed.empty()) {
      te::ComputeDAG dag(computed);
      std::vector<runtime::NDArray> args;
      for (const auto& p : dag.placeholders()) args.push_back(testing::as_te(feed.at(p->name)));
      evaluated = te::evaluate(dag, args);
    }
    std::map<std::string, runtime::NDArray> got;
    for (size_t k = 0, next = 0; k < g.outputs.size(); ++k)
      got[g.outputs[k]] = g.is_constant(g.outputs[k]) ? testing::as_te(g.constants.at(g.outputs[k])) : evaluated.at(next++);
    const std::vector<std::string>& declared = g.model_outputs();
    for (size_t k = 0; k < declared.size(); ++k) {
      const std::string file = (data / ("output_" + std::to_string(k) + ".pb")).string();
      std::string what = "output " + std::to_string(k) + " ('" + declared[k] + "')";
      if (auto layout = g.composite_outputs.find(declared[k]); layout != g.composite_outputs.end()) {
        CompositeValue expected = read_composite_pb(file, layout->second.kind).value;
        for (runtime::NDArray& e : expected.elements) e = testing::as_te(e);
        runtime::CompareResult r = compare_composites(composite_value(layout->second, got), expected, 1e-3, 1e-7);
        if (!r.ok) return what + ": " + r.message;
        continue;
      }
      runtime::NDArray expected = read_tensor_pb(file).value;
      const runtime::NDArray& actual = got.at(declared[k]);
      if (actual.dtype() != expected.dtype())
        return what + " has type " + std::string(ir::to_string(actual.dtype())) + ", expected " +
               std::string(ir::to_string(expected.dtype()));
      if (actual.shape() != te_shape(expected.shape())) return what + " has the wrong shape";
      runtime::CompareResult r = runtime::all_close(actual, testing::as_te(expected), 1e-3, 1e-7);
      if (!r.ok) return what + ": " + r.message;
    }
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("ONNX node tests with supported operators convert and evaluate correctly", "[graph][onnx][convert]") {
  fs::path root = node_test_dir();
  INFO("ONNX node test data (../shared/onnx/node next to the repository)");
  REQUIRE(fs::is_directory(root));
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory()) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  int total = 0, passed = 0, import_failed = 0;
  std::set<std::string> expected_seen;
  for (const auto& dir : dirs) {
    std::string name = dir.filename().string();
    bool supported = true;
    for (const auto& op : model_op_types((dir / "model.onnx").string())) supported = supported && is_supported_op(op);
    if (!supported) continue;
    ++total;
    std::string failure = run_node_test(dir);
    auto expected = kExpectedFailures.find(name);
    if (expected != kExpectedFailures.end()) {
      expected_seen.insert(name);
      INFO(name << " is listed as an expected failure (" << expected->second << ")");
      CHECK_FALSE(failure.empty());
      continue;
    }
    if (failure.rfind(kImportFailed, 0) == 0) {
      ++import_failed;
      continue;
    }
    if (!failure.empty()) std::cout << "FAIL " << name << ": " << failure << "\n";
    CHECK(failure.empty());
    if (failure.empty()) ++passed;
  }
  std::cout << "ONNX node tests with supported operators (converters + reference evaluator): " << passed << "/"
            << total << " passed, " << import_failed << " refused by import_onnx, " << kExpectedFailures.size()
            << " expected converter failures\n";
  CHECK(expected_seen.size() == kExpectedFailures.size());
  CHECK(total >= 200);
}
