// The CUDA driver API, opened at run time with dlopen("libcuda.so.1"):
// tunectl links against nothing of CUDA and starts on machines without a
// driver (most machines: CI, laptops). This is the one place that talks to
// the driver.
//
// Fork. A process that has initialized CUDA cannot use it in a child it
// forks, and the measurement workers are forked. So cuda_device() asks in a
// child of its own (fork, cuInit, read the device, report through a pipe,
// exit) and the process that resolves a `cuda` target never initializes
// CUDA; a process initializes CUDA (CudaDriver::get) only to run kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "target/gpu_arch.h"

namespace tunectl::runtime {

// The first device's facts, read from the driver in a child process, or
// nullopt with `why` set ("no CUDA driver (libcuda.so.1: cannot open ...)",
// "the CUDA driver does not start (cuInit: ...)", "the CUDA driver reports
// no device"). Asked once per process.
std::optional<target::GpuFacts> cuda_device(std::string* why = nullptr);

// The part of cuda.h tunectl calls, declared here so the build needs no
// toolkit. Handles are opaque pointers; CUdeviceptr is 64 bits.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = uint64_t;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUgraph = struct CUgraph_st*;
using CUgraphExec = struct CUgraphExec_st*;

// cuStreamBeginCapture's mode that lets other threads call the driver as
// they like (CU_STREAM_CAPTURE_MODE_THREAD_LOCAL).
inline constexpr int kCaptureThreadLocal = 1;

// The driver, initialized in this process with the first device's primary
// context current. get() throws UserError (with cuda_device's reason) when
// there is none.
struct CudaDriver {
  static const CudaDriver& get();

  // Throws UserError "<what>: <driver's error text>" when r is not success.
  void check(CUresult r, const char* what) const;

  CUresult (*ModuleLoadData)(CUmodule*, const void*) = nullptr;
  CUresult (*ModuleUnload)(CUmodule) = nullptr;
  CUresult (*ModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*MemAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*MemFree)(CUdeviceptr) = nullptr;
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*MemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                           void**, void**) = nullptr;
  CUresult (*CtxSynchronize)() = nullptr;
  CUresult (*EventCreate)(CUevent*, unsigned) = nullptr;
  CUresult (*EventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*EventSynchronize)(CUevent) = nullptr;
  CUresult (*EventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  CUresult (*EventDestroy)(CUevent) = nullptr;
  CUresult (*StreamCreate)(CUstream*, unsigned) = nullptr;
  CUresult (*StreamDestroy)(CUstream) = nullptr;
  CUresult (*StreamBeginCapture)(CUstream, int) = nullptr;
  CUresult (*StreamEndCapture)(CUstream, CUgraph*) = nullptr;
  CUresult (*GraphInstantiate)(CUgraphExec*, CUgraph, unsigned long long) = nullptr;
  CUresult (*GraphLaunch)(CUgraphExec, CUstream) = nullptr;
  CUresult (*GraphExecDestroy)(CUgraphExec) = nullptr;
  CUresult (*GraphDestroy)(CUgraph) = nullptr;
  CUresult (*GetErrorString)(CUresult, const char**) = nullptr;
  target::GpuFacts facts;
};

}  // namespace tunectl::runtime
