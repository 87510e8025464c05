#include "runtime/cuda_driver.h"

#include <dlfcn.h>

namespace tunectl::runtime {

namespace {

// The part of cuda.h used here, declared so the build needs no toolkit.
using CUresult = int;
using CUdevice = int;
enum DeviceAttribute : int {
  kMaxThreadsPerBlock = 1,
  kMaxSharedMemoryPerBlock = 8,
  kWarpSize = 10,
  kMultiprocessorCount = 16,
  kL2CacheSize = 38,
  kComputeCapabilityMajor = 75,
  kComputeCapabilityMinor = 76,
  kMaxRegistersPerMultiprocessor = 82,
};

struct Driver {
  void* handle = nullptr;
  CUresult (*Init)(unsigned) = nullptr;
  CUresult (*DeviceGetCount)(int*) = nullptr;
  CUresult (*DeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*DeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*DeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*GetErrorString)(CUresult, const char**) = nullptr;
};

template <typename F>
bool bind(void* handle, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(handle, name));
  return f != nullptr;
}

std::string error_text(const Driver& d, CUresult r) {
  const char* text = nullptr;
  if (d.GetErrorString && d.GetErrorString(r, &text) == 0 && text) return text;
  return "CUDA error " + std::to_string(r);
}

// Opened and probed once per process.
struct Probe {
  std::optional<target::GpuFacts> facts;
  std::string why;
};

Probe probe() {
  Probe p;
  Driver d;
  d.handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!d.handle) {
    const char* err = dlerror();
    p.why = std::string("no CUDA driver (") + (err ? err : "libcuda.so.1 cannot be opened") + ")";
    return p;
  }
  const bool bound = bind(d.handle, d.Init, "cuInit") && bind(d.handle, d.DeviceGetCount, "cuDeviceGetCount") &&
                     bind(d.handle, d.DeviceGet, "cuDeviceGet") &&
                     bind(d.handle, d.DeviceGetAttribute, "cuDeviceGetAttribute") &&
                     bind(d.handle, d.DeviceGetName, "cuDeviceGetName") &&
                     bind(d.handle, d.GetErrorString, "cuGetErrorString");
  if (!bound) {
    p.why = "the CUDA driver libcuda.so.1 lacks the functions tunectl calls (too old a driver?)";
    return p;
  }
  if (CUresult r = d.Init(0); r != 0) {
    p.why = "the CUDA driver does not start (cuInit: " + error_text(d, r) + ")";
    return p;
  }
  int count = 0;
  CUdevice device = 0;
  if (d.DeviceGetCount(&count) != 0 || count == 0 || d.DeviceGet(&device, 0) != 0) {
    p.why = "the CUDA driver reports no device";
    return p;
  }
  auto attribute = [&](int which) {
    int v = 0;
    d.DeviceGetAttribute(&v, which, device);
    return v;
  };
  target::GpuFacts f;
  f.arch = "sm_" + std::to_string(attribute(kComputeCapabilityMajor)) +
           std::to_string(attribute(kComputeCapabilityMinor));
  char name[256] = {};
  d.DeviceGetName(name, sizeof name - 1, device);
  f.device = name;
  f.sm_count = attribute(kMultiprocessorCount);
  f.max_threads_per_block = attribute(kMaxThreadsPerBlock);
  f.shared_bytes_per_block = attribute(kMaxSharedMemoryPerBlock);
  f.registers_per_sm = attribute(kMaxRegistersPerMultiprocessor);
  f.warp_size = attribute(kWarpSize);
  f.l2_bytes = attribute(kL2CacheSize);
  p.facts = f;
  return p;
}

}  // namespace

std::optional<target::GpuFacts> cuda_device(std::string* why) {
  static const Probe p = probe();
  if (!p.facts && why) *why = p.why;
  return p.facts;
}

}  // namespace tunectl::runtime
