// Graph passes on hand-built graphs: identity removal (graph outputs keep
// their names), constant folding of PyTorch-style shape arithmetic and of
// ConstantOfShape weights, shape inference of values left unknown, BN
// folding checked numerically, dead-code elimination.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>

#include "graph/passes.h"
#include "graph/passes_graph_builder.h"
#include "ir/error.h"

using namespace tunectl;
using namespace tunectl::graph;
using hand::Builder;

namespace {

int count_op(const Graph& g, const std::string& op) {
  return static_cast<int>(std::count_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.op_type == op; }));
}

void require_close(const runtime::NDArray& actual, const runtime::NDArray& expected, double rtol = 1e-5,
                   double atol = 1e-6) {
  runtime::CompareResult r = runtime::all_close(actual, expected, rtol, atol);
  INFO(r.message);
  REQUIRE(r.ok);
}

}  // namespace

TEST_CASE("remove_identities rewires readers and drops Identity and Dropout", "[unit][passes]") {
  Builder b;
  b.input("x", {2, 3});
  b.node("Relu", {"x"}, {"a"}, {{2, 3}});
  b.node("Identity", {"a"}, {"b"}, {{2, 3}});
  b.node("Dropout", {"b"}, {"c", ""}, {{2, 3}, {}});
  b.node("Sigmoid", {"c"}, {"y"}, {{2, 3}});
  b.output("y");
  Graph g = remove_identities(b.g);
  REQUIRE(g.nodes.size() == 2);
  CHECK(g.nodes[1].op_type == "Sigmoid");
  CHECK(g.nodes[1].inputs == std::vector<std::string>{"a"});
  CHECK(g.values.count("b") == 0);
  CHECK(g.values.count("c") == 0);
  auto x = hand::random({2, 3}, 1);
  require_close(hand::run_nodes(g, {{"x", x}}).at("y"), hand::run_nodes(b.g, {{"x", x}}).at("y"), 0, 0);
}

TEST_CASE("remove_identities keeps a graph output's name", "[unit][passes]") {
  Builder b;
  b.input("x", {4});
  b.node("Relu", {"x"}, {"r"}, {{4}});
  b.node("Identity", {"r"}, {"out"}, {{4}});
  b.node("Neg", {"r"}, {"n"}, {{4}});
  b.node("Identity", {"x"}, {"copy"}, {{4}});  // a graph input copied out: nothing to rename
  b.output("out");
  b.output("n");
  b.output("copy");
  Graph g = remove_identities(b.g);
  REQUIRE(g.outputs == std::vector<std::string>{"out", "n", "copy"});
  REQUIRE(g.nodes.size() == 3);
  CHECK(g.nodes[0].op_type == "Relu");
  CHECK(g.nodes[0].outputs == std::vector<std::string>{"out"});
  CHECK(g.nodes[1].inputs == std::vector<std::string>{"out"});
  CHECK(g.nodes[2].op_type == "Identity");
  CHECK(g.values.count("r") == 0);
  auto x = hand::random({4}, 2);
  auto before = hand::run_nodes(b.g, {{"x", x}});
  auto after = hand::run_nodes(g, {{"x", x}});
  for (const std::string& o : g.outputs) require_close(after.at(o), before.at(o), 0, 0);
}

TEST_CASE("remove_identities keeps a Dropout that trains or whose mask is read", "[unit][passes]") {
  Builder b;
  b.input("x", {4});
  runtime::NDArray yes(ir::DType::Bool, {});
  yes.set(0, 1);
  b.constant("train", yes);
  b.node("Dropout", {"x", "", "train"}, {"y"}, {{4}});
  b.node("Dropout", {"y"}, {"z", "mask"}, {{4}, {4}}, {}, {ir::DType::Float32, ir::DType::Bool});
  b.output("z");
  b.output("mask");
  Graph g = remove_identities(b.g);
  CHECK(count_op(g, "Dropout") == 2);
}

