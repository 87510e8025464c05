// A stand-in for the CUDA driver (libcuda.so.1) for tests on machines
// without a GPU: the part of the driver API tunectl calls
// (runtime/cuda_driver.h), with device memory in host memory and kernels
// run on the host. A module's cubin cannot run here, so cuModuleGetFunction
// finds the kernel of that name in the library of host-compiled CUDA C that
// TUNECTL_FAKE_CUDA_KERNELS names (test/support/cuda_on_host.h builds it from
// the same lowered functions), and cuLaunchKernel runs it over the grid
// (host_grid.h). The device is an sm_90 (TUNECTL_FAKE_CUDA_ARCH=sm_86 makes
// it another). What it checks is everything around the kernels: which
// buffers a launch gets, the grid and block, the copies in and out.
#include <dlfcn.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "support/host_grid.h"

namespace {

using CUresult = int;
constexpr CUresult kSuccess = 0, kInvalidValue = 1, kNotFound = 500, kLaunchFailed = 719;

struct Function {
  std::string name;
  int num_args = 0;
};

void* kernels() {
  static void* handle = [] {
    const char* path = std::getenv("TUNECTL_FAKE_CUDA_KERNELS");
    return path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
  }();
  return handle;
}

int arch() {
  const char* a = std::getenv("TUNECTL_FAKE_CUDA_ARCH");
  return a && std::strncmp(a, "sm_", 3) == 0 ? std::atoi(a + 3) : 90;
}

}  // namespace

extern "C" {

CUresult cuInit(unsigned) { return kSuccess; }
CUresult cuDeviceGetCount(int* n) {
  *n = 1;
  return kSuccess;
}
CUresult cuDeviceGet(int* device, int) {
  *device = 0;
  return kSuccess;
}
CUresult cuDeviceGetAttribute(int* v, int attribute, int) {
  switch (attribute) {
    case 75: *v = arch() / 10; break;  // compute capability
    case 76: *v = arch() % 10; break;
    case 1: *v = 1024; break;          // threads per block
    case 10: *v = 32; break;           // warp
    case 16: *v = 132; break;          // SMs
    default: *v = 1; break;
  }
  return kSuccess;
}
CUresult cuDeviceGetName(char* name, int length, int) {
  std::strncpy(name, "tunectl's stand-in GPU", static_cast<size_t>(length));
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRetain(void** context, int) {
  static int the_context;
  *context = &the_context;
  return kSuccess;
}
CUresult cuCtxSetCurrent(void*) { return kSuccess; }
CUresult cuCtxSynchronize() { return kSuccess; }

CUresult cuModuleLoadData(void** module, const void* image) {
  *module = const_cast<void*>(image);
  return image ? kSuccess : kInvalidValue;
}
CUresult cuModuleUnload(void*) { return kSuccess; }
CUresult cuModuleGetFunction(void** function, void*, const char* name) {
  static std::map<std::string, Function> functions;
  const auto* num_args = kernels() ? static_cast<const int*>(dlsym(kernels(), ("tc_num_args_" + std::string(name)).c_str()))
                                   : nullptr;
  if (!num_args) return kNotFound;
  Function& f = functions[name];
  f = {name, *num_args};
  *function = &f;
  return kSuccess;
}

CUresult cuMemAlloc_v2(uint64_t* p, size_t bytes) {
  *p = reinterpret_cast<uint64_t>(std::aligned_alloc(256, (bytes + 255) / 256 * 256));
  return *p ? kSuccess : 2;
}
CUresult cuMemFree_v2(uint64_t p) {
  std::free(reinterpret_cast<void*>(p));
  return kSuccess;
}
CUresult cuMemcpyHtoD_v2(uint64_t to, const void* from, size_t bytes) {
  std::memcpy(reinterpret_cast<void*>(to), from, bytes);
  return kSuccess;
}
CUresult cuMemcpyDtoH_v2(void* to, uint64_t from, size_t bytes) {
  std::memcpy(to, reinterpret_cast<const void*>(from), bytes);
  return kSuccess;
}
CUresult cuMemsetD8_v2(uint64_t to, unsigned char value, size_t bytes) {
  std::memset(reinterpret_cast<void*>(to), value, bytes);
  return kSuccess;
}

// Runs the kernel at once: a launch is complete when it returns.
CUresult cuLaunchKernel(void* function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned, void*, void** params, void**) {
  // params[i] points at argument i's value, a device (here: host) address.
  const auto* f = static_cast<const Function*>(function);
  std::vector<void*> args;
  for (int i = 0; i < f->num_args; ++i) args.push_back(reinterpret_cast<void*>(*static_cast<uint64_t*>(params[i])));
  try {
    tunectl::testing::run_host_grid(kernels(), f->name, {gx, gy, gz}, {bx, by, bz}, args.data());
  } catch (const std::exception&) {
    return kLaunchFailed;
  }
  return kSuccess;
}

CUresult cuEventCreate(void** event, unsigned) {
  *event = nullptr;
  return kSuccess;
}
CUresult cuEventRecord(void*, void*) { return kSuccess; }
CUresult cuEventSynchronize(void*) { return kSuccess; }
CUresult cuEventElapsedTime(float* ms, void*, void*) {
  *ms = 0;
  return kSuccess;
}
CUresult cuEventDestroy_v2(void*) { return kSuccess; }
CUresult cuGetErrorString(CUresult r, const char** text) {
  *text = r == kNotFound ? "named symbol not found (the stand-in driver's host kernels lack it)"
                         : r == kLaunchFailed ? "unspecified launch failure" : "error in the stand-in CUDA driver";
  return kSuccess;
}

}  // extern "C"
