// Bad models are UserErrors naming what is wrong, never crashes; external
// data loads from the model's folder and nowhere else.
#include <catch2/catch.hpp>

#include <random>

#include "graph/import.h"
#include "graph/import_test_util.h"
#include "graph/partition.h"
#include "ir/error.h"

namespace tunectl::graph {
namespace {

using test::onnx_data_dir;

std::string light_squeezenet() { return (onnx_data_dir() / "light/light_squeezenet.onnx").string(); }

TEST_CASE("import errors: unreadable and malformed files", "[error]") {
  test::ScratchDir dir("import_bad");
  SECTION("missing file") {
    CHECK_THROWS_WITH(import_onnx(dir.file("nope.onnx")), Catch::Contains("cannot open model file") &&
                                                              Catch::Contains("nope.onnx"));
  }
  SECTION("truncated model") {
    std::string bytes = test::read_bytes(light_squeezenet());
    test::write_bytes(dir.file("half.onnx"), bytes.substr(0, bytes.size() / 2));
    CHECK_THROWS_WITH(import_onnx(dir.file("half.onnx")), Catch::Contains("is not a valid ONNX model"));
  }
  SECTION("random bytes") {
    std::mt19937_64 rng(42);
    for (size_t size : {1, 7, 100, 4096}) {
      std::string bytes(size, '\0');
      for (char& c : bytes) c = static_cast<char>(rng());
      test::write_bytes(dir.file("random.onnx"), bytes);
      INFO(size);
      CHECK_THROWS_WITH(import_onnx(dir.file("random.onnx")), Catch::Contains("is not a valid ONNX model"));
    }
  }
  SECTION("empty file") {
    test::write_bytes(dir.file("empty.onnx"), "");
    CHECK_THROWS_WITH(import_onnx(dir.file("empty.onnx")), Catch::Contains("is not a valid ONNX model"));
  }
}

TEST_CASE("import errors: operators, domains, opsets and attributes", "[error]") {
  test::ScratchDir dir("import_ops");
  auto m = test::make_model({2, 3}, {2, 3});
  SECTION("unknown operator") {
    test::add_node(m, "FooBar", {"x"}, {"y"}, "foo");
    test::save_model(m, dir.file("m.onnx"));
    CHECK_THROWS_WITH(import_onnx(dir.file("m.onnx")),
                      Catch::StartsWith("node 'foo' (FooBar): unsupported operator FooBar (supported: Conv, ") &&
                          Catch::Contains("Relu"));
  }
  SECTION("operator of another domain") {
    auto* n = test::add_node(m, "Relu", {"x"}, {"y"});
    n->set_domain("com.microsoft");
    test::save_model(m, dir.file("m.onnx"));
    CHECK_THROWS_WITH(import_onnx(dir.file("m.onnx")),
                      Catch::Contains("node 'Relu_0' (Relu): operator domain 'com.microsoft' is not supported"));
  }
  SECTION("opset out of range") {
    test::add_node(m, "Relu", {"x"}, {"y"});
    for (int opset : {0, 22}) {
      m.mutable_opset_import(0)->set_version(opset);
      test::save_model(m, dir.file("m.onnx"));
      CHECK_THROWS_WITH(import_onnx(dir.file("m.onnx")), Catch::Contains("uses ONNX opset " + std::to_string(opset) +
                                                                         "; tunectl supports opsets 6 to 21"));
    }
  }
  SECTION("unsupported attribute type") {
    auto* n = test::add_node(m, "Constant", {}, {"c"}, "sparse");
    auto* a = n->add_attribute();
    a->set_name("sparse_value");
    a->set_type(onnx::AttributeProto::SPARSE_TENSOR);
    auto* sv = a->mutable_sparse_tensor();
    sv->add_dims(2);
    sv->mutable_values()->set_data_type(onnx::TensorProto::FLOAT);
    sv->mutable_values()->add_dims(1);
    sv->mutable_values()->add_float_data(1.0f);
    sv->mutable_indices()->set_data_type(onnx::TensorProto::INT64);
    sv->mutable_indices()->add_dims(1);
    sv->mutable_indices()->add_int64_data(0);
    test::add_node(m, "Add", {"x", "c"}, {"y"});
    test::save_model(m, dir.file("m.onnx"));
    CHECK_THROWS_WITH(import_onnx(dir.file("m.onnx")),
                      Catch::Contains("node 'sparse' (Constant): attribute 'sparse_value' has type SPARSE_TENSOR"));
  }
  SECTION("unsupported element type") {
    auto* cast = test::add_node(m, "Cast", {"x"}, {"h"}, "to_bfloat");
    auto* to = cast->add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(onnx::TensorProto::BFLOAT16);
    auto* back = test::add_node(m, "Cast", {"h"}, {"y"});
    auto* to2 = back->add_attribute();
    to2->set_name("to");
    to2->set_type(onnx::AttributeProto::INT);
    to2->set_i(onnx::TensorProto::FLOAT);
    test::save_model(m, dir.file("m.onnx"));
    CHECK_THROWS_WITH(import_onnx(dir.file("m.onnx")), Catch::Contains("value 'h' has element type BFLOAT16"));
  }
  SECTION("a float remainder without fmod") {
    test::add_node(m, "Mod", {"x", "x"}, {"y"}, "mod");
    test::save_model(m, dir.file("m.onnx"));
    // Operators become compute definitions when the graph is partitioned.
    CHECK_THROWS_WITH(partition(import_onnx(dir.file("m.onnx"))),
                      Catch::Contains("node 'mod' (Mod): attribute 'fmod' = 0 takes integers"));
  }
  SECTION("unknown resize mode") {
    auto* n = test::add_node(m, "Resize", {"x", "", "scales"}, {"y"}, "resize");
    auto* mode = n->add_attribute();
    mode->set_name("mode");
    mode->set_type(onnx::AttributeProto::STRING);
    mode->set_s("lanczos");
    auto* scales = m.mutable_graph()->add_initializer();
    scales->set_name("scales");
    scales->set_data_type(onnx::TensorProto::FLOAT);
    scales->add_dims(2);
    scales->add_float_data(1.0f);
    scales->add_float_data(1.0f);
    test::save_model(m, dir.file("m.onnx"));
    CHECK_THROWS_WITH(partition(import_onnx(dir.file("m.onnx"))),
                      Catch::Contains("node 'resize' (Resize): attribute 'mode' = 'lanczos' is not supported"));
  }
  SECTION("shape mismatch") {
    auto* b = m.mutable_graph()->add_initializer();
    b->set_name("b");
    b->set_data_type(onnx::TensorProto::FLOAT);
    b->add_dims(4);
    for (int i = 0; i < 4; ++i) b->add_float_data(1.0f);
    test::add_node(m, "Add", {"x", "b"}, {"y"}, "add");
    test::save_model(m, dir.file("m.onnx"));
    CHECK_THROWS_WITH(import_onnx(dir.file("m.onnx")), Catch::Contains("shape inference failed") &&
                                                           Catch::Contains("add"));
  }
  SECTION("nodes out of topological order") {
    test::add_node(m, "Relu", {"r"}, {"y"});
    test::add_node(m, "Relu", {"x"}, {"r"});
    test::save_model(m, dir.file("m.onnx"));
    CHECK_THROWS_WITH(import_onnx(dir.file("m.onnx")), Catch::Contains("topologically sorted"));
  }
  SECTION("initializer data that does not match its dims") {
    auto* b = m.mutable_graph()->add_initializer();
    b->set_name("b");
    b->set_data_type(onnx::TensorProto::FLOAT);
    b->add_dims(3);
    b->set_raw_data(std::string(8, '\0'));
    test::add_node(m, "Add", {"x", "b"}, {"y"});
    test::save_model(m, dir.file("m.onnx"));
    CHECK_THROWS_WITH(import_onnx(dir.file("m.onnx")), Catch::Contains("initializer 'b'") &&
                                                           Catch::Contains("needs 12 bytes"));
  }
}

// A model y = x + w whose initializer w (3 floats) lives in an external file.
onnx::ModelProto external_model(const std::string& location, int64_t offset) {
  auto m = test::make_model({3}, {3});
  auto* w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(3);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* loc = w->add_external_data();
  loc->set_key("location");
  loc->set_value(location);
  auto* off = w->add_external_data();
  off->set_key("offset");
  off->set_value(std::to_string(offset));
  auto* len = w->add_external_data();
  len->set_key("length");
  len->set_value("12");
  test::add_node(m, "Add", {"x", "w"}, {"y"});
  return m;
}

TEST_CASE("import: external data", "[unit][error]") {
  test::ScratchDir dir("import_ext");
  std::filesystem::create_directories(dir.path() / "model" / "weights");
  const float weights[4] = {9.0f, 1.5f, -2.0f, 4.25f};  // offset 4 skips the first
  test::write_bytes((dir.path() / "model" / "weights" / "w.bin").string(),
                    std::string(reinterpret_cast<const char*>(weights), sizeof(weights)));
  std::string model = (dir.path() / "model" / "m.onnx").string();

  SECTION("a file inside the model's folder loads") {
    test::save_model(external_model("weights/w.bin", 4), model);
    Graph g = import_onnx(model);
    REQUIRE(g.is_constant("w"));
    const auto& w = g.constants.at("w");
    CHECK(w.shape() == std::vector<int64_t>{3});
    CHECK(w.get(0) == 1.5);
    CHECK(w.get(1) == -2.0);
    CHECK(w.get(2) == 4.25);
  }
  SECTION("a path that leaves the folder is refused") {
    test::save_model(external_model("../../etc/passwd", 0), model);
    CHECK_THROWS_WITH(import_onnx(model), Catch::Contains("initializer 'w'") &&
                                              Catch::Contains("leaves the model's folder"));
  }
  SECTION("an absolute path is refused") {
    test::save_model(external_model("/etc/passwd", 0), model);
    CHECK_THROWS_WITH(import_onnx(model), Catch::Contains("is absolute"));
  }
  SECTION("a symlink out of the folder is refused") {
    test::write_bytes((dir.path() / "outside.bin").string(), std::string(12, '\0'));
    std::filesystem::create_symlink(dir.path() / "outside.bin", dir.path() / "model" / "link.bin");
    test::save_model(external_model("link.bin", 0), model);
    CHECK_THROWS_WITH(import_onnx(model), Catch::Contains("leaves the model's folder"));
  }
  SECTION("a range past the end of the file") {
    test::save_model(external_model("weights/w.bin", 8), model);
    CHECK_THROWS_WITH(import_onnx(model), Catch::Contains("lies outside"));
  }
  SECTION("a missing file") {
    test::save_model(external_model("weights/missing.bin", 0), model);
    CHECK_THROWS_WITH(import_onnx(model), Catch::Contains("cannot open external data file"));
  }
}

}  // namespace
}  // namespace tunectl::graph
