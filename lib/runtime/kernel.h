// A compiled kernel that runs in this process, whatever backend built it
// (backend::Backend::build): the measurement worker, the executor and the
// checks call kernels only through this interface.
//
// Calling convention: one pointer per argument buffer, in LoweredFunc::args
// order (the DAG's placeholders, then its outputs). A prepacked constant
// (lower::InputPacking) is passed packed; pack_inputs packs it once.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/ndarray.h"
#include "runtime/timer.h"

namespace tunectl::runtime {

// The calling convention of every generated kernel and packing function.
using KernelFn = void (*)(void* const* args);

// Launches recorded once and replayed together (DeviceMemory::capture).
class LaunchGraph {
 public:
  virtual ~LaunchGraph() = default;
  // Queues every recorded launch, in order, without waiting for them.
  virtual void launch() const = 0;
};

// The memory of a device whose kernels run on arguments that stay there
// between calls (a GPU's): the executor keeps a whole model's weights and
// intermediate tensors in it and copies only inputs in and outputs out.
// Addresses there are opaque pointer-sized handles, valid only as kernel
// arguments and in these calls. Errors are UserErrors.
class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  virtual void* allocate(size_t bytes) const = 0;
  virtual void release(void* device) const noexcept = 0;
  virtual void upload(void* device, const void* host, size_t bytes) const = 0;
  // Waits for the kernels launched before it; a kernel that failed fails it.
  virtual void download(void* host, const void* device, size_t bytes) const = 0;
  virtual void synchronize() const = 0;
  // Calls record() once, recording the kernels it launches (Kernel::launch)
  // instead of running them, for LaunchGraph::launch to replay with the
  // same arguments: a CUDA graph. nullptr where this device has no such
  // thing; the caller then launches the kernels one by one.
  virtual std::unique_ptr<LaunchGraph> capture(const std::function<void()>& record) const {
    (void)record;
    return nullptr;
  }
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual const std::string& name() const = 0;
  // args in LoweredFunc::args order (packed inputs packed).
  virtual void run(void* const* args) const = 0;
  // The arguments to run the kernel on, from args in LoweredFunc::args order
  // except that every packed input is still in its placeholder layout: each
  // of those is packed into a new array appended to `packed`, which takes its
  // place. Packing is not part of a kernel call: callers pack once, then run
  // and time the kernel.
  virtual std::vector<void*> pack_inputs(std::vector<void*> args, std::vector<NDArray>& packed) const = 0;
  // The arguments pack_inputs replaces (LoweredFunc::packings' `arg`).
  virtual std::vector<int> packed_args() const = 0;

  // The device memory launch() takes its arguments in, or nullptr for a
  // kernel that runs in this process's memory (run() is then in place).
  virtual const DeviceMemory* device_memory() const { return nullptr; }
  // Queues the kernel on arguments in device_memory() (packed inputs
  // packed), without copies; it may still run when this returns.
  virtual void launch(void* const* device_args) const { run(device_args); }

  // Times run(args) (args packed) with time_function; a kernel that runs
  // elsewhere (a GPU) times its launches there instead.
  virtual Timing time(void* const* args, const TimingOptions& options) const {
    return time_function([&] { run(args); }, options);
  }

  // pack_inputs, then one call: for checks, not for timing.
  void pack_and_run(std::vector<void*> args) const {
    std::vector<NDArray> packed;
    run(pack_inputs(std::move(args), packed).data());
  }
};

}  // namespace tunectl::runtime
