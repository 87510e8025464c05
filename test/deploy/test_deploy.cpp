// The compiled-model packaging (deploy/) and its runtime's checks: the
// runtime's CPU feature test agrees with LLVM's view of this CPU, a GPU
// model's arch against the device's, names are sanitized. The library end to
// end (example.c, threads, expected outputs) is test/cli/compile_test.sh; a
// GPU model's, through a stand-in driver, test/deploy_gpu.
#include <catch2/catch.hpp>

#include <algorithm>

#include "backend/backend.h"
#include "deploy/model_library.h"
#include "deploy_runtime/cpu_features.h"
#include "deploy_runtime/cuda_runner.h"
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

TEST_CASE("deploy: a GPU model runs on its own arch and on later minor versions only", "[unit]") {
  CHECK_NOTHROW(deploy_runtime::check_gpu_arch("m", "sm_90", "sm_90", "H100"));
  CHECK_NOTHROW(deploy_runtime::check_gpu_arch("m", "sm_80", "sm_86", "A10"));
  CHECK_THROWS_WITH(deploy_runtime::check_gpu_arch("m", "sm_86", "sm_80", "A100"),
                    Catch::Contains("model m was compiled for sm_86, and this GPU (A100) is sm_80") &&
                        Catch::Contains("--target \"cuda -arch=sm_80\""));
  CHECK_THROWS_WITH(deploy_runtime::check_gpu_arch("m", "sm_90", "sm_100", "B200"), Catch::Contains("is sm_100"));
  CHECK_THROWS_WITH(deploy_runtime::check_gpu_arch("m", "znver4", "sm_90", "H100"), Catch::Contains("names no GPU arch"));
}

}  // namespace
}  // namespace tunectl::deploy
