// graph::partition on hand-built graphs: which nodes fuse, the subgraphs'
// inputs and outputs, their order, positional DAG names (equal blocks share
// a workload key), and that running the subgraphs reproduces the node-by-node
// reference.
#include <catch2/catch.hpp>

#include "graph/partition.h"
#include "graph/passes.h"
#include "graph/passes_graph_builder.h"
#include "ir/error.h"

using namespace tunectl;
using namespace tunectl::graph;
using hand::Builder;

namespace {

std::map<std::string, AttrValue> conv3x3() {
  return {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}};
}

std::vector<std::string> names(const std::vector<Subgraph>& sgs) {
  std::vector<std::string> out;
  for (const Subgraph& sg : sgs) out.push_back(sg.name);
  return out;
}

// Runs the subgraphs and the nodes one by one on the same random inputs and
// compares every graph output.
void check_against_nodes(const Graph& g, const std::vector<Subgraph>& sgs, uint64_t seed) {
  std::map<std::string, runtime::NDArray> inputs;
  for (const std::string& in : g.inputs) inputs[in] = hand::random(g.info(in).shape, seed++);
  auto expected = hand::run_nodes(g, inputs);
  auto actual = hand::run_subgraphs(g, sgs, inputs);
  for (const std::string& o : g.outputs) {
    INFO("graph output " << o);
    runtime::CompareResult r = runtime::all_close(actual.at(o), expected.at(o), 0, 0);
    INFO(r.message);
    REQUIRE(r.ok);
  }
}

}  // namespace

TEST_CASE("partition fuses bias, activation and a residual add into the conv", "[unit][partition]") {
  Builder b;
  b.input("x", {1, 4, 6, 6});
  b.constant("w1", hand::random({4, 4, 3, 3}, 1));
  b.constant("w2", hand::random({4, 4, 3, 3}, 2));
  b.constant("bias", hand::random({1, 4, 1, 1}, 3));
  b.node("Conv", {"x", "w1"}, {"c1"}, {{1, 4, 6, 6}}, conv3x3());
  b.node("Relu", {"c1"}, {"r1"}, {{1, 4, 6, 6}});
  b.node("Conv", {"r1", "w2"}, {"c2"}, {{1, 4, 6, 6}}, conv3x3());
  b.node("Add", {"c2", "bias"}, {"a"}, {{1, 4, 6, 6}});
  b.node("Add", {"a", "x"}, {"res"}, {{1, 4, 6, 6}});  // residual: x comes from outside
  b.node("Relu", {"res"}, {"y"}, {{1, 4, 6, 6}});
  b.output("y");
  std::vector<Subgraph> sgs = partition(b.g);
  REQUIRE(names(sgs) == std::vector<std::string>{"conv2d_relu_0", "conv2d_add_add_relu_1"});
  CHECK(sgs[0].nodes == std::vector<int>{0, 1});
  CHECK(sgs[0].outputs == std::vector<std::string>{"r1"});
  CHECK(sgs[1].nodes == std::vector<int>{2, 3, 4, 5});
  CHECK(sgs[1].outputs == std::vector<std::string>{"y"});
  std::vector<std::string> ins = sgs[1].inputs;
  std::sort(ins.begin(), ins.end());
  CHECK(ins == std::vector<std::string>{"bias", "r1", "w2", "x"});
  // Inputs are the DAG's placeholders, in order, named by position.
  std::vector<te::Tensor> phs = sgs[1].dag->placeholders();
  REQUIRE(phs.size() == sgs[1].inputs.size());
  for (size_t k = 0; k < phs.size(); ++k) {
    CHECK(phs[k]->name == "input" + std::to_string(k));
    CHECK(phs[k]->shape() == b.g.info(sgs[1].inputs[k]).shape);
  }
  check_against_nodes(b.g, sgs, 10);
}

TEST_CASE("partition: an elementwise chain without an anchor is a subgraph of its own", "[unit][partition]") {
  Builder b;
  b.input("x", {3, 5});
  b.constant("k", hand::random({5}, 4));
  b.node("Sigmoid", {"x"}, {"s"}, {{3, 5}});
  b.node("Mul", {"s", "s"}, {"sq"}, {{3, 5}});  // one reader, twice
  b.node("Mul", {"sq", "k"}, {"m"}, {{3, 5}});
  b.node("Transpose", {"m"}, {"y"}, {{5, 3}}, {{"perm", std::vector<int64_t>{1, 0}}});
  b.output("y");
  std::vector<Subgraph> sgs = partition(b.g);
  REQUIRE(names(sgs) == std::vector<std::string>{"sigmoid_mul_mul_transpose_0"});
  CHECK(sgs[0].inputs == std::vector<std::string>{"x", "k"});
  check_against_nodes(b.g, sgs, 20);
}

