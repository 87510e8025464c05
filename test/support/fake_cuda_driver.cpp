// A stand-in for the CUDA driver (libcuda.so.1) for tests on machines
// without a GPU: the part of the driver API tunectl calls
// (runtime/cuda_driver.h), with device memory in host memory and kernels
// run on the host. A module's cubin cannot run here, so cuModuleGetFunction
// finds the kernel of that name in the library of host-compiled CUDA C that
// TUNECTL_FAKE_CUDA_KERNELS names (test/support/cuda_on_host.h builds it from
// the same lowered functions), and cuLaunchKernel runs it over the grid
// (host_grid.h). The device is an sm_90 with an H100's figures
// (TUNECTL_FAKE_CUDA_ARCH=sm_86 makes it another arch). What it checks is
// everything around the kernels: which buffers a launch gets, the grid and
// block, the copies in and out. Streams capture launches into graphs as the
// driver does (each argument's value read at the launch call, the graph
// replayed by cuGraphLaunch), and while this thread captures, the calls
// capture forbids (a copy, an allocation, a synchronize, a launch on the
// default stream) fail as they do on a GPU. tunectl_fake_cuda_launches
// tells a test how many kernels ran from a launch call and how many from
// graphs.
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
constexpr CUresult kSuccess = 0, kInvalidValue = 1, kNotFound = 500, kLaunchFailed = 719, kCaptureUnsupported = 900,
                   kNoDevice = 100;

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

struct RecordedLaunch {
  const Function* function = nullptr;
  std::array<int64_t, 3> grid{}, block{};
  std::vector<void*> args;
};

using Graph = std::vector<RecordedLaunch>;

struct Stream {
  Graph* capture = nullptr;  // while capturing
};

// Streams of this thread that capture (thread-local capture mode).
thread_local int t_capturing = 0;
int direct_launches = 0, graph_launches = 0;

CUresult run_launch(const RecordedLaunch& l) {
  try {
    tunectl::testing::run_host_grid(kernels(), l.function->name, l.grid, l.block, l.args.data());
  } catch (const std::exception&) {
    return kLaunchFailed;
  }
  return kSuccess;
}

}  // namespace

extern "C" {

// As the driver, no device where CUDA_VISIBLE_DEVICES hides them all (the
// NVRTC helper of codegen/cuda/compile_process.h, whose NVRTC calls cuInit).
CUresult cuInit(unsigned) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  return visible && std::strcmp(visible, "-1") == 0 ? kNoDevice : kSuccess;
}
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
    case 8: *v = 49152; break;         // shared memory per block
    case 10: *v = 32; break;           // warp
    case 13: *v = 1755000; break;      // clock, kHz
    case 16: *v = 132; break;          // SMs
    case 36: *v = 2619000; break;      // memory clock, kHz
    case 37: *v = 5120; break;         // memory bus, bits
    case 38: *v = 50 << 20; break;     // L2
    case 39: *v = 2048; break;         // threads per SM
    case 81: *v = 233472; break;       // shared memory per SM
    case 82: *v = 65536; break;        // registers per SM
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
CUresult cuCtxSynchronize() { return t_capturing ? kCaptureUnsupported : kSuccess; }

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
  if (t_capturing) return kCaptureUnsupported;
  *p = reinterpret_cast<uint64_t>(std::aligned_alloc(256, (bytes + 255) / 256 * 256));
  return *p ? kSuccess : 2;
}
CUresult cuMemFree_v2(uint64_t p) {
  if (t_capturing) return kCaptureUnsupported;
  std::free(reinterpret_cast<void*>(p));
  return kSuccess;
}
CUresult cuMemcpyHtoD_v2(uint64_t to, const void* from, size_t bytes) {
  if (t_capturing) return kCaptureUnsupported;
  std::memcpy(reinterpret_cast<void*>(to), from, bytes);
  return kSuccess;
}
CUresult cuMemcpyDtoH_v2(void* to, uint64_t from, size_t bytes) {
  if (t_capturing) return kCaptureUnsupported;
  std::memcpy(to, reinterpret_cast<const void*>(from), bytes);
  return kSuccess;
}
CUresult cuMemsetD8_v2(uint64_t to, unsigned char value, size_t bytes) {
  if (t_capturing) return kCaptureUnsupported;
  std::memset(reinterpret_cast<void*>(to), value, bytes);
  return kSuccess;
}

// Runs the kernel at once (a launch is complete when it returns), or on a
// capturing stream records it.
CUresult cuLaunchKernel(void* function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned, void* stream, void** params, void**) {
  // params[i] points at argument i's value, a device (here: host) address.
  const auto* f = static_cast<const Function*>(function);
  RecordedLaunch l{f, {gx, gy, gz}, {bx, by, bz}, {}};
  for (int i = 0; i < f->num_args; ++i) l.args.push_back(reinterpret_cast<void*>(*static_cast<uint64_t*>(params[i])));
  Stream* s = static_cast<Stream*>(stream);
  if (s && s->capture) {
    s->capture->push_back(std::move(l));
    return kSuccess;
  }
  // The default stream waits for every blocking stream, a capturing one too.
  if (!s && t_capturing) return kCaptureUnsupported;
  ++direct_launches;
  return run_launch(l);
}

CUresult cuStreamCreate(void** stream, unsigned) {
  *stream = new Stream;
  return kSuccess;
}
CUresult cuStreamDestroy_v2(void* stream) {
  Stream* s = static_cast<Stream*>(stream);
  if (s->capture) return kCaptureUnsupported;
  delete s;
  return kSuccess;
}
CUresult cuStreamBeginCapture_v2(void* stream, int) {
  Stream* s = static_cast<Stream*>(stream);
  if (!s || s->capture) return kInvalidValue;
  s->capture = new Graph;
  ++t_capturing;
  return kSuccess;
}
CUresult cuStreamEndCapture(void* stream, void** graph) {
  Stream* s = static_cast<Stream*>(stream);
  if (!s || !s->capture) return kInvalidValue;
  *graph = s->capture;
  s->capture = nullptr;
  --t_capturing;
  return kSuccess;
}
CUresult cuGraphInstantiateWithFlags(void** exec, void* graph, unsigned long long) {
  *exec = new Graph(*static_cast<Graph*>(graph));
  return kSuccess;
}
CUresult cuGraphLaunch(void* exec, void*) {
  if (t_capturing) return kCaptureUnsupported;
  for (const RecordedLaunch& l : *static_cast<Graph*>(exec)) {
    ++graph_launches;
    if (CUresult r = run_launch(l); r != kSuccess) return r;
  }
  return kSuccess;
}
CUresult cuGraphExecDestroy(void* exec) {
  delete static_cast<Graph*>(exec);
  return kSuccess;
}
CUresult cuGraphDestroy(void* graph) {
  delete static_cast<Graph*>(graph);
  return kSuccess;
}

// For tests: kernels run by cuLaunchKernel and by cuGraphLaunch so far.
void tunectl_fake_cuda_launches(int* direct, int* from_graphs) {
  *direct = direct_launches;
  *from_graphs = graph_launches;
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
  *text = r == kCaptureUnsupported ? "operation not permitted when stream is capturing"
          : r == kNotFound ? "named symbol not found (the stand-in driver's host kernels lack it)"
                         : r == kLaunchFailed ? "unspecified launch failure" : "error in the stand-in CUDA driver";
  return kSuccess;
}

}  // extern "C"
