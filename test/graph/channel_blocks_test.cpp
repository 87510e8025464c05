// graph::block_channels: a network of every kind of node the pass blocks
// (a 3-channel stem, pooling, 1x1, depthwise and stride-2 convolutions, a
// per-channel scale, a scalar add, a residual add, an NCHW activation added
// in, half-width blocks, a concat, global pooling feeding a Gemm, and a graph
// output taken from the middle), compiled and run blocked, against the
// node-by-node reference run of the graph as built.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "graph/executor.h"
#include "graph/partition.h"
#include "graph/passes.h"
#include "passes_graph_builder.h"

using namespace tunectl;
using namespace tunectl::graph;
using hand::random;

namespace {

using Shape = std::vector<int64_t>;

// A Conv of random weights (and bias) with equal strides and pads.
void add_conv(hand::Builder& b, const std::string& out, const std::string& in, Shape w, Shape out_shape, int64_t stride,
              int64_t pad, int64_t group, bool bias) {
  std::vector<std::string> ins = {in, b.constant(out + "_w", random(w, w[0] * 7 + w[1]))};
  if (bias) ins.push_back(b.constant(out + "_b", random({w[0]}, w[0] * 11)));
  b.node("Conv", ins, {out}, {out_shape},
         {{"strides", std::vector<int64_t>{stride, stride}},
          {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
          {"group", group}});
}

Graph blockable_network() {
  hand::Builder b;
  b.input("x", {1, 3, 32, 32});
  b.input("y", {1, 32, 8, 8});
  auto conv = [&](const std::string& out, const std::string& in, Shape w, Shape out_shape, int64_t stride,
                  int64_t pad, int64_t group, bool bias) { add_conv(b, out, in, w, out_shape, stride, pad, group, bias); };
  conv("stem", "x", {16, 3, 3, 3}, {1, 16, 16, 16}, 2, 1, 1, true);
  b.node("Relu", {"stem"}, {"stem_relu"}, {{1, 16, 16, 16}});
  b.node("MaxPool", {"stem_relu"}, {"pool"}, {{1, 16, 8, 8}},
         {{"kernel_shape", std::vector<int64_t>{3, 3}},
          {"strides", std::vector<int64_t>{2, 2}},
          {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  conv("expand", "pool", {32, 16, 1, 1}, {1, 32, 8, 8}, 1, 0, 1, false);
  b.node("Mul", {"expand", b.constant("scale", random({32, 1, 1}, 5))}, {"scaled"}, {{1, 32, 8, 8}});
  runtime::NDArray half(ir::DType::Float32, {});
  half.set(0, 0.5);
  b.node("Add", {"scaled", b.constant("half", half)}, {"shifted"}, {{1, 32, 8, 8}});
  conv("dw", "shifted", {32, 1, 3, 3}, {1, 32, 8, 8}, 1, 1, 32, true);
  b.node("Add", {"dw", "shifted"}, {"residual"}, {{1, 32, 8, 8}});
  b.node("Add", {"residual", "y"}, {"with_y"}, {{1, 32, 8, 8}});
  conv("down", "with_y", {24, 32, 3, 3}, {1, 24, 4, 4}, 2, 1, 1, true);  // 24: blocks of 8 when b = 16
  b.node("Relu", {"down"}, {"down_relu"}, {{1, 24, 4, 4}});
  conv("project", "with_y", {8, 32, 1, 1}, {1, 8, 4, 4}, 2, 0, 1, false);
  b.node("Concat", {"down_relu", "project"}, {"joined"}, {{1, 32, 4, 4}}, {{"axis", int64_t{1}}});
  b.node("AveragePool", {"joined"}, {"avg"}, {{1, 32, 2, 2}},
         {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}});
  b.node("GlobalAveragePool", {"joined"}, {"gap"}, {{1, 32, 1, 1}});
  b.node("Flatten", {"gap"}, {"flat"}, {{1, 32}});
  b.node("Gemm", {"flat", b.constant("fc_w", random({10, 32}, 3))}, {"logits"}, {{1, 10}},
         {{"transB", int64_t{1}}});
  b.output("logits");
  b.output("avg");
  b.output("stem_relu");
  return b.g;
}

// Every output of g, run blocked by executor, against the reference run.
void check_outputs(Executor executor, const Graph& g, const std::map<std::string, runtime::NDArray>& inputs,
                   const std::map<std::string, runtime::NDArray>& reference) {
  std::map<std::string, runtime::NDArray> actual = executor.run(inputs);
  for (const std::string& name : g.outputs) {
    INFO(name);
    REQUIRE(actual.at(name).shape() == reference.at(name).shape());
    runtime::CompareResult r = runtime::all_close(actual.at(name), reference.at(name), 1e-4, 1e-5);
    INFO(r.message);
    CHECK(r.ok);
  }
}

size_t count_ops(const Graph& g, const std::string& op) {
  return static_cast<size_t>(
      std::count_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.op_type == op; }));
}

}  // namespace

TEST_CASE("block_channels: a blocked network computes what the NCHW one does", "[cpu]") {
  Graph g = blockable_network();
  std::map<std::string, runtime::NDArray> inputs = {{"x", random({1, 3, 32, 32}, 1)}, {"y", random({1, 32, 8, 8}, 2)}};
  std::map<std::string, runtime::NDArray> reference = hand::run_nodes(g, inputs);
  for (int64_t block : {16, 8}) {
    INFO("block " << block);
    Graph blocked = block_channels(g, block);
    CHECK(count_ops(blocked, "Conv") == 0);
    CHECK(count_ops(blocked, "ConvNCHWc") == 5);
    CHECK(count_ops(blocked, "MaxPoolNCHWc") == 1);
    CHECK(count_ops(blocked, "GlobalAveragePoolNCHWc") == 1);
    // Into blocks: x (one block of 3) and y; out of them: the three values
    // NCHW nodes or graph outputs read (stem_relu, avg, gap).
    CHECK(count_ops(blocked, "ToChannelBlocks") == 2);
    CHECK(count_ops(blocked, "FromChannelBlocks") == 3);
    CHECK(blocked.inputs == g.inputs);
    CHECK(blocked.outputs == g.outputs);
    // Weights repacked once, the NCHW ones gone.
    CHECK(!blocked.is_constant("expand_w"));
    // A transform out of blocks is a kernel of its own: every convolution
    // stores whole vectors of its blocks. x's transform into blocks, read by
    // the stem alone, is inlined into the stem's kernel, which reads x as it
    // is; y's, read by an Add, stays a kernel.
    std::vector<Subgraph> subgraphs = partition(blocked);
    size_t transforms_into_convs = 0, transforms_alone = 0;
    for (const Subgraph& sg : subgraphs) {
      bool conv = false, from = false, to = false;
      for (int i : sg.nodes) {
        conv = conv || blocked.nodes[i].op_type == "ConvNCHWc";
        from = from || blocked.nodes[i].op_type == "FromChannelBlocks";
        to = to || blocked.nodes[i].op_type == "ToChannelBlocks";
      }
      INFO(sg.name);
      CHECK(!(conv && from));
      if (to && conv) {
        ++transforms_into_convs;
        CHECK(sg.inputs[0] == "x");
      }
      transforms_alone += to && sg.nodes.size() == 1;
    }
    CHECK(transforms_into_convs == 1);
    CHECK(transforms_alone == 1);
    check_outputs(Executor(blocked, std::move(subgraphs)), g, inputs, reference);
  }
}

TEST_CASE("block_channels: convolutions whose channels fill no block stay NCHW", "[unit]") {
  auto conv_relu = [](int64_t c, int64_t k) {
    hand::Builder b;
    b.input("x", {1, c, 6, 6});
    b.node("Conv", {"x", b.constant("w", random({k, c, 1, 1}, 1))}, {"out"}, {{1, k, 6, 6}});
    b.node("Relu", {"out"}, {"relu"}, {{1, k, 6, 6}});
    b.output("relu");
    return b.g;
  };
  // 20 input channels: neither a multiple of 16 nor fewer.
  Graph wide_input = block_channels(conv_relu(20, 16), 16);
  CHECK(count_ops(wide_input, "Conv") == 1);
  CHECK(count_ops(wide_input, "ToChannelBlocks") == 0);
  CHECK(count_ops(wide_input, "FromChannelBlocks") == 0);
  // 12 output channels fill no block of 16 nor of 8, but blocks of 4 (half of 8).
  CHECK(count_ops(block_channels(conv_relu(16, 12), 16), "ConvNCHWc") == 0);
  Graph half = block_channels(conv_relu(16, 12), 8);
  REQUIRE(count_ops(half, "ConvNCHWc") == 1);
  CHECK(half.info(half.nodes.back().inputs[0]).shape == std::vector<int64_t>{1, 3, 6, 6, 4});
  REQUIRE_THROWS_WITH(block_channels(conv_relu(16, 16), 1), Catch::Contains("at least 2"));
}

TEST_CASE("partition: a convolution takes in its data's transform into one block, not into several", "[cpu]") {
  for (int64_t c : {3, 16, 32}) {
    INFO(c << " input channels");
    hand::Builder b;
    b.input("x", {1, c, 9, 9});
    add_conv(b, "out", "x", {16, c, 3, 3}, {1, 16, 9, 9}, 1, 1, 1, true);
    b.output("out");
    Graph blocked = block_channels(b.g, 16);
    REQUIRE(count_ops(blocked, "ToChannelBlocks") == 1);
    std::vector<Subgraph> subgraphs = partition(blocked);
    // 3 and 16 channels are one block: the convolution reads x itself.
    const bool one_block = c <= 16;
    CHECK(subgraphs.size() == (one_block ? 2u : 3u));
    CHECK(subgraphs[0].inputs[0] == "x");
    CHECK(blocked.nodes[subgraphs[0].nodes.back()].op_type == (one_block ? "ConvNCHWc" : "ToChannelBlocks"));
    std::map<std::string, runtime::NDArray> inputs = {{"x", random({1, c, 9, 9}, 7)}};
    check_outputs(Executor(blocked, std::move(subgraphs)), b.g, inputs, hand::run_nodes(b.g, inputs));
  }
}

TEST_CASE("block_channels: output channels an eighth short of whole blocks run zero-padded", "[cpu]") {
  // 120 classes of a 1x1 classifier: 8 blocks of 16, the last eight lanes
  // zero; ReLU, a per-channel scale and pooling run on the padded blocks, the
  // padding dropped where NCHW nodes and the graph's outputs read them, and
  // a Conv or an add of an NCHW activation reads them as NCHW.
  hand::Builder b;
  b.input("x", {1, 16, 6, 6});
  b.input("y", {1, 120, 6, 6});
  b.node("Conv", {"x", b.constant("w", random({120, 16, 1, 1}, 1)), b.constant("bias", random({120}, 2))},
         {"classes"}, {{1, 120, 6, 6}});
  b.node("Relu", {"classes"}, {"relu"}, {{1, 120, 6, 6}});
  b.node("Mul", {"relu", b.constant("scale", random({1, 120, 1, 1}, 3))}, {"scaled"}, {{1, 120, 6, 6}});
  b.node("MaxPool", {"scaled"}, {"pool"}, {{1, 120, 3, 3}},
         {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}});
  b.node("GlobalAveragePool", {"pool"}, {"gap"}, {{1, 120, 1, 1}});
  b.node("Conv", {"scaled", b.constant("w2", random({16, 120, 1, 1}, 4))}, {"mixed"}, {{1, 16, 6, 6}});
  b.node("Add", {"relu", "y"}, {"with_y"}, {{1, 120, 6, 6}});
  b.output("gap");
  b.output("relu");
  b.output("mixed");
  b.output("with_y");
  Graph g = b.g;

