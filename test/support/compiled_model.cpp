#include "support/compiled_model.h"

#include <dlfcn.h>

#include <catch2/catch.hpp>

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

}  // namespace tunectl::testing
