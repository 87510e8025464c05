// Importing models of the opsets at the edges of what tunectl accepts: opset
// 6 (legacy broadcast attributes, is_test) and opsets 19 to 21, newer than
// the installed ONNX library, whose working copy is rewritten for its checker
// and shape inference while the Graph keeps the original nodes; and the
// attributes of those opsets that tunectl refuses.
#include <catch2/catch.hpp>

#include "graph/import.h"
#include "graph/import_test_util.h"
#include "ir/error.h"

namespace tunectl::graph {
namespace {

using test::onnx_data_dir;

onnx::AttributeProto* add_int_attr(onnx::NodeProto* node, const std::string& name, int64_t value) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
  return a;
}

TEST_CASE("import: opset 6 models keep their legacy attributes", "[unit]") {
  auto dir = onnx_data_dir() / "pytorch-operator";
  SECTION("Add with broadcast = 1 and axis") {
    Graph g = import_onnx((dir / "test_operator_add_broadcast/model.onnx").string());
    CHECK(g.opset == 6);
    REQUIRE(g.nodes.size() == 1);
    const Node& add = g.nodes[0];
    CHECK(add.attrs.get_int(add, "broadcast") == 1);
    CHECK(add.attrs.get_int(add, "axis") == 1);
    CHECK(g.info("1").shape == std::vector<int64_t>{3});
    CHECK(g.info("2").shape == std::vector<int64_t>{2, 3});
    CHECK(g.info("2").dtype == ir::DType::Float64);
  }
  SECTION("Gemm with and without broadcast of C") {
    Graph g = import_onnx((dir / "test_operator_addmm/model.onnx").string());
    CHECK(g.opset == 6);
    REQUIRE(g.nodes.size() == 2);
    CHECK(g.nodes[0].attrs.get_int(g.nodes[0], "broadcast") == 1);
    CHECK_FALSE(g.nodes[1].attrs.has("broadcast"));
    CHECK(g.info("3").shape == std::vector<int64_t>{2, 4});  // inferred by ONNX's Gemm-6 schema
    CHECK(g.info("4").shape == std::vector<int64_t>{2, 4});
  }
  SECTION("inference-mode Dropout (is_test = 1)") {
    test::ScratchDir scratch("import_opset6");
    auto m = test::make_model({2, 3}, {2, 3}, 6);
    m.set_ir_version(3);
    add_int_attr(test::add_node(m, "Dropout", {"x"}, {"d"}, "drop"), "is_test", 1);
    test::add_node(m, "Relu", {"d"}, {"y"});
    test::save_model(m, scratch.file("m.onnx"));
    Graph g = import_onnx(scratch.file("m.onnx"));
    CHECK(g.info("d").shape == std::vector<int64_t>{2, 3});
  }
}

TEST_CASE("import: models of opsets 1 to 5 are upgraded by ONNX's version converter", "[unit]") {
  // Softsign of opset 1; Relu and Add of opset 5 (Add's broadcast attribute, which opset 7 dropped).
  Graph softsign = import_onnx((onnx_data_dir() / "node" / "test_softsign" / "model.onnx").string());
  CHECK(softsign.opset == 6);
  CHECK(softsign.nodes.at(0).op_type == "Softsign");
  test::ScratchDir dir("import_old_opset");
  auto m = test::make_model({2, 3}, {2, 3}, 5);
  test::add_node(m, "Relu", {"x"}, {"r"});
  test::add_node(m, "Add", {"r", "x"}, {"y"});
  test::save_model(m, dir.file("m.onnx"));
  Graph g = import_onnx(dir.file("m.onnx"));
  CHECK(g.opset == 6);
  REQUIRE(g.nodes.size() == 2);
  CHECK(g.info("y").shape == std::vector<int64_t>{2, 3});
}

TEST_CASE("import: opset 21 node test model", "[unit]") {
  Graph g = import_onnx((onnx_data_dir() / "node/test_transpose_default/model.onnx").string());
  CHECK(g.opset == 21);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0].op_type == "Transpose");
  CHECK(g.info("data").shape == std::vector<int64_t>{2, 3, 4});
  CHECK(g.info("transposed").shape == std::vector<int64_t>{4, 3, 2});
}