  Graph blocked = block_channels(g, 16);
  CHECK(count_ops(blocked, "ConvNCHWc") == 1);
  CHECK(count_ops(blocked, "Conv") == 1);  // reads the padded scale as NCHW
  CHECK(count_ops(blocked, "Add") == 1);   // NCHW: y would have to be padded
  CHECK(count_ops(blocked, "MaxPoolNCHWc") == 1);
  CHECK(count_ops(blocked, "GlobalAveragePoolNCHWc") == 1);
  for (const Node& n : blocked.nodes) {
    if (n.op_type == "ConvNCHWc") CHECK(blocked.info(n.outputs[0]).shape == Shape{1, 8, 6, 6, 16});
    if (n.op_type == "FromChannelBlocks") CHECK(n.attrs.get_int(n, "channels", 0) == 120);
  }
  std::map<std::string, runtime::NDArray> inputs = {{"x", random({1, 16, 6, 6}, 5)}, {"y", random({1, 120, 6, 6}, 6)}};
  std::map<std::string, runtime::NDArray> reference = hand::run_nodes(g, inputs);
  check_outputs(Executor(blocked, partition(blocked)), g, inputs, reference);
  // Concatenated, the same convolution takes half-width blocks instead.
  b.node("Concat", {"classes", "classes"}, {"both"}, {{1, 240, 6, 6}}, {{"axis", int64_t{1}}});
  b.output("both");
  Graph concatenated = block_channels(b.g, 16);
  for (const Node& n : concatenated.nodes)
    if (n.op_type == "ConvNCHWc" && n.outputs[0].rfind("classes", 0) == 0)
      CHECK(concatenated.info(n.outputs[0]).shape == Shape{1, 15, 6, 6, 8});
}

