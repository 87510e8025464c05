// Importing real models: the light model zoo, a model with real weights, the
// node conformance models, and --input-shape pinning.
#include <catch2/catch.hpp>

#include "graph/import.h"
#include "graph/import_test_util.h"
#include "ir/error.h"

namespace tunectl::graph {
namespace {

using test::onnx_data_dir;

struct ModelFacts {
  std::string file;
  size_t nodes;         // ONNX nodes (none of these models has Constant nodes)
  size_t initializers;  // become constants
  std::string input;
  std::string output;
  std::vector<int64_t> output_shape;
};

// Counts read off the models with `protoc --decode=onnx.ModelProto`.
const std::vector<ModelFacts> kModels = {
    {"light/light_bvlc_alexnet.onnx", 40, 17, "data_0", "prob_1", {1, 1000}},
    {"light/light_resnet50.onnx", 415, 269, "gpu_0/data_0", "gpu_0/softmax_1", {1, 1000}},
    {"light/light_squeezenet.onnx", 105, 52, "data_0", "softmaxout_1", {1, 1000, 1, 1}},
    {"light/light_vgg19.onnx", 82, 39, "data_0", "prob_1", {1, 1000}},
    {"random/squeezenet_random.onnx", 66, 91, "data_0", "softmaxout_1", {1, 1000, 1, 1}},
};

TEST_CASE("import: light models and squeezenet_random", "[unit]") {
  for (const auto& facts : kModels) {
    INFO(facts.file);
    Graph g = import_onnx((onnx_data_dir() / facts.file).string());
    CHECK(g.nodes.size() == facts.nodes);
    CHECK(g.constants.size() == facts.initializers);
    CHECK(g.opset == 9);
    REQUIRE(g.inputs == std::vector<std::string>{facts.input});
    REQUIRE(g.outputs == std::vector<std::string>{facts.output});
    CHECK(g.info(facts.input).shape == std::vector<int64_t>{1, 3, 224, 224});
    CHECK(g.info(facts.input).dtype == ir::DType::Float32);
    CHECK(g.info(facts.output).shape == facts.output_shape);
    CHECK(g.info(facts.output).shape_known);
    // Every node output has an entry; the producer/consumer queries agree
    // with the node lists.
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (const auto& out : g.nodes[i].outputs) {
        REQUIRE(g.values.count(out));
        CHECK(g.producer(out) == static_cast<int>(i));
        for (int c : g.consumers(out)) CHECK(c > static_cast<int>(i));
      }
    }
    CHECK(g.producer(facts.input) == -1);
    CHECK_FALSE(g.consumers(facts.input).empty());
  }
}

TEST_CASE("import: the shipped small_cnn model", "[unit]") {
  Graph g = import_onnx(std::string(TUNECTL_SOURCE_DIR) + "/models/small_cnn.onnx");
  CHECK(g.opset == 13);
  CHECK(g.nodes.size() == 13);
  CHECK(g.constants.size() == 12);
  CHECK(g.inputs == std::vector<std::string>{"input"});
  CHECK(g.outputs == std::vector<std::string>{"output"});
  CHECK(g.info("pool1_out").shape == std::vector<int64_t>{1, 16, 16, 16});
  CHECK(g.info("add3_out").shape == std::vector<int64_t>{1, 32, 16, 16});
  CHECK(g.info("output").shape == std::vector<int64_t>{1, 10});
  CHECK(g.consumers("relu2_out").size() == 2);  // conv3 and the residual add
}

TEST_CASE("import: light models infer static shapes for every value", "[unit]") {
  Graph g = import_onnx((onnx_data_dir() / "light/light_resnet50.onnx").string());
  for (const auto& [name, info] : g.values) {
    INFO(name);
    CHECK(info.shape_known);
  }
  // The first convolution: 64 filters of 7x7, stride 2 -> 112x112.
  const Node& conv = g.nodes[g.producer(g.nodes[g.consumers("gpu_0/data_0")[0]].outputs[0])];
  CHECK(conv.op_type == "Conv");
  CHECK(g.info(conv.outputs[0]).shape == std::vector<int64_t>{1, 64, 112, 112});
  CHECK(conv.attrs.get_ints(conv, "kernel_shape") == std::vector<int64_t>{7, 7});
  CHECK(conv.attrs.get_ints(conv, "strides") == std::vector<int64_t>{2, 2});
}

TEST_CASE("import: node conformance models", "[unit]") {
  auto node_dir = onnx_data_dir() / "node";
  SECTION("conv with strides and padding (opset 7 era)") {
    Graph g = import_onnx((node_dir / "test_conv_with_strides_padding/model.onnx").string());
    REQUIRE(g.nodes.size() == 1);
    const Node& n = g.nodes[0];
    CHECK(n.op_type == "Conv");
    CHECK(n.inputs == std::vector<std::string>{"x", "W"});
    CHECK(g.inputs == std::vector<std::string>{"x", "W"});
    CHECK(n.attrs.get_ints(n, "pads") == std::vector<int64_t>{1, 1, 1, 1});
    CHECK(g.info("y").shape == std::vector<int64_t>{1, 1, 4, 3});
  }
  SECTION("softmax with an axis attribute") {
    Graph g = import_onnx((node_dir / "test_softmax_axis_0/model.onnx").string());
    REQUIRE(g.nodes.size() == 1);
    CHECK(g.nodes[0].attrs.get_int(g.nodes[0], "axis") == 0);
    CHECK(g.info(g.outputs[0]).shape == std::vector<int64_t>{3, 4, 5});
  }
  SECTION("opset 18 reduction with axes given at run time keeps its form and its declared output shape") {
    Graph g = import_onnx((node_dir / "test_reduce_mean_keepdims_example/model.onnx").string());
    CHECK(g.opset == 18);
    REQUIRE(g.nodes.size() == 1);
    CHECK(g.nodes[0].inputs == std::vector<std::string>{"data", "axes"});
    CHECK(g.inputs == std::vector<std::string>{"data", "axes"});
    CHECK(g.info("reduced").shape == std::vector<int64_t>{3, 1, 2});
    CHECK(g.info("reduced").dtype == ir::DType::Float32);
  }
  SECTION("an unnamed node is named <op_type>_<index>") {
    Graph g = import_onnx((node_dir / "test_relu/model.onnx").string());
    REQUIRE(g.nodes.size() == 1);
    CHECK(g.nodes[0].describe() == "node 'Relu_0' (Relu)");
  }
}

TEST_CASE("import: Constant nodes, attributes, dtypes and opset 18 reductions", "[unit]") {
  test::ScratchDir dir("import_const");
  // y = ReduceMax(Cast<double>(x * c_float + c_tensor), axes=[1]) at opset 18
  auto m = test::make_model({2, 3}, {2}, 18);
  m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::DOUBLE);
  auto* c1 = test::add_node(m, "Constant", {}, {"scale"}, "scale_const");
  auto* a1 = c1->add_attribute();
  a1->set_name("value_float");
  a1->set_type(onnx::AttributeProto::FLOAT);
  a1->set_f(2.5f);
  auto* c2 = test::add_node(m, "Constant", {}, {"bias"});
  auto* a2 = c2->add_attribute();
  a2->set_name("value");
  a2->set_type(onnx::AttributeProto::TENSOR);
  a2->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a2->mutable_t()->add_dims(3);
  for (float v : {1.0f, 2.0f, 3.0f}) a2->mutable_t()->add_float_data(v);
  auto* c3 = test::add_node(m, "Constant", {}, {"axes"});
  auto* a3 = c3->add_attribute();
  a3->set_name("value_ints");
  a3->set_type(onnx::AttributeProto::INTS);
  a3->add_ints(1);
  test::add_node(m, "Mul", {"x", "scale"}, {"xs"});
  test::add_node(m, "Add", {"xs", "bias"}, {"xb"});
  auto* cast = test::add_node(m, "Cast", {"xb"}, {"xd"}, "to_double");
  auto* to = cast->add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(onnx::TensorProto::DOUBLE);
  auto* reduce = test::add_node(m, "ReduceMax", {"xd", "axes"}, {"y"});
  auto* keep = reduce->add_attribute();
  keep->set_name("keepdims");
  keep->set_type(onnx::AttributeProto::INT);
  keep->set_i(0);
  test::save_model(m, dir.file("model.onnx"));

