#include "support/compiled_model.h"

#include <dlfcn.h>

#include <catch2/catch.hpp>

#include <random>

#include "graph/partition.h"

#include "deploy_runtime/tunectl_model.h"

namespace tunectl::testing {

namespace {

template <typename F>
F symbol(void* library, const char* name) {
  auto f = reinterpret_cast<F>(dlsym(library, name));
  INFO(name);
  REQUIRE(f != nullptr);
  return f;
}

}  // namespace

void run_compiled_model(const std::string& library, const std::string& dir, const std::vector<runtime::NDArray>& inputs,
                        std::vector<runtime::NDArray>& outputs) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  INFO(library);
  REQUIRE(handle != nullptr);
  auto create = symbol<tunectl_model* (*)(const char*)>(handle, "tunectl_model_create");
  auto run = symbol<int (*)(tunectl_model*, const void* const*, void* const*)>(handle, "tunectl_model_run");
  auto destroy = symbol<void (*)(tunectl_model*)>(handle, "tunectl_model_destroy");
  auto last_error = symbol<const char* (*)()>(handle, "tunectl_model_last_error");
  tunectl_model* model = create(dir.c_str());
  INFO(last_error());
  REQUIRE(model != nullptr);
  std::vector<const void*> in;
  for (const runtime::NDArray& a : inputs) in.push_back(a.raw());
  std::vector<void*> out;
  for (runtime::NDArray& a : outputs) out.push_back(a.raw());
  const int status = run(model, in.data(), out.data());
  INFO(last_error());
  CHECK(status == 0);
  destroy(model);
  dlclose(handle);
}

void check_compiled_model(const graph::Graph& g, const graph::ExecutorOptions& options, const std::string& library,
                          const std::string& dir) {
  REQUIRE(g.inputs.size() == 1);
  std::mt19937_64 rng(7);
  const graph::ValueInfo& info = g.info(g.inputs[0]);
  runtime::NDArray input(info.dtype, info.shape);
  input.fill_random(rng);
  std::vector<runtime::NDArray> outputs;
  for (const std::string& name : g.outputs) outputs.emplace_back(g.info(name).dtype, g.info(name).shape);
  run_compiled_model(library, dir, {input}, outputs);
  graph::Executor executor(g, graph::partition(g), options);
  const auto expected = executor.run({{g.inputs[0], input}});
  for (size_t o = 0; o < g.outputs.size(); ++o) {
    const runtime::CompareResult r = runtime::all_close(outputs[o], expected.at(g.outputs[o]), 1e-5, 1e-6);
    INFO(g.outputs[o] << ": " << r.message);
    CHECK(r.ok);
  }
}

}  // namespace tunectl::testing
