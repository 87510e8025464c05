// Private to lib/backend: the NVIDIA GPU backend. Lowered GPU functions
// become CUDA C (lib/codegen/cuda), compiled with NVRTC to PTX and a cubin
// for the target's arch; both work without a GPU. The kernels folder gets
// <symbol>.cu, .ptx and .cubin. Running a kernel needs the CUDA driver and
// a device (runtime/cuda_driver.h, runtime/cuda_kernel.h).
#pragma once

#include "backend/backend.h"

namespace tunectl::backend {

// `cuda`: the device's arch and facts when this machine has one, else
// sm_90's from the table; `cuda -arch=sm_NN`: the device's facts when it is
// of that arch, else the table's. UserError for an arch the table lacks.
target::Target resolve_cuda_target(const target::TargetSpec& spec, const std::string& text);

class CudaBackend final : public Backend {
 public:
  // Starts the NVRTC helper (codegen/cuda/nvrtc.h) before anything runs.
  explicit CudaBackend(target::Target target);
  // A runtime::CudaKernel (runtime/cuda_kernel.h): compiled (and refused
  // when it spills) first, then loaded, which needs a device: UserError
  // "no CUDA driver or device" without one.
  std::unique_ptr<runtime::Kernel> build(const lower::LoweredFunc& func) const override;
  // path ends in .cubin; the .cu and .ptx are written beside it.
  void write(const lower::LoweredFunc& func, const std::string& path) const override;
  std::string file_suffix() const override { return ".cubin"; }
  bool builds_device_code() const override { return true; }
  bool links_objects() const override { return false; }
  // {"grid": [x, y, z], "block": [x, y, z], "dynamic_shared_bytes": 0}; the
  // packing kernels run on one thread.
  nlohmann::json launch_config(const lower::LoweredFunc& func) const override;
  std::vector<std::string> emit_kinds() const override { return {"cuda", "ptx", "resources"}; }
  std::string emit(const lower::LoweredFunc& func, const std::string& kind) const override;
  schedule::State default_schedule(std::shared_ptr<const te::ComputeDAG> dag) const override;
  std::optional<std::string> why_not_here() const override;
  void emulate(const lower::LoweredFunc& func, const std::vector<runtime::NDArray*>& args) const override;
  bool emulate_sample(const lower::LoweredFunc& func, const std::vector<runtime::NDArray*>& args,
                      int64_t max_blocks) const override;
};

// The default arch of `cuda` on a machine without a GPU.
inline constexpr const char* kDefaultGpuArch = "sm_90";

}  // namespace tunectl::backend