TEST_CASE("draw_dropout_masks: a seeded training Dropout drops what numpy's generator picks", "[unit][passes]") {
  // np.random.seed(0); np.random.uniform(0, 1, 5) is
  // [0.5488135, 0.71518937, 0.60276338, 0.54488318, 0.4236548], so a ratio
  // of 0.55 keeps elements 1 and 2 and scales them by 1 / 0.45.
  Builder b;
  b.input("x", {5});
  runtime::NDArray yes(ir::DType::Bool, {}), ratio(ir::DType::Float32, {});
  yes.set(0, 1);
  ratio.set(0, 0.55);
  b.constant("train", yes);
  b.constant("ratio", ratio);
  b.node("Dropout", {"x", "ratio", "train"}, {"y", "mask"}, {{5}, {5}}, {{"seed", int64_t{0}}},
         {ir::DType::Float32, ir::DType::Bool});
  b.output("y");
  b.output("mask");
  Graph g = draw_dropout_masks(b.g);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0].op_type == "Mul");
  REQUIRE(g.is_constant("mask"));
  const runtime::NDArray& mask = g.constants.at("mask");
  const runtime::NDArray& scale = g.constants.at(g.nodes[0].inputs[1]);
  const double kept = static_cast<double>(static_cast<float>(1 / 0.45));
  const std::vector<double> expected_mask{0, 1, 1, 0, 0};
  for (int64_t i = 0; i < 5; ++i) {
    CHECK(mask.get(i) == expected_mask[i]);
    CHECK(scale.get(i) == expected_mask[i] * kept);
  }

  SECTION("without a seed the node stays and its converter refuses it") {
    b.g.nodes[0].attrs = {};
    CHECK(count_op(draw_dropout_masks(b.g), "Dropout") == 1);
    REQUIRE_THROWS_WITH(partition(b.g), Catch::Contains("no 'seed' attribute"));
  }
  SECTION("a seed numpy refuses is an error naming the node") {
    b.g.nodes[0].attrs.values["seed"] = int64_t{-1};
    REQUIRE_THROWS_WITH(draw_dropout_masks(b.g), Catch::Contains("Dropout_0") && Catch::Contains("seed -1"));
  }
}

TEST_CASE("fold_constants refuses a folded value whose declared shape holds another count", "[error][passes]") {
  Builder b;
  b.constant("c", hand::ints({1, 2, 3}));
  b.node("Neg", {"c"}, {"y"}, {{2}}, {}, {ir::DType::Int64});  // declared [2], computes [3]
  b.output("y");
  REQUIRE_THROWS_WITH(fold_constants(b.g), Catch::Contains("output 'y' has shape [2] by the model's types, but its "
                                                           "inputs make [3]"));
}

TEST_CASE("fold_constants folds a Shape->Gather->Unsqueeze->Concat->Reshape chain", "[unit][passes]") {
  // What torch.flatten(x, 1) exports to, with the Reshape's output shape
  // unknown to ONNX shape inference.
  Builder b;
  b.input("x", {2, 3, 4, 5});
  b.constant("zero", hand::int_scalar(0));
  b.constant("axes0", hand::ints({0}));
  b.constant("minus1", hand::ints({-1}));
  b.node("Shape", {"x"}, {"s"}, {{4}}, {}, {ir::DType::Int64});
  b.node("Gather", {"s", "zero"}, {"n"}, {{}}, {{"axis", int64_t{0}}}, {ir::DType::Int64});
  b.node("Unsqueeze", {"n", "axes0"}, {"n1"}, {{1}}, {}, {ir::DType::Int64});
  b.node("Concat", {"n1", "minus1"}, {"shape"}, {{2}}, {{"axis", int64_t{0}}}, {ir::DType::Int64});
  b.node("Reshape", {"x", "shape"}, {"flat"});  // shape unknown
  b.node("Relu", {"flat"}, {"y"});              // shape unknown
  b.output("y");
  Graph g = fold_constants(b.g);
  REQUIRE(g.nodes.size() == 2);
  CHECK(g.nodes[0].op_type == "Reshape");
  REQUIRE(g.is_constant("shape"));
  const runtime::NDArray& shape = g.constants.at("shape");
  REQUIRE(shape.shape() == std::vector<int64_t>{2});
  CHECK(shape.data<int64_t>()[0] == 2);
  CHECK(shape.data<int64_t>()[1] == -1);
  // The scalar keeps its ONNX rank 0.
  REQUIRE(g.is_constant("n"));
  CHECK(g.constants.at("n").shape().empty());
  CHECK(g.constants.at("n").data<int64_t>()[0] == 2);
  for (const char* v : {"flat", "y"}) {
    INFO(v);
    CHECK(g.info(v).shape_known);
    CHECK(g.info(v).shape == std::vector<int64_t>{2, 60});
  }
  // The unfolded graph cannot run (Reshape needs its shape at compile time):
  // compare with relu of x's data, which a flatten keeps in order.
  auto x = hand::random({2, 3, 4, 5}, 3);
  runtime::NDArray y = hand::run_nodes(g, {{"x", x}}).at("y");
  REQUIRE(y.shape() == std::vector<int64_t>{2, 60});
  for (int64_t i = 0; i < x.num_elements(); ++i) CHECK(y.get(i) == std::max(x.get(i), 0.0));
}

