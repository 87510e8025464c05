#include "cuda_runner.h"

#include <stdexcept>

namespace tunectl::deploy_runtime {

namespace {

// "sm_86" -> 86; -1 when it is not of that form.
int arch_number(const std::string& arch) {
  if (arch.rfind("sm_", 0) != 0 || arch.size() < 5) return -1;
  int n = 0;
  for (size_t i = 3; i < arch.size(); ++i) {
    if (arch[i] < '0' || arch[i] > '9') return -1;
    n = n * 10 + (arch[i] - '0');
  }
  return n;
}

}  // namespace

void check_gpu_arch(const std::string& model, const std::string& built_arch, const std::string& device_arch,
                    const std::string& device_name) {
  const int built = arch_number(built_arch), device = arch_number(device_arch);
  if (built < 0) throw std::runtime_error("model " + model + " names no GPU arch (the plan says '" + built_arch + "')");
  // A cubin runs on its own major version, from its minor one up.
  if (device / 10 != built / 10 || device % 10 < built % 10)
    throw std::runtime_error("model " + model + " was compiled for " + built_arch + ", and this GPU (" + device_name +
                             ") is " + device_arch + ": compile it with --target \"cuda -arch=" + device_arch + "\"");
}

CudaRunner::CudaRunner(const nlohmann::json& plan, const unsigned char* const* cubins, const void* weights,
                       size_t weights_bytes, const std::vector<size_t>& input_bytes, size_t arena_bytes)
    : driver_(runtime::CudaDriver::get()) {
  try {
    load(plan, cubins, weights, weights_bytes, input_bytes, arena_bytes);
  } catch (...) {
    release();  // what was loaded before the failure
    throw;
  }
}

void CudaRunner::load(const nlohmann::json& plan, const unsigned char* const* cubins, const void* weights,
                      size_t weights_bytes, const std::vector<size_t>& input_bytes, size_t arena_bytes) {
  const std::string name = plan.at("name").get<std::string>();
  check_gpu_arch(name, plan.at("features").at(0).get<std::string>(), driver_.facts.arch, driver_.facts.device);
  const nlohmann::json& kernels = plan.at("kernels");
  for (size_t k = 0; k < kernels.size(); ++k) {
    if (!cubins[k]) throw std::runtime_error("the plan names kernel " + std::to_string(k) + ", which the library lacks");
    runtime::CUmodule module = nullptr;
    driver_.check(driver_.ModuleLoadData(&module, cubins[k]), "cuModuleLoadData");
    modules_.push_back(module);
    Kernel kernel;
    const std::string symbol = kernels[k].at("symbol").get<std::string>();
    driver_.check(driver_.ModuleGetFunction(&kernel.function, module, symbol.c_str()), "cuModuleGetFunction");
    for (int d = 0; d < 3; ++d) {
      kernel.grid[d] = kernels[k].at("grid").at(d).get<unsigned>();
      kernel.block[d] = kernels[k].at("block").at(d).get<unsigned>();
    }
    kernel.shared_bytes = kernels[k].value("dynamic_shared_bytes", 0u);
    kernels_.push_back(kernel);
  }
  const runtime::CUdeviceptr device_weights = allocate(weights_bytes);
  if (weights_bytes > 0) driver_.check(driver_.MemcpyHtoD(device_weights, weights, weights_bytes), "cuMemcpyHtoD");
  for (size_t bytes : input_bytes) inputs_.emplace_back(allocate(bytes), bytes);
  arena_ = allocate(arena_bytes);
  for (const nlohmann::json& l : plan.at("launches")) {
    Launch launch;
    launch.kernel = l.at("kernel").get<size_t>();
    if (launch.kernel >= kernels_.size())
      throw std::runtime_error("the plan names kernel " + std::to_string(launch.kernel));
    for (const nlohmann::json& a : l.at("args")) {
      const std::string home = a.at(0).get<std::string>();
      const size_t where = a.at(1).get<size_t>();
      if (home == "input") launch.args.push_back(inputs_.at(where).first);
      else if (home == "weights") launch.args.push_back(device_weights + where);
      else launch.args.push_back(arena_ + where);
    }
    launches_.push_back(std::move(launch));
  }
  graph_ = std::make_unique<runtime::CudaGraph>(driver_, [&](runtime::CUstream stream) { queue_launches(stream); });
}

void CudaRunner::queue_launches(runtime::CUstream stream) const {
  std::vector<void*> params;
  for (const Launch& l : launches_) {
    const Kernel& k = kernels_[l.kernel];
    params.clear();
    // cuLaunchKernel takes the address of each argument's value.
    for (const runtime::CUdeviceptr& a : l.args) params.push_back(const_cast<runtime::CUdeviceptr*>(&a));
    driver_.check(driver_.LaunchKernel(k.function, k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2],
                                       k.shared_bytes, stream, params.data(), nullptr),
                  "cuLaunchKernel");
  }
}

CudaRunner::~CudaRunner() { release(); }

void CudaRunner::release() {
  graph_.reset();  // before the modules its kernels are in
  for (runtime::CUdeviceptr b : buffers_) driver_.MemFree(b);
  for (runtime::CUmodule m : modules_) driver_.ModuleUnload(m);
  buffers_.clear();
  modules_.clear();
}

runtime::CUdeviceptr CudaRunner::allocate(size_t bytes) {
  runtime::CUdeviceptr p = 0;
  // Never empty: every argument gets an address of its own.
  driver_.check(driver_.MemAlloc(&p, bytes > 0 ? bytes : 1), "cuMemAlloc");
  buffers_.push_back(p);
  return p;
}

void CudaRunner::run(const void* const* inputs, void* const* outputs,
                     const std::vector<std::pair<size_t, size_t>>& outputs_at) const {
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i].second > 0) driver_.check(driver_.MemcpyHtoD(inputs_[i].first, inputs[i], inputs_[i].second), "cuMemcpyHtoD");
  graph_->launch();
  // Synchronous copies on the default stream wait for the graph's stream.
  for (size_t o = 0; o < outputs_at.size(); ++o)
    if (outputs_at[o].second > 0)
      driver_.check(driver_.MemcpyDtoH(outputs[o], arena_ + outputs_at[o].first, outputs_at[o].second), "cuMemcpyDtoH");
}

}  // namespace tunectl::deploy_runtime