TEST_CASE("partition fuses a value whose readers are all elementwise, never a graph output", "[unit][partition]") {
  Builder b;
  b.input("x", {1, 2, 5, 5});
  b.constant("w", hand::random({2, 2, 3, 3}, 5));
  b.node("Conv", {"x", "w"}, {"c"}, {{1, 2, 5, 5}}, conv3x3());
  b.node("Relu", {"c"}, {"r"}, {{1, 2, 5, 5}});
  b.node("Sigmoid", {"c"}, {"s"}, {{1, 2, 5, 5}});
  b.node("Add", {"r", "s"}, {"y"}, {{1, 2, 5, 5}});
  b.node("Neg", {"y"}, {"z"}, {{1, 2, 5, 5}});
  b.output("y");
  b.output("z");
  std::vector<Subgraph> sgs = partition(b.g);
  // c's readers (relu, sigmoid) are elementwise: both join the conv, and c
  // stays inside the kernel. The graph output y is not fused into the neg.
  REQUIRE(names(sgs) == std::vector<std::string>{"conv2d_relu_sigmoid_add_0", "neg_1"});
  CHECK(sgs[0].outputs == std::vector<std::string>{"y"});
  CHECK(sgs[1].inputs == std::vector<std::string>{"y"});
  check_against_nodes(b.g, sgs, 30);
}

TEST_CASE("partition does not fuse a value that an anchor also reads", "[unit][partition]") {
  Builder b;
  b.input("x", {1, 2, 5, 5});
  b.constant("w", hand::random({2, 2, 3, 3}, 5));
  b.constant("w2", hand::random({2, 2, 3, 3}, 6));
  b.node("Conv", {"x", "w"}, {"c"}, {{1, 2, 5, 5}}, conv3x3());
  b.node("Relu", {"c"}, {"r"}, {{1, 2, 5, 5}});
  b.node("Conv", {"c", "w2"}, {"c2"}, {{1, 2, 5, 5}}, conv3x3());
  b.node("Add", {"r", "c2"}, {"y"}, {{1, 2, 5, 5}});
  b.output("y");
  std::vector<Subgraph> sgs = partition(b.g);
  // c is written once for both readers, and the relu runs alone; the add
  // joins it (r has one reader) and reads the second conv's output.
  REQUIRE(names(sgs) == std::vector<std::string>{"conv2d_0", "conv2d_1", "relu_add_2"});
  CHECK(sgs[0].outputs == std::vector<std::string>{"c"});
  check_against_nodes(b.g, sgs, 30);
}

TEST_CASE("partition refuses a fusion that would make two subgraphs wait on each other", "[unit][partition]") {
  // conv -> split (fused): s0 feeds a second conv, s1 meets that conv's
  // output in an add. Fusing the add into the first subgraph would make it
  // read the second conv's output, which reads the first subgraph.
  Builder b;
  b.input("x", {1, 4, 5, 5});
  b.constant("w1", hand::random({8, 4, 3, 3}, 6));
  b.constant("w2", hand::random({4, 4, 3, 3}, 7));
  b.node("Conv", {"x", "w1"}, {"c"}, {{1, 8, 5, 5}}, conv3x3());
  b.node("Split", {"c"}, {"s0", "s1"}, {{1, 4, 5, 5}, {1, 4, 5, 5}}, {{"axis", int64_t{1}}});
  b.node("Conv", {"s0", "w2"}, {"c2"}, {{1, 4, 5, 5}}, conv3x3());
  b.node("Add", {"s1", "c2"}, {"y"}, {{1, 4, 5, 5}});
  b.output("y");
  std::vector<Subgraph> sgs = partition(b.g);
  REQUIRE(names(sgs) == std::vector<std::string>{"conv2d_split_0", "conv2d_add_1"});
  CHECK(sgs[0].outputs == std::vector<std::string>{"s0", "s1"});
  check_against_nodes(b.g, sgs, 40);
}

