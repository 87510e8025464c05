// The shipped model end to end: import, simplify (BatchNormalization folded
// into the conv), partition, compile and run with the executor, against the
// reference evaluator run node by node on the graph as imported. This is the
// model of the README's main job.
#include <catch2/catch.hpp>

#include "graph/executor.h"
#include "graph/import.h"
#include "graph/partition.h"
#include "graph/passes.h"
#include "graph/tensor_proto.h"
#include "passes_graph_builder.h"

using namespace tunectl;
using namespace tunectl::graph;

TEST_CASE("small_cnn: executor output equals node-by-node reference", "[cpu]") {
  const std::string dir = std::string(TUNECTL_SOURCE_DIR) + "/models/";
  Graph imported = import_onnx(dir + "small_cnn.onnx");
  runtime::NDArray input = read_tensor_pb(dir + "small_cnn_input_0.pb").value;
  std::map<std::string, runtime::NDArray> reference = hand::run_nodes(imported, {{"input", input}});

  Graph g = simplify_graph(imported);
  CHECK(g.nodes.size() < imported.nodes.size());  // BatchNormalization folded
  Executor executor(g, partition(g));
  std::map<std::string, runtime::NDArray> actual = executor.run({{"input", input}});
  REQUIRE(actual.size() == g.outputs.size());
  for (const std::string& name : g.outputs) {
    INFO(name);
    runtime::CompareResult r = runtime::all_close(actual.at(name), reference.at(name), 1e-4, 1e-6);
    INFO(r.message);
    CHECK(r.ok);
  }
}
