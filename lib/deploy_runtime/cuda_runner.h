// The GPU side of a compiled model's runtime (a `tunectl compile --target
// cuda` library): the plan's cubins loaded into the first GPU's primary
// context (runtime/cuda_driver.h opens the driver with dlopen, so neither
// the library nor its users link anything of CUDA), the weights and the
// arena of intermediate values in device memory for the model's lifetime,
// and a run that copies the inputs in, launches the plan's kernels in order
// (recorded once as a CUDA graph when the model loads, runtime/cuda_graph.h)
// and copies the outputs out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/cuda_driver.h"
#include "runtime/cuda_graph.h"

namespace tunectl::deploy_runtime {

class CudaRunner {
 public:
  // plan: the library's plan (its "kernels" with their launch dimensions,
  // "launches", "features" holding the GPU arch); cubins[k] is kernel k's
  // binary (an ELF image, which tells its own size). Throws
  // std::runtime_error (or UserError) when there is no GPU, it is of another
  // arch, or the driver refuses.
  CudaRunner(const nlohmann::json& plan, const unsigned char* const* cubins, const void* weights, size_t weights_bytes,
             const std::vector<size_t>& input_bytes, size_t arena_bytes);
  ~CudaRunner();
  CudaRunner(const CudaRunner&) = delete;
  CudaRunner& operator=(const CudaRunner&) = delete;

  // inputs in the plan's order; outputs[i] receives outputs_at[i].second
  // bytes from arena offset outputs_at[i].first.
  void run(const void* const* inputs, void* const* outputs,
           const std::vector<std::pair<size_t, size_t>>& outputs_at) const;

 private:
  struct Kernel {
    runtime::CUfunction function = nullptr;
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    unsigned shared_bytes = 0;
  };
  struct Launch {
    size_t kernel = 0;
    std::vector<runtime::CUdeviceptr> args;
  };
  void load(const nlohmann::json& plan, const unsigned char* const* cubins, const void* weights, size_t weights_bytes,
            const std::vector<size_t>& input_bytes, size_t arena_bytes);
  void release();
  runtime::CUdeviceptr allocate(size_t bytes);
  void queue_launches(runtime::CUstream stream) const;  // what graph_ records

  const runtime::CudaDriver& driver_;
  std::vector<runtime::CUmodule> modules_;
  std::vector<Kernel> kernels_;
  std::vector<Launch> launches_;
  std::vector<runtime::CUdeviceptr> buffers_;  // every allocation, freed at the end
  std::vector<std::pair<runtime::CUdeviceptr, size_t>> inputs_;  // device copy and bytes per input
  runtime::CUdeviceptr arena_ = 0;
  std::unique_ptr<runtime::CudaGraph> graph_;  // every launch of the plan
};

// Throws std::runtime_error unless a GPU of `device_arch` runs cubins built
// for `built_arch` ("sm_90"): the same major version, a minor one at least
// as high.
void check_gpu_arch(const std::string& model, const std::string& built_arch, const std::string& device_arch,
                    const std::string& device_name);

}  // namespace tunectl::deploy_runtime