TEST_CASE("store_split_inputs: a split's input is stored by its producer's kernel, for GPU targets", "[unit][partition]") {
  // GPT-2's fused Q/K/V projection: a matmul and bias, split three ways.
  Builder b;
  b.input("x", {4, 8});
  b.constant("w", hand::random({8, 12}, 11));
  b.constant("bias", hand::random({12}, 12));
  b.node("MatMul", {"x", "w"}, {"m"}, {{4, 12}});
  b.node("Add", {"m", "bias"}, {"qkv"}, {{4, 12}});
  b.node("Split", {"qkv"}, {"q", "k", "v"}, {{4, 4}, {4, 4}, {4, 4}}, {{"axis", int64_t{1}}});
  b.node("Transpose", {"k"}, {"kt"}, {{4, 4}}, {{"perm", std::vector<int64_t>{1, 0}}});
  // A split of a graph input needs no boundary.
  b.node("Split", {"x"}, {"x0", "x1"}, {{4, 4}, {4, 4}}, {{"axis", int64_t{1}}});
  for (const char* o : {"q", "kt", "v", "x0", "x1"}) b.output(o);
  REQUIRE(names(partition(b.g)) == std::vector<std::string>{"matmul_add_split_transpose_0", "split_1"});
  const Graph g = store_split_inputs(b.g);
  CHECK(g.nodes.size() == b.g.nodes.size() + 1);
  const std::vector<Subgraph> sgs = partition(g);
  REQUIRE(names(sgs) == std::vector<std::string>{"matmul_add_0", "copy_split_transpose_1", "split_2"});
  CHECK(sgs[0].outputs == std::vector<std::string>{"qkv"});
  CHECK(sgs[1].outputs == std::vector<std::string>{"q", "v", "kt"});
  check_against_nodes(g, sgs, 60);
  // An anchor of several outputs starts a kernel anyway: no boundary.
  Builder top;
  top.input("x", {4, 8});
  top.constant("w", hand::random({8, 12}, 11));
  top.node("MatMul", {"x", "w"}, {"m"}, {{4, 12}});
  top.node("TopK", {"m", "k"}, {"values", "indices"}, {{4, 2}, {4, 2}}, {}, {ir::DType::Float32, ir::DType::Int64});
  CHECK(store_split_inputs(top.g).nodes.size() == 2);
}

TEST_CASE("partition: equal blocks under different ONNX names share a workload key", "[unit][partition]") {
  Builder b;
  b.input("image", {1, 4, 6, 6});
  b.constant("layer1.weight", hand::random({4, 4, 3, 3}, 8));
  b.constant("layer2.conv.weight", hand::random({4, 4, 3, 3}, 9));
  b.node("Conv", {"image", "layer1.weight"}, {"/layer1/Conv_output_0"}, {{1, 4, 6, 6}}, conv3x3());
  b.node("Relu", {"/layer1/Conv_output_0"}, {"/layer1/Relu_output_0"}, {{1, 4, 6, 6}});
  b.node("Conv", {"/layer1/Relu_output_0", "layer2.conv.weight"}, {"onnx::Relu_17"}, {{1, 4, 6, 6}}, conv3x3());
  b.node("Relu", {"onnx::Relu_17"}, {"logits"}, {{1, 4, 6, 6}});
  b.output("logits");
  std::vector<Subgraph> sgs = partition(b.g);
  REQUIRE(sgs.size() == 2);
  CHECK(sgs[0].dag->canonical_text() == sgs[1].dag->canonical_text());
  CHECK(sgs[0].dag->workload_key() == sgs[1].dag->workload_key());
  check_against_nodes(b.g, sgs, 50);
}

TEST_CASE("partition: shape computations left unfolded are a user error", "[error][partition]") {
  Builder b;
  b.input("x", {2, 3});
  b.node("Shape", {"x"}, {"s"}, {{2}}, {}, {ir::DType::Int64});
  b.output("s");
  REQUIRE_THROWS_WITH(partition(b.g), Catch::Contains("Shape_0") && Catch::Contains("fold"));
}

TEST_CASE("partition: converter errors name the model's node", "[error][partition]") {
  Builder b;
  b.input("x", {4});
  runtime::NDArray yes(ir::DType::Bool, {});
  yes.set(0, 1);
  b.constant("train", yes);
  b.node("Dropout", {"x", "", "train"}, {"y"}, {{4}});
  b.output("y");
  REQUIRE_THROWS_WITH(partition(b.g), Catch::Contains("node 'Dropout_0' (Dropout)") &&
                                          Catch::Contains("training_mode"));
}
