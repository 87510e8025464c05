// A model compiled for a GPU (`tunectl compile --target cuda`), loaded and
// run through its C API on a machine without one: the stand-in driver
// (support/fake_cuda_driver.cpp) gives it host memory for device memory and
// runs, for each cubin's kernel, the same lowered function's CUDA C compiled
// for the host. So everything of the library but the driver and the cubins
// is checked here: the plan's launches, grids and blocks, which buffer each
// argument gets, the weights and inputs copied in and the outputs out. The
// outputs must be the executor's (emulated) ones. On a GPU, test_gpu runs
// kernels for real.
#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "backend/backend.h"
#include "deploy/model_library.h"
#include "graph/import.h"
#include "graph/partition.h"
#include "graph/passes.h"
#include "kernels/kernel_cache.h"
#include "lower/lower.h"
#include "support/compiled_model.h"
#include "support/cuda_on_host.h"
#include "support/fake_cuda.h"

namespace tunectl {

namespace fs = std::filesystem;

TEST_CASE("deploy: a GPU model's library runs its plan through the driver (a stand-in driver)", "[cpu]") {
  const fs::path dir = fs::temp_directory_path() / ("tunectl-deploy-gpu-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "host");
  const graph::Graph g =
      graph::simplify_graph(graph::import_onnx(std::string(TUNECTL_SOURCE_DIR) + "/models/small_cnn.onnx"));
  graph::ExecutorOptions options;
  options.backend = backend::make_backend(backend::resolve_target("cuda -arch=sm_90"));
  const deploy::ModelLibrary lib = deploy::write_model_library(g, options, "small_cnn", (dir / "lib").string());
  REQUIRE(lib.kernels > 0);

  // The kernels as the library holds them (default GPU schedules), in CUDA C for the host.
  std::map<std::string, lower::LoweredFunc> funcs;
  for (const graph::Subgraph& sg : graph::partition(g)) {
    const std::string key = sg.dag->workload_key();
    if (!funcs.count(key))
      funcs.emplace(key, lower::lower(options.backend->default_schedule(sg.dag), kernels::kernel_symbol(key),
                                      options.backend->target()));
  }
  std::vector<const lower::LoweredFunc*> all;
  for (const auto& [key, f] : funcs) all.push_back(&f);
  REQUIRE(all.size() == lib.kernels);
  const testing::CudaOnHost host(all, (dir / "host").string());
  setenv("TUNECTL_FAKE_CUDA_KERNELS", (dir / "host" / "kernels.so").c_str(), 1);
  // Loaded under its soname: the library's dlopen("libcuda.so.1") finds it.
  void* driver = dlopen(TUNECTL_FAKE_CUDA, RTLD_NOW | RTLD_GLOBAL);
  INFO(dlerror());
  REQUIRE(driver != nullptr);

  options.emulate = true;  // the executor's outputs to compare with
  testing::check_compiled_model(g, options, lib.library, (dir / "lib").string());
  // The library recorded its plan as one CUDA graph when it loaded and ran
  // every kernel from it.
  const testing::FakeCudaLaunches ran = testing::fake_cuda_launches(driver);
  CHECK(ran.direct == 0);
  CHECK(ran.from_graphs == static_cast<int>(graph::partition(g).size()));
  fs::remove_all(dir);
}

}  // namespace tunectl
