// A lowered GPU function -> a checked GPU binary: CUDA C (cuda_source.h),
// compiled by NVRTC (nvrtc.h) for the target's arch, and refused before it
// ever runs when the compiler's report says it would run badly or not at all.
#pragma once

#include <string>

#include "codegen/cuda/nvrtc.h"
#include "lower/launch_dims.h"
#include "lower/lower.h"
#include "target/target.h"

namespace tunectl::codegen::cuda {

struct CudaBinary {
  std::string source;
  CompiledCuda compiled;
  lower::LaunchDims launch;  // of the kernel (packing kernels run on one thread)
};

// UserError when the kernel spills registers to local memory (a
// double-buffered one is compiled a second time without its occupancy hint
// before that: cuda_source.h), or when its registers per thread times its
// threads per block exceed what an SM has (the launch would fail with too
// many resources requested).
CudaBinary compile_cuda(const lower::LoweredFunc& func, const target::Target& target);

// "kernel: 40 registers, 0 bytes spilled, 8192 bytes shared, 0 bytes stack",
// one line per kernel of the binary.
std::string resources_report(const CompiledCuda& compiled);

}  // namespace tunectl::codegen::cuda
