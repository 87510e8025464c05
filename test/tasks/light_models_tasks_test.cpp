// The "light" ONNX model zoo models (../shared/onnx/light: weights made by
// ConstantOfShape) through import, simplify_graph, partition and
// extract_tasks. The recorded task counts, subgraph counts and GFLOP are
// what tunectl found when this test was written; the structural checks
// (every conv in a subgraph of its own, BN folded away, FLOPs of the
// well-known size) say why they are plausible.
#include <catch2/catch.hpp>

#include <filesystem>

#include "graph/import.h"
#include "graph/partition.h"
#include "graph/passes.h"
#include "tasks/extract.h"

using namespace tunectl;

namespace {

std::string light_model(const std::string& name) {
  std::filesystem::path dir = std::filesystem::path(TUNECTL_SOURCE_DIR) / ".." / "shared" / "onnx" / "light";
  std::filesystem::path path = dir / ("light_" + name + ".onnx");
  INFO("ONNX light models expected in " << dir.string() << " (../shared/onnx/light relative to the repository)");
  REQUIRE(std::filesystem::exists(path));
  return path.string();
}

struct Expected {
  const char* model;
  size_t tasks;
  size_t subgraphs;
  int convs;   // Conv nodes after simplification, one per subgraph
  int gemms;
  double gflop;  // per model run, sum of weight x GFLOP
};

int count_op(const graph::Graph& g, const std::string& op) {
  int n = 0;
  for (const graph::Node& node : g.nodes) n += node.op_type == op;
  return n;
}

}  // namespace

TEST_CASE("light models partition into plausible tasks", "[models][tasks]") {
  // ResNet-50: 53 convs (BN folded in), the FC as a Gemm; 8.2 GFLOP is its
  // well-known 4.1 GMAC. VGG-19: 16 convs + 3 FC, 19.6 GMAC. AlexNet: 5 convs
  // (two grouped) + 3 FC. SqueezeNet 1.0: 26 convs, no FC.
  const Expected cases[] = {
      {"resnet50", 28, 57, 53, 1, 8.2065},
      {"squeezenet", 23, 31, 26, 0, 0.7066},
      {"vgg19", 18, 25, 16, 3, 39.3000},
      {"bvlc_alexnet", 14, 14, 5, 3, 1.3177},
  };
  for (const Expected& e : cases) {
    DYNAMIC_SECTION(e.model) {
      graph::Graph g = graph::simplify_graph(graph::import_onnx(light_model(e.model)));
      CHECK(count_op(g, "BatchNormalization") == 0);
      CHECK(count_op(g, "ConstantOfShape") == 0);
      CHECK(count_op(g, "Conv") == e.convs);
      CHECK(count_op(g, "Gemm") == e.gemms);
      for (const auto& [name, info] : g.values) {
        INFO(name);
        CHECK(info.shape_known);
      }
      std::vector<graph::Subgraph> subgraphs = graph::partition(g);
      CHECK(subgraphs.size() == e.subgraphs);
      for (const graph::Subgraph& sg : subgraphs) {
        int anchors = 0;
        for (int i : sg.nodes) anchors += g.nodes[i].op_type == "Conv" || g.nodes[i].op_type == "Gemm";
        CHECK(anchors <= 1);
      }
      std::vector<tasks::Task> tasks = tasks::extract_tasks(subgraphs);
      CHECK(tasks.size() == e.tasks);
      int weights = 0;
      double gflop = 0;
      for (const tasks::Task& t : tasks) {
        weights += t.weight;
        gflop += t.weight * t.flops / 1e9;
      }
      CHECK(weights == static_cast<int>(subgraphs.size()));
      CHECK(gflop == Approx(e.gflop).epsilon(1e-4));
    }
  }
}