  Graph g = import_onnx(dir.file("model.onnx"));
  CHECK(g.opset == 18);
  REQUIRE(g.nodes.size() == 4);  // the three Constant nodes became constants
  CHECK(g.constants.at("scale").shape().empty());
  CHECK(g.constants.at("scale").num_elements() == 1);
  CHECK(g.constants.at("scale").get(0) == 2.5);
  CHECK(g.constants.at("bias").get(2) == 3.0);
  CHECK(g.constants.at("axes").dtype() == ir::DType::Int64);
  CHECK(g.constants.at("axes").get(0) == 1);
  CHECK(g.info("scale").shape.empty());
  CHECK(g.info("xb").shape == std::vector<int64_t>{2, 3});
  CHECK(g.info("xd").dtype == ir::DType::Float64);
  CHECK(g.info("y").shape == std::vector<int64_t>{2});
  CHECK(g.info("y").shape_known);
  CHECK(g.nodes[2].name == "to_double");
  CHECK(g.nodes[2].attrs.get_int(g.nodes[2], "to") == onnx::TensorProto::DOUBLE);
  CHECK(g.nodes[3].name == "ReduceMax_6");
  CHECK(g.nodes[3].inputs == std::vector<std::string>{"xd", "axes"});
  CHECK(g.consumers("axes") == std::vector<int>{3});
  CHECK(g.producer("axes") == -1);

