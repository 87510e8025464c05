#include "runtime/cuda_driver.h"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "ir/error.h"

namespace tunectl::runtime {

namespace {

enum DeviceAttribute : int {
  kMaxThreadsPerBlock = 1,
  kMaxSharedMemoryPerBlock = 8,
  kWarpSize = 10,
  kClockRateKhz = 13,
  kMultiprocessorCount = 16,
  kMemoryClockRateKhz = 36,
  kGlobalMemoryBusWidthBits = 37,
  kL2CacheSize = 38,
  kMaxThreadsPerMultiprocessor = 39,
  kComputeCapabilityMajor = 75,
  kComputeCapabilityMinor = 76,
  kMaxSharedMemoryPerMultiprocessor = 81,
  kMaxRegistersPerMultiprocessor = 82,
};

// What opening and starting the driver needs, beside CudaDriver's calls.
struct Startup {
  CUresult (*Init)(unsigned) = nullptr;
  CUresult (*DeviceGetCount)(int*) = nullptr;
  CUresult (*DeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*DeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*DeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*DevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*CtxSetCurrent)(CUcontext) = nullptr;
};

template <typename F>
bool bind(void* handle, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(handle, name));
  return f != nullptr;
}

std::string error_text(CUresult (*get_error)(CUresult, const char**), CUresult r) {
  const char* text = nullptr;
  if (get_error && get_error(r, &text) == 0 && text) return text;
  return "CUDA error " + std::to_string(r);
}

// Opens the driver, starts it and reads device 0: in this process. On
// failure returns nullopt and sets why.
std::optional<CudaDriver> open_driver(std::string& why) {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    why = std::string("no CUDA driver (") + (err ? err : "libcuda.so.1 cannot be opened") + ")";
    return std::nullopt;
  }
  Startup s;
  CudaDriver d;
  const bool bound =
      bind(handle, s.Init, "cuInit") && bind(handle, s.DeviceGetCount, "cuDeviceGetCount") &&
      bind(handle, s.DeviceGet, "cuDeviceGet") && bind(handle, s.DeviceGetAttribute, "cuDeviceGetAttribute") &&
      bind(handle, s.DeviceGetName, "cuDeviceGetName") &&
      bind(handle, s.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
      bind(handle, s.CtxSetCurrent, "cuCtxSetCurrent") && bind(handle, d.ModuleLoadData, "cuModuleLoadData") &&
      bind(handle, d.ModuleUnload, "cuModuleUnload") && bind(handle, d.ModuleGetFunction, "cuModuleGetFunction") &&
      bind(handle, d.MemAlloc, "cuMemAlloc_v2") && bind(handle, d.MemFree, "cuMemFree_v2") &&
      bind(handle, d.MemcpyHtoD, "cuMemcpyHtoD_v2") && bind(handle, d.MemcpyDtoH, "cuMemcpyDtoH_v2") &&
      bind(handle, d.MemsetD8, "cuMemsetD8_v2") && bind(handle, d.LaunchKernel, "cuLaunchKernel") &&
      bind(handle, d.CtxSynchronize, "cuCtxSynchronize") && bind(handle, d.EventCreate, "cuEventCreate") &&
      bind(handle, d.EventRecord, "cuEventRecord") && bind(handle, d.EventSynchronize, "cuEventSynchronize") &&
      bind(handle, d.EventElapsedTime, "cuEventElapsedTime") && bind(handle, d.EventDestroy, "cuEventDestroy_v2") &&
      bind(handle, d.GetErrorString, "cuGetErrorString") && bind(handle, d.StreamCreate, "cuStreamCreate") &&
      bind(handle, d.StreamDestroy, "cuStreamDestroy_v2") &&
      bind(handle, d.StreamBeginCapture, "cuStreamBeginCapture_v2") &&
      bind(handle, d.StreamEndCapture, "cuStreamEndCapture") &&
      bind(handle, d.GraphInstantiate, "cuGraphInstantiateWithFlags") &&
      bind(handle, d.GraphLaunch, "cuGraphLaunch") && bind(handle, d.GraphExecDestroy, "cuGraphExecDestroy") &&
      bind(handle, d.GraphDestroy, "cuGraphDestroy");
  if (!bound) {
    why = "the CUDA driver libcuda.so.1 lacks functions tunectl calls (too old a driver?)";
    return std::nullopt;
  }
  if (CUresult r = s.Init(0); r != 0) {
    why = "the CUDA driver does not start (cuInit: " + error_text(d.GetErrorString, r) + ")";
    return std::nullopt;
  }
  int count = 0;
  CUdevice device = 0;
  if (s.DeviceGetCount(&count) != 0 || count == 0 || s.DeviceGet(&device, 0) != 0) {
    why = "the CUDA driver reports no device";
    return std::nullopt;
  }
  auto attribute = [&](int which) {
    int v = 0;
    s.DeviceGetAttribute(&v, which, device);
    return v;
  };
  target::GpuFacts& f = d.facts;
  const std::string arch = "sm_" + std::to_string(attribute(kComputeCapabilityMajor)) +
                           std::to_string(attribute(kComputeCapabilityMinor));
  // The table's figures (FP32 lanes per SM) where the driver has none.
  if (std::optional<target::GpuFacts> known = target::gpu_facts_of_arch(arch)) f = *known;
  f.arch = arch;
  char name[256] = {};
  s.DeviceGetName(name, sizeof name - 1, device);
  f.device = name;
  f.sm_count = attribute(kMultiprocessorCount);
  f.max_threads_per_block = attribute(kMaxThreadsPerBlock);
  f.shared_bytes_per_block = attribute(kMaxSharedMemoryPerBlock);
  f.registers_per_sm = attribute(kMaxRegistersPerMultiprocessor);
  f.warp_size = attribute(kWarpSize);
  f.l2_bytes = attribute(kL2CacheSize);
  f.max_threads_per_sm = attribute(kMaxThreadsPerMultiprocessor);
  f.shared_bytes_per_sm = attribute(kMaxSharedMemoryPerMultiprocessor);
  f.clock_ghz = attribute(kClockRateKhz) / 1e6;
  // Double data rate: two transfers per memory clock.
  f.dram_gbytes_per_s = 2.0 * attribute(kMemoryClockRateKhz) * 1e3 * (attribute(kGlobalMemoryBusWidthBits) / 8) / 1e9;
  CUcontext context = nullptr;
  if (CUresult r = s.DevicePrimaryCtxRetain(&context, device); r != 0 || s.CtxSetCurrent(context) != 0) {
    why = "cannot make a CUDA context on " + f.device + " (" + error_text(d.GetErrorString, r) + ")";
    return std::nullopt;
  }
  return d;
}

nlohmann::json facts_to_json(const target::GpuFacts& f) {
  return {{"arch", f.arch},         {"device", f.device},
          {"sms", f.sm_count},      {"threads", f.max_threads_per_block},
          {"shared", f.shared_bytes_per_block}, {"registers", f.registers_per_sm},
          {"warp", f.warp_size},    {"l2", f.l2_bytes},
          {"threads_per_sm", f.max_threads_per_sm}, {"shared_per_sm", f.shared_bytes_per_sm},
          {"fp32_lanes", f.fp32_lanes_per_sm}, {"clock_ghz", f.clock_ghz}, {"dram_gbps", f.dram_gbytes_per_s}};
}

target::GpuFacts facts_from_json(const nlohmann::json& j) {
  target::GpuFacts f;
  f.arch = j.at("arch");
  f.device = j.at("device");
  f.sm_count = j.at("sms");
  f.max_threads_per_block = j.at("threads");
  f.shared_bytes_per_block = j.at("shared");
  f.registers_per_sm = j.at("registers");
  f.warp_size = j.at("warp");
  f.l2_bytes = j.at("l2");
  f.max_threads_per_sm = j.at("threads_per_sm");
  f.shared_bytes_per_sm = j.at("shared_per_sm");
  f.fp32_lanes_per_sm = j.at("fp32_lanes");
  f.clock_ghz = j.at("clock_ghz");
  f.dram_gbytes_per_s = j.at("dram_gbps");
  return f;
}

struct Probe {
  std::optional<target::GpuFacts> facts;
  std::string why;
};

// open_driver in a child, which reports {"facts": ...} or {"why": ...}.
Probe probe_in_child() {
  int fds[2];
  system_check(pipe(fds) == 0, "cannot ask the CUDA driver for the device", "pipe");
  const pid_t pid = fork();
  system_check(pid >= 0, "cannot ask the CUDA driver for the device", "fork");
  if (pid == 0) {
    close(fds[0]);
    std::string why;
    const std::optional<CudaDriver> d = open_driver(why);
    const std::string report = (d ? nlohmann::json{{"facts", facts_to_json(d->facts)}} : nlohmann::json{{"why", why}}).dump();
    size_t done = 0;
    while (done < report.size()) {
      const ssize_t n = write(fds[1], report.data() + done, report.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string report;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) report.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  Probe p;
  const nlohmann::json j = nlohmann::json::parse(report, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.contains("facts")) {
    p.facts = facts_from_json(j.at("facts"));
  } else if (j.is_object() && j.contains("why")) {
    p.why = j.at("why").get<std::string>();
  } else {
    p.why = "the process that asked the CUDA driver for the device ended without an answer (status " +
            std::to_string(status) + ")";
  }
  return p;
}

}  // namespace

std::optional<target::GpuFacts> cuda_device(std::string* why) {
  static const Probe p = probe_in_child();
  if (!p.facts && why) *why = p.why;
  return p.facts;
}

const CudaDriver& CudaDriver::get() {
  static const std::optional<CudaDriver> driver = [] {
    std::string why;
    std::optional<CudaDriver> d = open_driver(why);
    user_check(d.has_value(), "running CUDA kernels needs a GPU: ", why);
    return d;
  }();
  return *driver;
}


void CudaDriver::check(CUresult r, const char* what) const {
  if (r != 0) user_fail(what, ": ", error_text(GetErrorString, r));
}

}  // namespace tunectl::runtime
