// The launches of a model on a GPU recorded once as a CUDA graph and
// replayed by each run, checked on a machine without one: the stand-in driver
// (support/fake_cuda_driver.cpp) captures launches as the driver does (each
// argument's value read at the launch call) and fails what capture forbids,
// and it counts the kernels that ran from launch calls and from graphs. The
// executor's outputs over several runs with new inputs must be those of the
// emulated executor, which launches one by one. Like the library's test
// beside it, a case for a process of its own (as CTest runs them): the
// driver and the device it reports are found once per process.
#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "backend/backend.h"
#include "graph/executor.h"
#include "graph/import.h"
#include "graph/partition.h"
#include "graph/passes.h"
#include "lower/lower.h"
#include "support/cuda_on_host.h"
#include "support/fake_cuda.h"

namespace tunectl {

namespace fs = std::filesystem;

namespace {

std::map<std::string, runtime::NDArray> random_input(const graph::Graph& g, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const graph::ValueInfo& info = g.info(g.inputs[0]);
  runtime::NDArray input(info.dtype, info.shape);
  input.fill_random(rng);
  std::map<std::string, runtime::NDArray> inputs;
  inputs.emplace(g.inputs[0], std::move(input));
  return inputs;
}

}  // namespace

TEST_CASE("executor: a model on a (stand-in) GPU replays its launches as one CUDA graph", "[cpu]") {
  const fs::path dir = fs::temp_directory_path() / ("tunectl-cuda-graph-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Loaded under its soname before the target is resolved: the device the
  // backend finds, builds for and launches on is the stand-in's.
  void* driver = dlopen(TUNECTL_FAKE_CUDA, RTLD_NOW | RTLD_GLOBAL);
  INFO(dlerror());
  REQUIRE(driver != nullptr);
  const graph::Graph g =
      graph::simplify_graph(graph::import_onnx(std::string(TUNECTL_SOURCE_DIR) + "/models/small_cnn.onnx"));
  const std::vector<graph::Subgraph> subgraphs = graph::partition(g);
  graph::ExecutorOptions options;
  options.backend = backend::make_backend(backend::resolve_target("cuda -arch=sm_90"));
  REQUIRE_FALSE(options.backend->why_not_here());

  // The kernels the executor builds, under its symbols, in CUDA C for the host.
  std::vector<lower::LoweredFunc> funcs;
  std::set<std::string> keys;
  for (const graph::Subgraph& sg : subgraphs)
    if (keys.insert(sg.dag->workload_key()).second)
      funcs.push_back(lower::lower(options.backend->default_schedule(sg.dag), graph::subgraph_kernel_symbol(sg.name),
                                   options.backend->target()));
  std::vector<const lower::LoweredFunc*> all;
  for (const lower::LoweredFunc& f : funcs) all.push_back(&f);
  const testing::CudaOnHost host(all, dir.string());
  setenv("TUNECTL_FAKE_CUDA_KERNELS", (dir / "kernels.so").c_str(), 1);

  graph::ExecutorOptions emulated = options;
  emulated.emulate = true;
  graph::Executor reference(g, subgraphs, emulated);
  graph::Executor on_gpu(g, subgraphs, options);
  graph::ExecutorOptions one_by_one_options = options;
  one_by_one_options.launch_graph = false;
  graph::Executor one_by_one(g, subgraphs, one_by_one_options);
  const testing::FakeCudaLaunches before = testing::fake_cuda_launches(driver);
  CHECK(before.direct == 0);  // recording ran nothing
  CHECK(before.from_graphs == 0);

  const int runs = 3;
  for (int run = 0; run < runs; ++run) {
    const auto inputs = random_input(g, 11 + run);
    const auto expected = reference.run(inputs);
    const auto graphed = on_gpu.run(inputs);
    const auto launched = one_by_one.run(inputs);
    for (const std::string& name : g.outputs) {
      const runtime::CompareResult r = runtime::all_close(graphed.at(name), expected.at(name), 1e-5, 1e-6);
      INFO("run " << run << ", output " << name << ": " << r.message);
      CHECK(r.ok);
      CHECK(runtime::all_close(launched.at(name), expected.at(name), 1e-5, 1e-6).ok);
    }
  }
  // Each graphed run ran every subgraph's kernel from its graph; the other
  // executor launched each one by one.
  const testing::FakeCudaLaunches after = testing::fake_cuda_launches(driver);
  CHECK(after.from_graphs == runs * static_cast<int>(subgraphs.size()));
  CHECK(after.direct == runs * static_cast<int>(subgraphs.size()));

  // A profiled run times each kernel, so it launches them one by one.
  graph::ExecutorOptions profiled = options;
  profiled.profile = true;
  graph::Executor timed(g, subgraphs, profiled);
  timed.run(random_input(g, 5));
  CHECK(testing::fake_cuda_launches(driver).from_graphs == after.from_graphs);
  fs::remove_all(dir);
}

}  // namespace tunectl