  SECTION("attribute getters name the node, the attribute and the problem") {
    const Node& r = g.nodes[3];
    CHECK(r.attrs.get_int(r, "keepdims") == 0);
    CHECK(r.attrs.get_int(r, "noop_with_empty_axes", 7) == 7);
    CHECK_THROWS_WITH(r.attrs.get_ints(r, "kernel_shape"),
                      "node 'ReduceMax_6' (ReduceMax): attribute 'kernel_shape' is required but missing");
    CHECK_THROWS_WITH(r.attrs.get_ints(r, "keepdims", {}),
                      "node 'ReduceMax_6' (ReduceMax): attribute 'keepdims' has type int, expected ints");
    CHECK_THROWS_WITH(r.attrs.get_string(r, "keepdims", ""), Catch::Contains("expected string"));
    CHECK_THROWS_WITH(r.attrs.get_tensor(r, "keepdims"), Catch::Contains("expected tensor"));
    CHECK_THROWS_AS(r.attrs.get_float(r, "keepdims", 0.0), UserError);
  }
}

TEST_CASE("import: a shape only known after constant folding is flagged, not an error", "[unit]") {
  test::ScratchDir dir("import_unknown");
  auto m = test::make_model({2, 3}, {-1}, 18);
  test::set_tensor_type(m.mutable_graph()->add_input(), "axes", {1}, onnx::TensorProto::INT64);
  test::add_node(m, "ReduceMax", {"x", "axes"}, {"r"});
  test::add_node(m, "Relu", {"r"}, {"y"});
  test::save_model(m, dir.file("model.onnx"));
  Graph g = import_onnx(dir.file("model.onnx"));
  CHECK_FALSE(g.info("r").shape_known);
  CHECK(g.info("r").shape.empty());
  CHECK(g.info("r").dtype == ir::DType::Float32);
  CHECK(g.info("x").shape_known);
}

TEST_CASE("import: --input-shape pins symbolic dimensions", "[unit]") {
  test::ScratchDir dir("import_pin");
  auto m = test::make_model({-1, 3, 8, 8}, {-1, 3, 8, 8});
  test::add_node(m, "Relu", {"x"}, {"r"}, "relu");
  test::add_node(m, "Sigmoid", {"r"}, {"y"});
  test::save_model(m, dir.file("model.onnx"));

  ImportOptions options;
  parse_input_shape("x=2x3x8x8", options);
  Graph g = import_onnx(dir.file("model.onnx"), options);
  CHECK(g.info("x").shape == std::vector<int64_t>{2, 3, 8, 8});
  CHECK(g.info("r").shape == std::vector<int64_t>{2, 3, 8, 8});
  CHECK(g.info("y").shape == std::vector<int64_t>{2, 3, 8, 8});
  CHECK(g.nodes[1].name == "Sigmoid_1");

  SECTION("without it the symbolic input is an error naming the input and the flag") {
    CHECK_THROWS_WITH(import_onnx(dir.file("model.onnx")),
                      Catch::Contains("input 'x' has symbolic dimension 0 'N'") && Catch::Contains("--input-shape"));
  }
  SECTION("rank mismatch") {
    ImportOptions bad;
    parse_input_shape("x=2x3x8", bad);
    CHECK_THROWS_WITH(import_onnx(dir.file("model.onnx"), bad), Catch::Contains("has rank 3") &&
                                                                   Catch::Contains("has rank 4"));
  }
  SECTION("a fixed dimension cannot be changed") {
    ImportOptions bad;
    parse_input_shape("x=2x4x8x8", bad);
    CHECK_THROWS_WITH(import_onnx(dir.file("model.onnx"), bad), Catch::Contains("fixes it to 3"));
  }
  SECTION("unknown input name") {
    ImportOptions bad;
    parse_input_shape("image=2x3x8x8", bad);
    CHECK_THROWS_WITH(import_onnx(dir.file("model.onnx"), bad),
                      Catch::Contains("'image', which is not an input") && Catch::Contains("inputs: x"));
  }
}

TEST_CASE("parse_input_shape", "[unit][error]") {
  ImportOptions o;
  parse_input_shape("gpu_0/data_0=1x3x224x224", o);
  CHECK(o.input_shapes.at("gpu_0/data_0") == std::vector<int64_t>{1, 3, 224, 224});
  parse_input_shape("n=7", o);
  CHECK(o.input_shapes.at("n") == std::vector<int64_t>{7});
  for (const char* bad : {"x", "=1x2", "x=", "x=1x", "x=1xx2", "x=0x3", "x=ax3", "x=-1", "n=1"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_input_shape(bad, o), UserError);
  }
}

}  // namespace
}  // namespace tunectl::graph
