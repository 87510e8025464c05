// tasks::extract_tasks: subgraphs with equal DAGs become one task whose
// weight counts them; different shapes stay apart; FLOPs come from the DAG.
#include <catch2/catch.hpp>

#include "graph/partition.h"
#include "graph/passes_graph_builder.h"
#include "tasks/extract.h"

using namespace tunectl;
using namespace tunectl::graph;

namespace {

// x -> [conv3x3 + bias + relu] x blocks, all 4 -> 4 channels on 6x6, then a
// 1x1 conv to 2 channels.
Graph conv_chain(int blocks) {
  hand::Builder b;
  b.input("x", {1, 4, 6, 6});
  std::map<std::string, AttrValue> attrs = {{"kernel_shape", std::vector<int64_t>{3, 3}},
                                            {"pads", std::vector<int64_t>{1, 1, 1, 1}}};
  std::string v = "x";
  for (int i = 0; i < blocks; ++i) {
    std::string s = std::to_string(i);
    b.constant("w" + s, hand::random({4, 4, 3, 3}, 100 + i));
    b.constant("b" + s, hand::random({4}, 200 + i));
    b.node("Conv", {v, "w" + s, "b" + s}, {"conv" + s}, {{1, 4, 6, 6}}, attrs);
    b.node("Relu", {"conv" + s}, {"relu" + s}, {{1, 4, 6, 6}});
    v = "relu" + s;
  }
  b.constant("head", hand::random({2, 4, 1, 1}, 300));
  b.node("Conv", {v, "head"}, {"y"}, {{1, 2, 6, 6}});
  b.output("y");
  return b.g;
}

}  // namespace

TEST_CASE("extract_tasks merges repeated blocks and weighs them", "[unit][tasks]") {
  std::vector<Subgraph> sgs = partition(conv_chain(3));
  REQUIRE(sgs.size() == 4);
  std::vector<tasks::Task> tasks = tasks::extract_tasks(sgs);
  REQUIRE(tasks.size() == 2);
  CHECK(tasks[0].name == "conv2d_relu_0");
  CHECK(tasks[0].weight == 3);
  CHECK(tasks[0].subgraphs == std::vector<int>{0, 1, 2});
  CHECK(tasks[0].workload_key == sgs[1].dag->workload_key());
  CHECK(tasks[1].name == "conv2d_3");
  CHECK(tasks[1].weight == 1);
  CHECK(tasks[1].subgraphs == std::vector<int>{3});
  CHECK(tasks[0].workload_key != tasks[1].workload_key);
  // conv 3x3 over 4 channels: 2 flops per multiply-add, then bias and relu.
  double conv = 2.0 * 4 * 6 * 6 * 4 * 3 * 3;
  double points = 4 * 6 * 6;
  CHECK(tasks[0].flops >= conv + points);
  CHECK(tasks[0].flops <= conv + 3 * points);
  CHECK(tasks[1].flops == 2.0 * 2 * 6 * 6 * 4);
}

TEST_CASE("extract_tasks keeps subgraph order and weights summing to the subgraph count", "[unit][tasks]") {
  for (int blocks : {1, 2, 5}) {
    std::vector<Subgraph> sgs = partition(conv_chain(blocks));
    std::vector<tasks::Task> tasks = tasks::extract_tasks(sgs);
    int weights = 0;
    for (const tasks::Task& t : tasks) weights += t.weight;
    CHECK(weights == static_cast<int>(sgs.size()));
    CHECK(tasks[0].weight == blocks);
  }
}
