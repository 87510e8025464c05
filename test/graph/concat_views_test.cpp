// graph::concat_views and what partition and the executor make of it: which
// Concats are computed in place, that no subgraph holds them, that their
// parts are runs of one buffer, and that models with them (placed or not)
// compute the node-by-node reference, twice in a row on the same arena.
#include <catch2/catch.hpp>

#include "graph/concat_views.h"
#include "graph/executor.h"
#include "graph/partition.h"
#include "graph/passes_graph_builder.h"

using namespace tunectl;
using namespace tunectl::graph;
using hand::Builder;

namespace {

using Shape = std::vector<int64_t>;

std::map<std::string, AttrValue> axis(int64_t a) { return {{"axis", a}}; }

// A Conv of random weights, 1x1 or 3x3 (padded to keep the image).
void conv(Builder& b, const std::string& out, const std::string& in, int64_t cin, int64_t cout, int64_t k, Shape image,
          uint64_t seed) {
  const int64_t pad = k / 2;
  b.node("Conv", {in, b.constant(out + "_w", hand::random({cout, cin, k, k}, seed))}, {out},
         {{image[0], cout, image[1], image[2]}},
         {{"kernel_shape", std::vector<int64_t>{k, k}}, {"pads", std::vector<int64_t>{pad, pad, pad, pad}}});
}

// SqueezeNet's fire module, batch n: squeeze, two expands concatenated, and
// a convolution reading the concatenation.
Graph fire_module(int64_t n) {
  Builder b;
  b.input("x", {n, 8, 6, 6});
  conv(b, "squeeze", "x", 8, 4, 1, {n, 6, 6}, 1);
  b.node("Relu", {"squeeze"}, {"s"}, {{n, 4, 6, 6}});
  conv(b, "e1", "s", 4, 8, 1, {n, 6, 6}, 2);
  b.node("Relu", {"e1"}, {"e1_relu"}, {{n, 8, 6, 6}});
  conv(b, "e3", "s", 4, 8, 3, {n, 6, 6}, 3);
  b.node("Relu", {"e3"}, {"e3_relu"}, {{n, 8, 6, 6}});
  b.node("Concat", {"e1_relu", "e3_relu"}, {"joined"}, {{n, 16, 6, 6}}, axis(1));
  conv(b, "next", "joined", 16, 4, 1, {n, 6, 6}, 4);
  b.output("next");
  return b.g;
}

// Runs g with the executor twice (the second run finds the arena the first
// left) and compares every graph output with the node-by-node reference.
void check_executor(const Graph& g, uint64_t seed) {
  std::map<std::string, runtime::NDArray> inputs;
  for (const std::string& in : g.inputs) inputs[in] = hand::random(g.info(in).shape, seed++);
  const std::map<std::string, runtime::NDArray> expected = hand::run_nodes(g, inputs);
  Executor executor(g, partition(g));
  for (int run = 0; run < 2; ++run) {
    const std::map<std::string, runtime::NDArray> actual = executor.run(inputs);
    for (const std::string& o : g.outputs) {
      INFO("run " << run << ", graph output " << o);
      runtime::CompareResult r = runtime::all_close(actual.at(o), expected.at(o), 1e-4, 1e-5);
      INFO(r.message);
      CHECK(r.ok);
    }
  }
}

bool in_some_subgraph(const std::vector<Subgraph>& sgs, int node) {
  for (const Subgraph& sg : sgs)
    if (std::find(sg.nodes.begin(), sg.nodes.end(), node) != sg.nodes.end()) return true;
  return false;
}

}  // namespace

