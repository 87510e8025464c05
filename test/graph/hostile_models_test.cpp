// Hostile models (issue "Hardened"): each is a UserError naming the node or
// field, imported in bounded memory and time, never a crash. External data
// that leaves the model's folder is in import_errors_test.cpp.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <climits>

#include "graph/import.h"
#include "graph/import_test_util.h"
#include "graph/partition.h"
#include "ir/error.h"
#include "tasks/extract.h"

namespace tunectl::graph {
namespace {

TEST_CASE("hostile models are refused with the node or field named", "[unit][error]") {
  test::ScratchDir dir("hostile");
  const std::string path = dir.file("m.onnx");

  SECTION("a graph with a cycle") {
    auto m = test::make_model({4}, {4});
    test::add_node(m, "Add", {"x", "b"}, {"a"}, "first");
    test::add_node(m, "Relu", {"a"}, {"b"}, "second");
    test::add_node(m, "Relu", {"b"}, {"y"}, "last");
    test::save_model(m, path);
    CHECK_THROWS_WITH(import_onnx(path), Catch::Contains("name: first OpType: Add") &&
                                             Catch::Contains("topologically sorted"));
  }
  SECTION("dimensions whose product overflows") {
    auto m = test::make_model({int64_t{1} << 40, int64_t{1} << 40}, {int64_t{1} << 40, int64_t{1} << 40});
    test::add_node(m, "Relu", {"x"}, {"y"});
    test::save_model(m, path);
    CHECK_THROWS_WITH(import_onnx(path), Catch::Contains("input 'x' has shape [1099511627776x1099511627776]: more "
                                                         "than 2^40 elements"));
  }
  SECTION("an initializer whose dimensions promise far more than its data") {
    auto initializer_model = [](const std::vector<int64_t>& dims) {
      auto m = test::make_model({1}, dims);
      auto* w = m.mutable_graph()->add_initializer();
      w->set_name("w");
      w->set_data_type(onnx::TensorProto::FLOAT);
      for (int64_t d : dims) w->add_dims(d);
      w->set_raw_data(std::string(16, '\0'));
      test::add_node(m, "Add", {"x", "w"}, {"y"});
      return m;
    };
    test::save_model(initializer_model({1'000'000, 1'000'000}), path);
    CHECK_THROWS_WITH(import_onnx(path), Catch::Contains("initializer 'w' with shape [1000000x1000000] and type "
                                                         "float32 needs 4000000000000 bytes of data, but raw_data "
                                                         "has 16"));
    test::save_model(initializer_model({1'000'000'000, 1'000'000, 1'000'000}), path);
    CHECK_THROWS_WITH(import_onnx(path), Catch::Contains("initializer 'w' has shape [1000000000x1000000x1000000]: "
                                                         "more than 2^40 elements"));
  }
  SECTION("a billion-element tensor imports and partitions without allocating it") {
    auto m = test::make_model({1'000'000'000}, {1'000'000'000});
    test::add_node(m, "Relu", {"x"}, {"y"});
    test::save_model(m, path);
    Graph g = import_onnx(path);
    CHECK(tasks::extract_tasks(partition(g)).size() == 1);
  }
  SECTION("a graph output that nothing produces, at an old opset (it crashed ONNX's converter)") {
    auto m = test::make_model({4}, {4}, /*opset=*/1);
    m.mutable_graph()->mutable_output(0)->set_name(")");
    test::add_node(m, "Relu", {"x"}, {"y"});
    test::save_model(m, path);
    CHECK_THROWS_WITH(import_onnx(path), Catch::Contains("graph output ')' is not produced by any node"));
  }
  SECTION("a value that is both input and output, declared with two shapes (found by fuzzing)") {
    auto m = test::make_model({1, 0, 1}, {4});
    m.mutable_graph()->mutable_output(0)->set_name("x");
    test::set_tensor_type(m.mutable_graph()->mutable_output(0), "x", {1, 1, 1});
    test::add_node(m, "Relu", {"x"}, {"y"});
    test::save_model(m, path);
    CHECK_THROWS_WITH(import_onnx(path), Catch::Contains("'x' is both a graph input and a graph output, declared with "
                                                         "different types or shapes"));
  }
  SECTION("an opset from the future") {
    auto m = test::make_model({4}, {4});
    m.mutable_opset_import(0)->set_version(1000);
    test::add_node(m, "Relu", {"x"}, {"y"});
    test::save_model(m, path);
    CHECK_THROWS_WITH(import_onnx(path), Catch::Contains("uses ONNX opset 1000"));
  }
  SECTION("a file past protobuf's 2 GiB limit is refused before it is read") {
    const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, off_t{INT_MAX} + 4096) == 0);  // sparse: no disk used
    ::close(fd);
    CHECK_THROWS_WITH(import_onnx(path), Catch::Contains(path) && Catch::Contains("2 GiB"));
  }
}

TEST_CASE("a model that crashes the ONNX library's shape inference is a user error", "[unit][error]") {
  // Found by fuzzing: ConvInteger with an input of rank 3 and a weight of
  // rank 4 makes libonnx read out of bounds; it runs in a child process.
  const std::string model = std::string(TUNECTL_SOURCE_DIR) +
                            "/test/fuzz/regressions/onnx_import/crash-a948412e6c8bfc7e361f1d60639206b717524332";
  CHECK_THROWS_WITH(import_onnx(model), Catch::Contains("is not a valid ONNX model: the ONNX library's checker and "
                                                        "shape inference crashed"));
}

TEST_CASE("a chain of 10,000 nodes imports, partitions and extracts its tasks", "[unit]") {
  constexpr int kNodes = 10'000;
  auto m = test::make_model({16}, {16});
  for (int i = 0; i < kNodes; ++i) {
    const std::string in = i == 0 ? "x" : "t" + std::to_string(i - 1);
    const std::string out = i == kNodes - 1 ? "y" : "t" + std::to_string(i);
    test::add_node(m, i % 2 ? "Relu" : "Neg", {in}, {out});
  }
  test::ScratchDir dir("hostile_chain");
  test::save_model(m, dir.file("chain.onnx"));
  Graph g = import_onnx(dir.file("chain.onnx"));
  CHECK(g.nodes.size() >= 1);
  CHECK(!tasks::extract_tasks(partition(g)).empty());
}

}  // namespace
}  // namespace tunectl::graph
