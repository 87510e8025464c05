// Whole models end to end: the "light" architectures (ResNet-50, SqueezeNet,
// VGG-19, AlexNet; weights made by ConstantOfShape and folded on import) and
// a SqueezeNet with random weights, each run on its input and compared with
// the expected output. Slow with default (naive) schedules; each prints its
// time. Also the user errors of running a real model with bad inputs.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>

#include "graph/executor.h"
#include "graph/import.h"
#include "graph/partition.h"
#include "graph/passes.h"
#include "graph/tensor_proto.h"
#include "ir/error.h"
#include "onnx_case.h"

using namespace tunectl;
using namespace tunectl::conformance;
using Catch::Matchers::Contains;

namespace {

void check_model(const std::string& folder, const std::string& stem, const Tolerance& tolerance) {
  const std::string base = onnx_data_dir() + "/" + folder + "/" + stem;
  const auto start = std::chrono::steady_clock::now();
  CaseResult r = run_onnx_case(base + ".onnx", {base + "_input_0.pb"}, {base + "_output_0.pb"}, tolerance);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %s in %.1f s (import, compile, one run)\n", stem.c_str(),
              r.outcome == Outcome::Pass ? "matches" : "FAILS", seconds);
  INFO(r.message);
  CHECK(r.outcome == Outcome::Pass);
}

}  // namespace

TEST_CASE("whole model: light SqueezeNet", "[conformance][slow]") {
  check_model("light", "light_squeezenet", {});
}

TEST_CASE("whole model: light AlexNet", "[conformance][slow]") {
  check_model("light", "light_bvlc_alexnet", {});
}

TEST_CASE("whole model: light ResNet-50", "[conformance][slow]") {
  check_model("light", "light_resnet50", {});
}

TEST_CASE("whole model: light VGG-19", "[conformance][slow]") {
  check_model("light", "light_vgg19", {});
}

TEST_CASE("whole model: SqueezeNet with random weights", "[conformance][slow]") {
  // Real-valued weights: the 1000 outputs are sums of thousands of products,
  // so near-zero outputs need an absolute tolerance for fp32 reassociation.
  check_model("random", "squeezenet_random", {1e-3, 1e-5});
}

TEST_CASE("whole model: SqueezeNet with random weights, channel-blocked", "[conformance]") {
  // In blocks of 16 its 1000-class classifier runs in 63 zero-padded blocks
  // (graph::block_channels): the padding must not reach a real class.
  const std::string base = onnx_data_dir() + "/random/squeezenet_random";
  graph::Graph g = graph::block_channels(graph::simplify_graph(graph::import_onnx(base + ".onnx")), 16);
  bool padded = false;
  for (const graph::Node& n : g.nodes) padded = padded || n.attrs.get_int(n, "channels", 0) == 1000;
  CHECK(padded);
  const graph::NamedTensor input = graph::read_tensor_pb(base + "_input_0.pb");
  const graph::NamedTensor expected = graph::read_tensor_pb(base + "_output_0.pb");
  REQUIRE(g.inputs.size() == 1);
  REQUIRE(g.outputs.size() == 1);
  graph::Executor exec(g, graph::partition(g));
  const runtime::NDArray actual = exec.run({{g.inputs[0], input.value}}).at(g.outputs[0]);
  runtime::CompareResult r = runtime::all_close(actual, expected.value, 1e-3, 1e-5);
  INFO(r.message);
  CHECK(r.ok);
}

TEST_CASE("whole model: a detector with dynamic dimensions runs pinned by --input-shape or its input", "[conformance]") {
  // models/dynamic/ocr_det_tiny.onnx (make_dynamic_ocr.cpp): symbolic N, H, W;
  // HardSwish, HardSigmoid, ConvTranspose, Resize. Expected: ONNX Runtime's
  // output for the same input (scripts/make-models.sh --testdata).
  const std::string base = std::string(TUNECTL_SOURCE_DIR) + "/models/dynamic/ocr_det_tiny";
  graph::ImportOptions pinned;
  graph::parse_input_shape("x=2x3x24x40", pinned);
  CaseResult r = run_onnx_case(base + ".onnx", {base + "_input_0.pb"}, {base + "_output_0.pb"}, {1e-4, 1e-6}, pinned);
  INFO(r.message);
  CHECK(r.outcome == Outcome::Pass);
  // Unpinned, the input's value gives the symbolic dimensions, as in `tunectl run`...
  r = run_onnx_case(base + ".onnx", {base + "_input_0.pb"}, {base + "_output_0.pb"}, {1e-4, 1e-6});
  INFO(r.message);
  CHECK(r.outcome == Outcome::Pass);
  // ...and without one the symbolic dimension is named with the flag that fixes it.
  r = run_onnx_case(base + ".onnx", {}, {}, {});
  CHECK_THAT(r.message, Contains("input 'x' has symbolic dimension 0 'N'") && Contains("--input-shape x="));
}

TEST_CASE("whole model: a missing input or a wrong shape is a user error", "[conformance][error]") {
  const std::string model = onnx_data_dir() + "/node/test_relu/model.onnx";
  graph::Graph g = graph::simplify_graph(graph::import_onnx(model));
  REQUIRE(g.inputs.size() == 1);
  const std::string input = g.inputs[0];
  graph::Executor exec(g, graph::partition(g));
  CHECK_THROWS_AS((exec.run({})), UserError);
  CHECK_THROWS_WITH((exec.run({})),
                    Contains("missing input '" + input + "'"));
  runtime::NDArray wrong(ir::DType::Float32, {2, 2});
  CHECK_THROWS_AS((exec.run({{input, wrong}})), UserError);
  CHECK_THROWS_WITH((exec.run({{input, wrong}})),
                    Contains("input '" + input + "' has shape [2x2]"));
  CHECK_THROWS_AS((exec.run({{input, wrong}, {"nope", wrong}})), UserError);
  CHECK_THROWS_WITH((exec.run({{input, wrong}, {"nope", wrong}})),
                    Contains("unknown input 'nope'"));
}