TEST_CASE("fold_constants evaluates ConstantOfShape weights and what reads only constants", "[unit][passes]") {
  Builder b;
  b.input("x", {1, 4});
  b.constant("wshape", hand::ints({4, 3}));
  runtime::NDArray half(ir::DType::Float32, {1});
  half.set(0, 0.5);
  b.node("ConstantOfShape", {"wshape"}, {"w"}, {{4, 3}}, {{"value", half}});
  b.constant("two", hand::random({3}, 4));
  b.node("Mul", {"w", "two"}, {"w2"}, {{4, 3}});
  b.node("MatMul", {"x", "w2"}, {"y"}, {{1, 3}});
  b.output("y");
  Graph g = fold_constants(b.g);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0].op_type == "MatMul");
  REQUIRE(g.is_constant("w2"));
  const runtime::NDArray& w2 = g.constants.at("w2");
  REQUIRE(w2.shape() == std::vector<int64_t>{4, 3});
  for (int64_t i = 0; i < 12; ++i) CHECK(w2.get(i) == static_cast<float>(0.5f * static_cast<float>(b.g.constants.at("two").get(i % 3))));
}

TEST_CASE("fold_constants: a value whose shape stays unknown is a user error", "[error][passes]") {
  Builder b;
  b.input("x", {6});
  b.input("dims", {2}, ir::DType::Int64);
  b.node("Reshape", {"x", "dims"}, {"y"});  // the target shape is data: never static
  b.output("y");
  REQUIRE_THROWS_AS(fold_constants(b.g), UserError);
  REQUIRE_THROWS_WITH(fold_constants(b.g), Catch::Contains("Reshape"));

  Builder c;
  c.input("x", {6});
  c.g.values["x"].shape_known = false;
  c.node("Relu", {"x"}, {"y"});
  c.output("y");
  REQUIRE_THROWS_WITH(fold_constants(c.g), Catch::Contains("'x'") && Catch::Contains("--input-shape"));
}

TEST_CASE("fold_batch_norm folds into the Conv to fp32 rounding", "[unit][passes]") {
  for (bool bias : {true, false}) {
    DYNAMIC_SECTION("conv bias " << bias) {
      Builder b;
      b.input("x", {1, 3, 7, 7});
      b.constant("w", hand::random({4, 3, 3, 3}, 10));
      std::vector<std::string> conv_in = {"x", "w"};
      if (bias) conv_in.push_back(b.constant("cb", hand::random({4}, 11)));
      b.node("Conv", conv_in, {"c"}, {{1, 4, 5, 5}}, {{"kernel_shape", std::vector<int64_t>{3, 3}}});
      b.constant("scale", hand::random({4}, 12, 0.5, 2.0));
      b.constant("shift", hand::random({4}, 13));
      b.constant("mean", hand::random({4}, 14));
      b.constant("var", hand::random({4}, 15, 0.1, 3.0));
      b.node("BatchNormalization", {"c", "scale", "shift", "mean", "var"}, {"y"}, {{1, 4, 5, 5}},
             {{"epsilon", 1e-3}});
      b.output("y");
      Graph g = fold_batch_norm(b.g);
      REQUIRE(g.nodes.size() == 1);
      CHECK(g.nodes[0].op_type == "Conv");
      CHECK(g.nodes[0].outputs == std::vector<std::string>{"y"});
      CHECK(g.nodes[0].inputs.size() == 3);
      CHECK(g.values.count("c") == 0);
      // The original weights are untouched (another Conv may share them).
      CHECK(g.constants.at("w").get(0) == b.g.constants.at("w").get(0));
      auto x = hand::random({1, 3, 7, 7}, 16);
      require_close(hand::run_nodes(g, {{"x", x}}).at("y"), hand::run_nodes(b.g, {{"x", x}}).at("y"), 1e-5, 1e-5);
    }
  }
}

