// The compiled-model packaging (deploy/) and its runtime's CPU check: the
// runtime's feature test agrees with LLVM's view of this CPU, names are
// sanitized, and GPU targets are refused. The library end to end (example.c,
// threads, expected outputs) is test/cli/compile_test.sh.
#include <catch2/catch.hpp>

#include <algorithm>

#include "backend/backend.h"
#include "deploy/model_library.h"
#include "deploy_runtime/cpu_features.h"
#include "graph/graph.h"
#include "ir/error.h"

namespace tunectl::deploy {
namespace {

TEST_CASE("deploy: the runtime's CPU check agrees with LLVM's host features", "[unit]") {
  const std::vector<std::string>& host = backend::host_backend()->target().features;
  REQUIRE(!host.empty());
  // Every feature LLVM says this CPU has passes the runtime's check.
  CHECK(deploy_runtime::missing_cpu_features(host).empty());
  // A checked feature LLVM says this CPU lacks is named missing.
  for (const char* feature : {"avx2", "fma", "avx512f", "avx512bw", "avx512vnni", "avx512bf16", "avx512fp16", "sse4.2"}) {
    INFO(feature);
    const bool has = std::find(host.begin(), host.end(), feature) != host.end();
    CHECK(deploy_runtime::missing_cpu_features({feature}).empty() == has);
  }
  CHECK(deploy_runtime::missing_cpu_features({"64bit", "no-such-feature"}).empty());  // not checked
}

TEST_CASE("deploy: file names from model names", "[unit]") {
  CHECK(library_name("small_cnn") == "small_cnn");
  CHECK(library_name("resnet-50.v1") == "resnet_50_v1");
  CHECK(library_name("") == "model");
}

TEST_CASE("deploy: a GPU target is refused with a message", "[error]") {
  graph::ExecutorOptions options;
  options.backend = backend::make_backend(backend::resolve_target("cuda -arch=sm_90"));
  CHECK_THROWS_WITH(write_model_library(graph::Graph{}, options, "m", "/nonexistent/never-created"),
                    Catch::Contains("built for CPU (llvm) targets; cuda -arch=sm_90 is not one yet"));
}

}  // namespace
}  // namespace tunectl::deploy
