// A CUDA kernel as a runtime::Kernel: its cubin loaded into this process's
// CUDA context (runtime/cuda_driver.h), launched on device copies of the
// caller's host arrays. run() copies every argument to the device, launches
// and copies every argument back (for checks and the executor; not timed);
// time() times launches alone, on arguments already on the device, with
// CUDA events, the L2 cache flushed before each repeat. launch() queues it
// on arguments in cuda_device_memory(), as the executor does for a model
// whose tensors stay on the device.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "runtime/cuda_driver.h"
#include "runtime/kernel.h"
#include "runtime/timer.h"

namespace tunectl::runtime {

struct CudaLaunch {
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> block{1, 1, 1};
};

// Times launch() (work queued on the current context's default stream) as
// time_function does: a warm-up, then repeats of `number` launches, number
// doubled until a repeat lasts min_repeat_seconds; read with CUDA events;
// the L2 cache flushed (a memset of twice its size) before each repeat when
// options.flush_cache. The median of options.repeats is the cost.
Timing time_on_device(const std::function<void()>& launch, const TimingOptions& options);

// The current device's memory (cuMemAlloc, synchronous copies on the
// default stream, where the kernels are launched); its capture() records
// the kernels' launches as a CUDA graph (runtime/cuda_graph.h).
const DeviceMemory& cuda_device_memory();

class CudaKernel final : public Kernel {
 public:
  // cubin holds `symbol`; arg_bytes has the size of each argument buffer in
  // LoweredFunc::args order. UserError when this machine has no GPU or the
  // driver refuses the module.
  CudaKernel(std::string symbol, const std::vector<char>& cubin, CudaLaunch launch, std::vector<size_t> arg_bytes);
  ~CudaKernel() override;
  CudaKernel(const CudaKernel&) = delete;
  CudaKernel& operator=(const CudaKernel&) = delete;

  const std::string& name() const override { return symbol_; }
  void run(void* const* args) const override;
  // No packed inputs on the GPU yet (the backend refuses them).
  std::vector<void*> pack_inputs(std::vector<void*> args, std::vector<NDArray>&) const override { return args; }
  std::vector<int> packed_args() const override { return {}; }

  // Copies args to the device once, then times launches (time_on_device).
  Timing time(void* const* args, const TimingOptions& options) const override;

  const DeviceMemory* device_memory() const override { return &cuda_device_memory(); }
  void launch(void* const* device_args) const override;

 private:
  void launch_on(const std::vector<CUdeviceptr>& device_args) const;
  std::vector<CUdeviceptr> to_device(void* const* args) const;
  void free_all(const std::vector<CUdeviceptr>& buffers) const;

  const CudaDriver& driver_;
  std::string symbol_;
  CudaLaunch launch_;
  std::vector<size_t> arg_bytes_;
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
};

}  // namespace tunectl::runtime