TEST_CASE("fold_batch_norm leaves a BN whose Conv output is read elsewhere", "[unit][passes]") {
  Builder b;
  b.input("x", {1, 2, 4, 4});
  b.constant("w", hand::random({2, 2, 1, 1}, 20));
  b.node("Conv", {"x", "w"}, {"c"}, {{1, 2, 4, 4}});
  for (const char* p : {"scale", "shift", "mean"}) b.constant(p, hand::random({2}, 21));
  b.constant("var", hand::random({2}, 22, 0.5, 1.0));
  b.node("BatchNormalization", {"c", "scale", "shift", "mean", "var"}, {"y"}, {{1, 2, 4, 4}});
  b.node("Relu", {"c"}, {"r"}, {{1, 2, 4, 4}});
  b.output("y");
  b.output("r");
  Graph g = fold_batch_norm(b.g);
  CHECK(g.nodes.size() == 3);
  CHECK(count_op(g, "BatchNormalization") == 1);
}

TEST_CASE("eliminate_dead_code drops unread nodes and constants", "[unit][passes]") {
  Builder b;
  b.input("x", {3});
  b.input("unused_input", {3});
  b.constant("k", hand::random({3}, 30));
  b.constant("dead_k", hand::random({3}, 31));
  b.node("Add", {"x", "k"}, {"a"}, {{3}});
  b.node("Mul", {"a", "dead_k"}, {"dead1"}, {{3}});
  b.node("Relu", {"dead1"}, {"dead2"}, {{3}});
  b.node("Relu", {"a"}, {"y"}, {{3}});
  b.output("y");
  Graph g = eliminate_dead_code(b.g);
  REQUIRE(g.nodes.size() == 2);
  CHECK(g.nodes[0].op_type == "Add");
  CHECK(g.nodes[1].op_type == "Relu");
  CHECK(g.constants.count("k") == 1);
  CHECK(g.constants.count("dead_k") == 0);
  CHECK(g.values.count("dead1") == 0);
  CHECK(g.values.count("dead2") == 0);
  CHECK(g.values.count("unused_input") == 1);
  CHECK(g.inputs == std::vector<std::string>{"x", "unused_input"});
}

TEST_CASE("simplify_graph runs the passes in order", "[unit][passes]") {
  Builder b;
  b.input("x", {1, 2, 5, 5});
  b.constant("wshape", hand::ints({3, 2, 3, 3}));
  runtime::NDArray quarter(ir::DType::Float32, {1});
  quarter.set(0, 0.25);
  b.node("ConstantOfShape", {"wshape"}, {"w"}, {{3, 2, 3, 3}}, {{"value", quarter}});
  b.node("Conv", {"x", "w"}, {"c"}, {{1, 3, 3, 3}});
  for (const char* p : {"scale", "shift", "mean"}) b.constant(p, hand::random({3}, 40));
  b.constant("var", hand::random({3}, 41, 0.5, 1.0));
  b.node("BatchNormalization", {"c", "scale", "shift", "mean", "var"}, {"bn"}, {{1, 3, 3, 3}});
  b.node("Identity", {"bn"}, {"i"}, {{1, 3, 3, 3}});
  b.node("Relu", {"i"}, {"y"}, {{1, 3, 3, 3}});
  b.output("y");
  Graph g = simplify_graph(b.g);
  REQUIRE(g.nodes.size() == 2);
  CHECK(g.nodes[0].op_type == "Conv");
  CHECK(g.nodes[1].op_type == "Relu");
  // Only the folded weights and bias remain.
  CHECK(g.constants.size() == 2);
  auto x = hand::random({1, 2, 5, 5}, 42);
  require_close(hand::run_nodes(g, {{"x", x}}).at("y"), hand::run_nodes(b.g, {{"x", x}}).at("y"), 1e-5, 1e-5);
}