TEST_CASE("import: opsets 19 to 21 are inferred through an opset-17 working copy", "[unit]") {
  test::ScratchDir dir("import_opset21");
  // y = ReduceMax(Cast<double, saturate>(Gelu(AveragePool(x, dilations 1))), axes=[1]) at opset 21; no
  // intermediate value declares its shape.
  auto m = test::make_model({1, 2, 4, 4}, {1, 3, 3}, 21);
  m.set_ir_version(10);
  m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::DOUBLE);
  auto* pool = test::add_node(m, "AveragePool", {"x"}, {"p"}, "pool");
  for (const char* name : {"kernel_shape", "dilations"}) {
    auto* a = pool->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    int64_t v = std::string(name) == "kernel_shape" ? 2 : 1;
    a->add_ints(v);
    a->add_ints(v);
  }
  auto* gelu = test::add_node(m, "Gelu", {"p"}, {"g"}, "gelu");
  auto* approx = gelu->add_attribute();
  approx->set_name("approximate");
  approx->set_type(onnx::AttributeProto::STRING);
  approx->set_s("tanh");
  auto* cast = test::add_node(m, "Cast", {"g"}, {"c"}, "cast");
  add_int_attr(cast, "to", onnx::TensorProto::DOUBLE);
  add_int_attr(cast, "saturate", 1);
  auto* axes = test::add_node(m, "Constant", {}, {"axes"});
  auto* value = axes->add_attribute();
  value->set_name("value_ints");
  value->set_type(onnx::AttributeProto::INTS);
  value->add_ints(1);
  add_int_attr(test::add_node(m, "ReduceMax", {"c", "axes"}, {"y"}, "max"), "keepdims", 0);
  test::save_model(m, dir.file("model.onnx"));

  Graph g = import_onnx(dir.file("model.onnx"));
  CHECK(g.opset == 21);
  REQUIRE(g.nodes.size() == 4);
  CHECK(g.info("p").shape == std::vector<int64_t>{1, 2, 3, 3});
  CHECK(g.info("g").shape == std::vector<int64_t>{1, 2, 3, 3});
  CHECK(g.info("g").dtype == ir::DType::Float32);
  CHECK(g.info("c").dtype == ir::DType::Float64);
  CHECK(g.info("y").shape == std::vector<int64_t>{1, 3, 3});
  CHECK(g.info("y").shape_known);
  // The Graph has the model's own nodes and attributes, not the working copy's.
  CHECK(g.nodes[0].attrs.get_ints(g.nodes[0], "dilations") == std::vector<int64_t>{1, 1});
  CHECK(g.nodes[1].op_type == "Gelu");
  CHECK(g.nodes[1].attrs.get_string(g.nodes[1], "approximate", "") == "tanh");
  CHECK(g.nodes[2].attrs.get_int(g.nodes[2], "saturate") == 1);
  CHECK(g.nodes[3].inputs == std::vector<std::string>{"c", "axes"});
}

TEST_CASE("import: opset 18-19 attributes the installed ONNX library does not know keep their meaning",
          "[unit]") {
  auto node_dir = onnx_data_dir() / "node";
  // AveragePool's dilations and Pad's wrap mode (opset 19), Pad's axes input (opset 18).
  Graph avg = import_onnx((node_dir / "test_averagepool_2d_dilations/model.onnx").string());
  CHECK(avg.nodes[0].attrs.get_ints(avg.nodes[0], "dilations") == std::vector<int64_t>{2, 2});
  Graph wrap = import_onnx((node_dir / "test_wrap_pad/model.onnx").string());
  CHECK(wrap.nodes[0].attrs.get_string(wrap.nodes[0], "mode", "") == "wrap");
  Graph axes = import_onnx((node_dir / "test_constant_pad_axes/model.onnx").string());
  CHECK(axes.nodes[0].inputs.size() == 4);
}

TEST_CASE("import errors: opset-specific attributes tunectl does not implement", "[error]") {
  test::ScratchDir dir("import_opset_attrs");
  SECTION("training-mode BatchNormalization and Dropout of opset 6 (is_test = 0 by default)") {
    auto m = test::make_model({1, 2, 2, 2}, {1, 2, 2, 2}, 6);
    test::add_node(m, "BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y"}, "bn");
    test::save_model(m, dir.file("bn.onnx"));
    CHECK_THROWS_WITH(import_onnx(dir.file("bn.onnx")),
                      Catch::Contains("node 'bn' (BatchNormalization): attribute 'is_test' = 0 (the default) asks "
                                      "opset 6 for training mode"));
    auto d = test::make_model({1, 2, 2, 2}, {1, 2, 2, 2}, 6);
    add_int_attr(test::add_node(d, "Dropout", {"x"}, {"y"}, "drop"), "is_test", 0);
    test::save_model(d, dir.file("drop.onnx"));
    CHECK_THROWS_WITH(import_onnx(dir.file("drop.onnx")),
                      Catch::Contains("node 'drop' (Dropout): attribute 'is_test' = 0 asks opset 6 for training mode"));
  }
  SECTION("element types newer than the ONNX library (float8, int4)") {
    auto m = test::make_model({2, 3}, {2, 3}, 21);
    m.set_ir_version(10);
    add_int_attr(test::add_node(m, "Cast", {"x"}, {"f8"}, "to_f8"), "to", 17);
    add_int_attr(test::add_node(m, "Cast", {"f8"}, {"y"}), "to", onnx::TensorProto::FLOAT);
    test::save_model(m, dir.file("m.onnx"));
    CHECK_THROWS_WITH(import_onnx(dir.file("m.onnx")),
                      Catch::Contains("node 'to_f8' (Cast): attribute 'to' has element type FLOAT8E4M3FN; tunectl "
                                      "supports FLOAT, DOUBLE, FLOAT16, INT8, UINT8"));
  }
}

}  // namespace
}  // namespace tunectl::graph
