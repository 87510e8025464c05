#include "runtime/cuda_kernel.h"

#include <algorithm>

#include "ir/error.h"
#include "runtime/cuda_graph.h"

namespace tunectl::runtime {

CudaKernel::CudaKernel(std::string symbol, const std::vector<char>& cubin, CudaLaunch launch,
                       std::vector<size_t> arg_bytes)
    : driver_(CudaDriver::get()), symbol_(std::move(symbol)), launch_(launch), arg_bytes_(std::move(arg_bytes)) {
  driver_.check(driver_.ModuleLoadData(&module_, cubin.data()), "cannot load the cubin of a CUDA kernel");
  driver_.check(driver_.ModuleGetFunction(&function_, module_, symbol_.c_str()), "the cubin has no kernel");
}

CudaKernel::~CudaKernel() {
  if (module_) driver_.ModuleUnload(module_);
}

std::vector<CUdeviceptr> CudaKernel::to_device(void* const* args) const {
  std::vector<CUdeviceptr> device(arg_bytes_.size(), 0);
  try {
    for (size_t i = 0; i < arg_bytes_.size(); ++i) {
      driver_.check(driver_.MemAlloc(&device[i], std::max<size_t>(arg_bytes_[i], 1)), "cuMemAlloc");
      driver_.check(driver_.MemcpyHtoD(device[i], args[i], arg_bytes_[i]), "cuMemcpyHtoD");
    }
  } catch (...) {
    free_all(device);
    throw;
  }
  return device;
}

void CudaKernel::free_all(const std::vector<CUdeviceptr>& buffers) const {
  for (CUdeviceptr p : buffers)
    if (p) driver_.MemFree(p);
}

namespace {

// The stream this thread's launches go to: the default one, or while
// CudaDeviceMemory::capture records, its graph's.
thread_local CUstream t_launch_stream = nullptr;

struct LaunchesTo {
  explicit LaunchesTo(CUstream stream) { t_launch_stream = stream; }
  ~LaunchesTo() { t_launch_stream = nullptr; }
};

class CudaLaunchGraph final : public LaunchGraph {
 public:
  explicit CudaLaunchGraph(const std::function<void()>& record)
      : graph_(CudaDriver::get(), [&](CUstream stream) {
          const LaunchesTo to(stream);
          record();
        }) {}
  void launch() const override { graph_.launch(); }

 private:
  CudaGraph graph_;
};

class CudaDeviceMemory final : public DeviceMemory {
 public:
  void* allocate(size_t bytes) const override {
    CUdeviceptr p = 0;
    d().check(d().MemAlloc(&p, std::max<size_t>(bytes, 1)), "cuMemAlloc");
    return reinterpret_cast<void*>(p);
  }
  void release(void* device) const noexcept override {
    if (device) d().MemFree(ptr(device));
  }
  void upload(void* device, const void* host, size_t bytes) const override {
    if (bytes == 0) return;
    d().check(d().MemcpyHtoD(ptr(device), host, bytes), "cuMemcpyHtoD");
  }
  void download(void* host, const void* device, size_t bytes) const override {
    // Waits for the default stream first: a kernel's fault is its own error.
    synchronize();
    if (bytes == 0) return;
    d().check(d().MemcpyDtoH(host, ptr(device), bytes), "cuMemcpyDtoH");
  }
  void synchronize() const override { d().check(d().CtxSynchronize(), "a CUDA kernel failed"); }
  std::unique_ptr<LaunchGraph> capture(const std::function<void()>& record) const override {
    return std::make_unique<CudaLaunchGraph>(record);
  }

 private:
  static const CudaDriver& d() { return CudaDriver::get(); }
  static CUdeviceptr ptr(const void* device) { return reinterpret_cast<CUdeviceptr>(device); }
};

}  // namespace

const DeviceMemory& cuda_device_memory() {
  static const CudaDeviceMemory memory;
  return memory;
}

void CudaKernel::launch(void* const* device_args) const {
  std::vector<CUdeviceptr> device(arg_bytes_.size());
  for (size_t i = 0; i < device.size(); ++i) device[i] = reinterpret_cast<CUdeviceptr>(device_args[i]);
  launch_on(device);
}

void CudaKernel::launch_on(const std::vector<CUdeviceptr>& device_args) const {
  std::vector<void*> params;
  for (const CUdeviceptr& p : device_args) params.push_back(const_cast<CUdeviceptr*>(&p));
  const auto u = [](int64_t v) { return static_cast<unsigned>(v); };
  driver_.check(driver_.LaunchKernel(function_, u(launch_.grid[0]), u(launch_.grid[1]), u(launch_.grid[2]),
                                     u(launch_.block[0]), u(launch_.block[1]), u(launch_.block[2]), 0, t_launch_stream,
                                     params.data(), nullptr),
                "cuLaunchKernel");
}

void CudaKernel::run(void* const* args) const {
  const std::vector<CUdeviceptr> device = to_device(args);
  try {
    launch_on(device);
    // An illegal address or a trap surfaces here, as the kernel's failure.
    driver_.check(driver_.CtxSynchronize(), ("kernel " + symbol_ + " failed").c_str());
    for (size_t i = 0; i < arg_bytes_.size(); ++i)
      driver_.check(driver_.MemcpyDtoH(args[i], device[i], arg_bytes_[i]), "cuMemcpyDtoH");
  } catch (...) {
    free_all(device);
    throw;
  }
  free_all(device);
}

Timing time_on_device(const std::function<void()>& launch, const TimingOptions& options) {
  const CudaDriver& d = CudaDriver::get();
  CUdeviceptr flush = 0;
  CUevent start = nullptr, stop = nullptr;
  auto release = [&] {
    if (start) d.EventDestroy(start);
    if (stop) d.EventDestroy(stop);
    if (flush) d.MemFree(flush);
  };
  try {
    const size_t flush_bytes = static_cast<size_t>(std::max<int64_t>(d.facts.l2_bytes, 1 << 20)) * 2;
    if (options.flush_cache) d.check(d.MemAlloc(&flush, flush_bytes), "cuMemAlloc (L2 flush)");
    d.check(d.EventCreate(&start, 0), "cuEventCreate");
    d.check(d.EventCreate(&stop, 0), "cuEventCreate");
    // Seconds for `number` launches, after an L2 flush.
    auto repeat = [&](int number) {
      if (flush) d.check(d.MemsetD8(flush, 0, flush_bytes), "cuMemsetD8 (L2 flush)");
      d.check(d.EventRecord(start, nullptr), "cuEventRecord");
      for (int i = 0; i < number; ++i) launch();
      d.check(d.EventRecord(stop, nullptr), "cuEventRecord");
      d.check(d.EventSynchronize(stop), "the timed kernel failed");
      float ms = 0;
      d.check(d.EventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
      return ms * 1e-3;
    };
    repeat(1);  // warm-up
    int number = 1;
    for (double s = repeat(number); s < options.min_repeat_seconds && number < (1 << 20);) {
      number = std::min(number * 2, 1 << 20);
      s = repeat(number);
    }
    Timing t;
    for (int r = 0; r < options.repeats; ++r) t.seconds_per_call.push_back(repeat(number) / number);
    release();
    return t;
  } catch (...) {
    release();
    throw;
  }
}

Timing CudaKernel::time(void* const* args, const TimingOptions& options) const {
  const std::vector<CUdeviceptr> device = to_device(args);
  try {
    Timing t = time_on_device([&] { launch_on(device); }, options);
    free_all(device);
    return t;
  } catch (...) {
    free_all(device);
    throw;
  }
}

}  // namespace tunectl::runtime
