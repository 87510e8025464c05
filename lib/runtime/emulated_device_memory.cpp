#include "runtime/emulated_device_memory.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "ir/error.h"

namespace tunectl::runtime {

namespace {

// Live allocations: start address -> bytes.
std::mutex allocations_mutex;
std::map<uintptr_t, size_t>& allocations() {
  static std::map<uintptr_t, size_t> live;
  return live;
}

}  // namespace

void* EmulatedDeviceMemory::allocate(size_t bytes) const {
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  internal_check(p != nullptr, "cannot allocate ", bytes, " bytes of emulated device memory");
  std::lock_guard lock(allocations_mutex);
  allocations()[reinterpret_cast<uintptr_t>(p)] = bytes;
  return p;
}

void EmulatedDeviceMemory::release(void* device) const noexcept {
  if (!device) return;
  {
    std::lock_guard lock(allocations_mutex);
    allocations().erase(reinterpret_cast<uintptr_t>(device));
  }
  std::free(device);
}

void EmulatedDeviceMemory::upload(void* device, const void* host, size_t bytes) const {
  internal_check(contains(device, bytes), "upload to an address outside the emulated device memory");
  if (bytes) std::memcpy(device, host, bytes);
}

void EmulatedDeviceMemory::download(void* host, const void* device, size_t bytes) const {
  internal_check(contains(device, bytes), "download from an address outside the emulated device memory");
  if (bytes) std::memcpy(host, device, bytes);
}

bool EmulatedDeviceMemory::contains(const void* p, size_t bytes) const {
  const auto address = reinterpret_cast<uintptr_t>(p);
  std::lock_guard lock(allocations_mutex);
  auto it = allocations().upper_bound(address);
  if (it == allocations().begin()) return false;
  --it;
  return address + bytes <= it->first + it->second;
}

const EmulatedDeviceMemory& emulated_device_memory() {
  static const EmulatedDeviceMemory memory;
  return memory;
}

}  // namespace tunectl::runtime