TEST_CASE("block_channels with Winograd: plain 3x3 stride-1 convolutions only, computing what the NCHW ones do",
          "[cpu]") {
  hand::Builder b;
  b.input("x", {1, 16, 10, 11});
  auto conv = [&](const std::string& out, const std::string& in, Shape w, Shape out_shape, int64_t stride, int64_t pad,
                  int64_t group, bool bias) { add_conv(b, out, in, w, out_shape, stride, pad, group, bias); };
  conv("a", "x", {32, 16, 3, 3}, {1, 32, 10, 11}, 1, 1, 1, true);  // Winograd, partial tiles
  b.node("Relu", {"a"}, {"a_relu"}, {{1, 32, 10, 11}});
  conv("b", "a_relu", {16, 32, 3, 3}, {1, 16, 8, 9}, 1, 0, 1, false);  // Winograd, unpadded
  conv("c", "b", {16, 16, 3, 3}, {1, 16, 4, 5}, 2, 1, 1, false);       // stride 2: direct
  conv("d", "c", {16, 1, 3, 3}, {1, 16, 4, 5}, 1, 1, 16, false);       // depthwise: direct
  conv("e", "d", {16, 16, 1, 1}, {1, 16, 4, 5}, 1, 0, 1, false);       // 1x1: direct
  b.output("e");
  b.output("b");
  Graph g = b.g;
  Graph blocked = block_channels(g, 16, [](const Node&) { return 4; });
  CHECK(count_ops(blocked, "ConvWinogradNCHWc") == 2);
  CHECK(count_ops(blocked, "ConvNCHWc") == 3);
  CHECK(count_ops(block_channels(g, 16), "ConvWinogradNCHWc") == 0);  // only when asked
  // Chosen convolution by convolution.
  Graph only_b = block_channels(g, 16, [](const Node& n) { return n.outputs[0] == "b" ? 4 : 0; });
  CHECK(count_ops(only_b, "ConvWinogradNCHWc") == 1);
  CHECK(count_ops(only_b, "ConvNCHWc") == 4);
  // Per convolution its tile size: the transformed weight [alpha, alpha, K/b,
  // C/b, b, b] says which (B^T and A^T are formulas in the op, no inputs).
  Graph mixed = block_channels(g, 16, [](const Node& n) { return n.outputs[0] == "b" ? 2 : 4; });
  CHECK(count_ops(mixed, "ConvWinogradNCHWc") == 2);
  for (const Node& n : mixed.nodes) {
    if (n.op_type != "ConvWinogradNCHWc") continue;
    INFO(n.outputs[0]);
    const bool b_conv = n.outputs[0].rfind("b.", 0) == 0;  // its blocked twin, "b.nchw16c"
    CHECK(n.inputs.size() == (b_conv ? 2 : 3));           // X, U and a's bias
    REQUIRE(mixed.is_constant(n.inputs[1]));
    const Shape want = b_conv ? Shape{4, 4, 1, 2, 16, 16} : Shape{6, 6, 2, 1, 16, 16};
    CHECK(mixed.info(n.inputs[1]).shape == want);
  }
  REQUIRE_THROWS_WITH(block_channels(g, 16, [](const Node&) { return 3; }), Catch::Contains("F(3x3, 3x3)"));

  std::map<std::string, runtime::NDArray> inputs = {{"x", random({1, 16, 10, 11}, 1)}};
  std::map<std::string, runtime::NDArray> reference = hand::run_nodes(g, inputs);
  for (const Graph* laid_out : {&blocked, &mixed}) {
    std::map<std::string, runtime::NDArray> actual = Executor(*laid_out, partition(*laid_out)).run(inputs);
    for (const std::string& name : g.outputs) {
      const runtime::NDArray& want = reference.at(name);
      REQUIRE(actual.at(name).shape() == want.shape());
      double largest = 0, worst = 0;
      for (int64_t i = 0; i < want.num_elements(); ++i) {
        largest = std::max(largest, std::abs(want.get(i)));
        worst = std::max(worst, std::abs(want.get(i) - actual.at(name).get(i)));
      }
      INFO(name << ": largest " << largest << ", worst difference " << worst);
      CHECK(largest > 0.1);
      CHECK(worst < 1e-4 * largest);  // Winograd's rounding; a wrong tile is off by O(largest)
    }
  }
}
