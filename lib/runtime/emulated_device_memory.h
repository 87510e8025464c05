// The device memory of kernels that a device backend's emulator runs on the
// host (backend::emulated_kernel of a cuda function): host allocations that
// stand for device ones, so `run --emulate` keeps a model where a device
// would, and every kernel argument is checked to lie in one of them (an
// executor that hands a kernel a host address fails here, not on a GPU).
#pragma once

#include <cstddef>

#include "runtime/kernel.h"

namespace tunectl::runtime {

class EmulatedDeviceMemory final : public DeviceMemory {
 public:
  void* allocate(size_t bytes) const override;
  void release(void* device) const noexcept override;
  void upload(void* device, const void* host, size_t bytes) const override;
  void download(void* host, const void* device, size_t bytes) const override;
  void synchronize() const override {}
  // Whether [p, p + bytes) lies in one live allocation.
  bool contains(const void* p, size_t bytes) const;
};

const EmulatedDeviceMemory& emulated_device_memory();

}  // namespace tunectl::runtime
