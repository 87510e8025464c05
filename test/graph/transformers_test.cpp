// The transformer models of models/make_transformers.cpp at their tiny size
// (models/transformers/: 2 layers, hidden 64, seq 16): import, simplify,
// partition and run with the executor, against ONNX Runtime's outputs on the
// committed inputs (written by scripts/ort/ort-bench.mjs testdata) and
// against the reference evaluator run node by node on ids that reach across
// the vocabulary. BERT-base and GPT-2 small are the same graphs, larger.
#include <catch2/catch.hpp>

#include "graph/executor.h"
#include "graph/import.h"
#include "graph/partition.h"
#include "graph/passes.h"
#include "graph/tensor_proto.h"
#include "passes_graph_builder.h"

using namespace tunectl;
using namespace tunectl::graph;

namespace {

std::string model_path(const std::string& name, const std::string& suffix) {
  return std::string(TUNECTL_SOURCE_DIR) + "/models/transformers/" + name + suffix;
}

// Every output of the executor against the value of that name in `expected`.
void check_outputs(const std::map<std::string, runtime::NDArray>& actual,
                   const std::map<std::string, runtime::NDArray>& expected, double rtol, double atol) {
  REQUIRE(actual.size() == 1);
  for (const auto& [name, value] : actual) {
    INFO(name);
    REQUIRE(expected.count(name));
    runtime::CompareResult r = runtime::all_close(value, expected.at(name), rtol, atol);
    INFO(r.message);
    CHECK(r.ok);
  }
}

std::vector<std::string> subgraph_names(const std::vector<Subgraph>& sgs) {
  std::vector<std::string> names;
  for (const auto& sg : sgs) names.push_back(sg.name);
  return names;
}

}  // namespace

TEST_CASE("tiny BERT and GPT-2 match ONNX Runtime and the node-by-node reference", "[cpu]") {
  for (const std::string name : {"bert_tiny", "gpt2_tiny"}) {
    INFO(name);
    Graph imported = import_onnx(model_path(name, ".onnx"));
    Graph g = simplify_graph(imported);
    std::vector<Subgraph> sgs = partition(g);
    // The GELU's x * f(x) joins the feed-forward matmul: x has only
    // elementwise readers.
    const std::string gelu_head = name == "bert_tiny" ? "matmul_add_div_erf_etc_" : "matmul_add_pow_mul_etc_";
    const auto names = subgraph_names(sgs);
    CHECK(std::count_if(names.begin(), names.end(), [&](const std::string& n) { return n.rfind(gelu_head, 0) == 0; }) ==
          2);
    Executor executor(g, sgs);

    NamedTensor ids = read_tensor_pb(model_path(name, "_input_0.pb"));
    NamedTensor ort = read_tensor_pb(model_path(name, "_output_0.pb"));
    check_outputs(executor.run({{ids.name, ids.value}}), {{ort.name, ort.value}}, 1e-3, 1e-4);

    // Token ids across the whole vocabulary of 100.
    runtime::NDArray spread(ir::DType::Int64, {1, 16});
    for (int64_t i = 0; i < 16; ++i) spread.set(i, static_cast<double>((i * 37 + 11) % 100));
    check_outputs(executor.run({{"input_ids", spread}}), hand::run_nodes(imported, {{"input_ids", spread}}), 1e-4,
                  1e-5);
  }
}
