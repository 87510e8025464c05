// Empty tensors (a dimension of 0) through the passes and the executor: an
// empty input or an empty result is a constant that no kernel reads or
// writes, a reduction over an empty axis folds to its identity, and Concat
// leaves empty parts out of its kernel.
#include <catch2/catch.hpp>

#include <cmath>

#include "graph/executor.h"
#include "graph/partition.h"
#include "graph/passes.h"
#include "passes_graph_builder.h"

using namespace tunectl;
using namespace tunectl::graph;

namespace {

runtime::NDArray iota(std::vector<int64_t> shape) {
  runtime::NDArray a(ir::DType::Float32, std::move(shape));
  for (int64_t i = 0; i < a.num_elements(); ++i) a.set(i, static_cast<double>(i + 1));
  return a;
}

}  // namespace

TEST_CASE("empty tensors: Concat with an empty input runs its kernel on the other inputs", "[graph][executor][cpu]") {
  hand::Builder b;
  b.input("x", {2, 3});
  b.input("e", {0, 3});  // an empty input is known without being fed
  b.node("Concat", {"e", "x", "e"}, {"y"}, {{2, 3}}, {{"axis", int64_t{0}}});
  b.node("Relu", {"y"}, {"z"}, {{2, 3}});
  b.output("z");
  Graph g = simplify_graph(b.g);
  CHECK(g.inputs == std::vector<std::string>{"x"});
  Executor executor(g, partition(g));
  const runtime::NDArray x = iota({2, 3});
  runtime::NDArray z = executor.run({{"x", x}}).at("z");
  REQUIRE(z.shape() == std::vector<int64_t>{2, 3});
  for (int64_t i = 0; i < 6; ++i) CHECK(z.get(i) == x.get(i));
}

TEST_CASE("empty tensors: empty results are constants, reductions over empty axes their identity", "[graph][cpu]") {
  hand::Builder b;
  b.input("x", {2, 3});
  b.input("e", {2, 0, 4});
  runtime::NDArray none(ir::DType::Int64, {2});
  none.set_int(0, 0);
  none.set_int(1, 1);
  b.constant("starts", none);
  b.constant("ends", none);
  // x[0:0, 1:1]: an empty slice of a runtime value.
  b.node("Slice", {"x", "starts", "ends"}, {"s"}, {{0, 2}});
  runtime::NDArray axes(ir::DType::Int64, {1});
  axes.set_int(0, 1);
  b.constant("axes", axes);
  b.node("ReduceSum", {"e", "axes"}, {"sum"}, {{2, 1, 4}});
  b.node("ReduceMax", {"e"}, {"max"}, {{2, 1, 4}}, {{"axes", std::vector<int64_t>{1}}});
  b.output("s");
  b.output("sum");
  b.output("max");
  Graph g = simplify_graph(b.g);
  CHECK(g.nodes.empty());  // nothing is left to compile
  REQUIRE(g.is_constant("s"));
  CHECK(g.constants.at("s").shape() == std::vector<int64_t>{0, 2});
  CHECK(g.constants.at("s").num_elements() == 0);
  const runtime::NDArray& sum = g.constants.at("sum");
  REQUIRE(sum.num_elements() == 8);
  for (int64_t i = 0; i < 8; ++i) CHECK(sum.get(i) == 0.0);
  CHECK(std::isinf(g.constants.at("max").get(0)));
  CHECK(g.constants.at("max").get(0) < 0);
  Executor executor(g, partition(g));
  auto outs = executor.run({{"x", iota({2, 3})}});
  CHECK(outs.at("s").num_elements() == 0);
  CHECK(outs.at("sum").get(3) == 0.0);
}