TEST_CASE("concat_views: a fire module's channel concat is computed in place", "[graph][executor][cpu]") {
  const Graph g = fire_module(1);
  const std::vector<ConcatView> views = concat_views(g);
  REQUIRE(views.size() == 1);
  CHECK(views[0].output == "joined");
  REQUIRE(views[0].parts.size() == 2);
  CHECK(views[0].parts[0].value == "e1_relu");
  CHECK(views[0].parts[0].offset == 0);
  CHECK(views[0].parts[1].value == "e3_relu");
  CHECK(views[0].parts[1].offset == 8 * 6 * 6 * sizeof(float));

  // No subgraph computes the Concat: each expand writes its part, and the
  // convolution after it runs after both.
  const std::vector<Subgraph> sgs = partition(g);
  CHECK_FALSE(in_some_subgraph(sgs, views[0].node));
  int last_part = -1, reader = -1;
  for (size_t s = 0; s < sgs.size(); ++s) {
    for (const std::string& o : sgs[s].outputs)
      if (o == "e1_relu" || o == "e3_relu") last_part = static_cast<int>(s);
    for (const std::string& in : sgs[s].inputs)
      if (in == "joined") reader = static_cast<int>(s);
  }
  REQUIRE(reader >= 0);
  CHECK(last_part < reader);

  // The parts are runs of the Concat's buffer.
  const Executor executor(g, sgs);
  CHECK(executor.arena_offset("e1_relu") == executor.arena_offset("joined"));
  CHECK(executor.arena_offset("e3_relu") == executor.arena_offset("joined") + views[0].parts[1].offset);
  check_executor(g, 10);
}

TEST_CASE("concat_views: a part that is a graph output, or read by others, keeps its value", "[graph][executor][cpu]") {
  Graph g = fire_module(1);
  g.outputs.push_back("e3_relu");
  g.outputs.push_back("joined");
  REQUIRE(concat_views(g).size() == 1);
  check_executor(g, 20);
}

TEST_CASE("concat_views: a reader fused into an earlier kernel runs after every part", "[graph][executor][cpu]") {
  // z's convolution comes first in the graph; the Add reading z and the
  // Concat's output joins it, so that kernel must wait for both expands.
  Builder b;
  b.input("x", {1, 8, 6, 6});
  conv(b, "z", "x", 8, 16, 1, {1, 6, 6}, 5);
  conv(b, "e1", "x", 8, 8, 1, {1, 6, 6}, 6);
  conv(b, "e3", "x", 8, 8, 3, {1, 6, 6}, 7);
  b.node("Concat", {"e1", "e3"}, {"joined"}, {{1, 16, 6, 6}}, axis(1));
  b.node("Add", {"joined", "z"}, {"y"}, {{1, 16, 6, 6}});
  b.output("y");
  REQUIRE(concat_views(b.g).size() == 1);
  const std::vector<Subgraph> sgs = partition(b.g);
  REQUIRE(sgs.size() == 3);
  CHECK(sgs.back().outputs == std::vector<std::string>{"y"});
  check_executor(b.g, 15);
}

TEST_CASE("concat_views: what stays a kernel", "[graph][executor][cpu]") {
  SECTION("batch 2: a part is two runs of the output") {
    const Graph g = fire_module(2);
    CHECK(concat_views(g).empty());
    check_executor(g, 30);
  }
  SECTION("a graph input, a part given twice, a part at an unaligned offset") {
    Builder b;
    b.input("x", {1, 3});
    b.node("Neg", {"x"}, {"a"}, {{1, 3}});
    b.node("Sigmoid", {"x"}, {"c"}, {{1, 3}});
    b.node("Concat", {"a", "x"}, {"with_input"}, {{1, 6}}, axis(1));
    b.node("Concat", {"a", "a"}, {"twice"}, {{1, 6}}, axis(-1));
    b.node("Concat", {"a", "c"}, {"unaligned"}, {{1, 6}}, axis(1));  // c would start 12 bytes in
    for (const char* o : {"with_input", "twice", "unaligned"}) b.output(o);
    CHECK(concat_views(b.g).empty());
    check_executor(b.g, 40);
  }
  SECTION("chained Concats: the first is placed, the second copies it") {
    Builder b;
    b.input("x", {1, 16});
    b.node("Neg", {"x"}, {"a"}, {{1, 16}});
    b.node("Sigmoid", {"x"}, {"c"}, {{1, 16}});
    b.node("Relu", {"x"}, {"d"}, {{1, 16}});
    b.node("Concat", {"a", "c"}, {"inner"}, {{1, 32}}, axis(1));
    b.node("Concat", {"inner", "d"}, {"outer"}, {{1, 48}}, axis(1));
    b.node("Concat", {"d", "a"}, {"again"}, {{1, 32}}, axis(1));  // a is placed in inner already
    b.output("outer");
    b.output("again");
    const std::vector<ConcatView> views = concat_views(b.g);
    REQUIRE(views.size() == 1);
    CHECK(views[0].output == "inner");
    check_executor(b.g, 50);
  }
}
