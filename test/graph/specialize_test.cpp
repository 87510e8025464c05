// graph::specialize and --bind: a model whose Reshape takes its shape as an
// input compiles once that value is known, binding that input alone; without
// it the error names the input and the flag.
#include <catch2/catch.hpp>

#include "graph/import.h"
#include "graph/passes.h"
#include "graph/specialize.h"
#include "import_test_util.h"
#include "ir/error.h"

using namespace tunectl;
using namespace tunectl::graph;

namespace {

// y = Relu(Reshape(x [2, 3, 4], shape)), shape an int64 input of symbolic length.
std::string reshape_model(const test::ScratchDir& dir) {
  auto m = test::make_model({2, 3, 4}, {-1, -1});
  test::set_tensor_type(m.mutable_graph()->add_input(), "shape", {-1}, onnx::TensorProto::INT64);
  test::add_node(m, "Reshape", {"x", "shape"}, {"r"});
  test::add_node(m, "Relu", {"r"}, {"y"});
  test::save_model(m, dir.file("model.onnx"));
  return dir.file("model.onnx");
}

runtime::NDArray int64s(const std::vector<int64_t>& values) {
  runtime::NDArray a(ir::DType::Int64, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) a.set_int(static_cast<int64_t>(i), values[i]);
  return a;
}

}  // namespace

TEST_CASE("specialize: --bind gives a shape input its value and length", "[unit][graph]") {
  test::ScratchDir dir("specialize_bind");
  ImportOptions options;
  parse_binding("shape=4,-1", options);
  const Graph imported = import_onnx(reshape_model(dir), options);
  REQUIRE(imported.info("shape").shape == std::vector<int64_t>{2});  // pinned by the value count
  InputValues bound = bound_values(imported, options);
  REQUIRE(bound.count("shape"));
  CHECK(bound.at("shape").get_int(0) == 4);
  CHECK(bound.at("shape").get_int(1) == -1);
  Graph g = specialize(bind_inputs(imported, bound), {});
  CHECK(g.inputs == std::vector<std::string>{"x"});
  CHECK(g.info("y").shape == std::vector<int64_t>{4, 6});
}

TEST_CASE("specialize: of the known inputs only those that decide shapes are bound", "[unit][graph]") {
  test::ScratchDir dir("specialize_known");
  ImportOptions options;
  parse_input_shape("shape=3", options);
  const Graph imported = import_onnx(reshape_model(dir), options);
  runtime::NDArray x(ir::DType::Float32, {2, 3, 4});
  Graph g = specialize(imported, {{"x", x}, {"shape", int64s({3, 2, 4})}});
  CHECK(g.inputs == std::vector<std::string>{"x"});  // data stays an input fed at run time
  CHECK(g.info("y").shape == std::vector<int64_t>{3, 2, 4});

  SECTION("another value specializes again") {
    Graph other = specialize(imported, {{"shape", int64s({6, 1, 4})}});
    CHECK(other.info("y").shape == std::vector<int64_t>{6, 1, 4});
  }
  SECTION("without the value the error names the node, the input and the flag") {
    CHECK_THROWS_WITH(specialize(imported, {{"x", x}}),
                      Catch::Contains("node 'Reshape_0' (Reshape)") && Catch::Contains("model input 'shape'") &&
                          Catch::Contains("--bind shape="));
  }
  SECTION("a value of the wrong length is named") {
    CHECK_THROWS_WITH(specialize(imported, {{"shape", int64s({24})}}),
                      Catch::Contains("cannot bind 'shape'") && Catch::Contains("[1]") && Catch::Contains("[3]"));
  }
}

TEST_CASE("specialize: bad --bind values are clear errors", "[unit][graph][error]") {
  test::ScratchDir dir("specialize_errors");
  auto bound = [&](const std::vector<std::string>& specs) {
    ImportOptions options;
    for (const std::string& spec : specs) parse_binding(spec, options);
    return bound_values(import_onnx(reshape_model(dir), options), options);
  };
  ImportOptions options;
  CHECK_THROWS_WITH(parse_binding("shape", options), Catch::Contains("expected name=v1,v2"));
  CHECK_THROWS_WITH(parse_binding("shape=1,,2", options), Catch::Contains("an empty value"));
  CHECK_THROWS_WITH(parse_binding("shape=1,2,", options), Catch::Contains("trailing ','"));
  parse_binding("shape=1", options);
  CHECK_THROWS_WITH(parse_binding("shape=2", options), Catch::Contains("twice"));
  CHECK_THROWS_WITH(bound({"shape=4,x"}), Catch::Contains("'x' is not a int64 value"));
  CHECK_THROWS_WITH(bound({"shape=1.5"}), Catch::Contains("'1.5' is not a int64 value"));
  CHECK_THROWS_WITH(bound({"size=1"}), Catch::Contains("--bind names 'size', which is not an input") &&
                                           Catch::Contains("inputs: x, shape"));
  CHECK_THROWS_WITH(bound({"shape=2,12", "x=1,2"}), Catch::Contains("gives 2 values") && Catch::Contains("holds 24"));
}
