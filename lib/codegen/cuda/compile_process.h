// NVRTC in a helper process. nvrtcCompileProgram starts the CUDA driver
// (cuInit) when one is installed, and a process that has started the driver
// cannot use CUDA in the children it forks: the measurement workers'
// cuInit then fails ("initialization error"; seen on an H200, where every
// candidate of a measured tune failed so). So a process that has not opened
// the driver itself (runtime::CudaDriver::opened_here) but runs on a machine
// with one compiles through a helper it forks once, which keeps its driver
// to itself; everywhere else NVRTC runs in-process.
#pragma once

#include <string>

#include "codegen/cuda/nvrtc.h"

namespace tunectl::codegen::cuda {

struct CompileRequest {
  std::string source, name, arch;
};

using CompileFn = CompiledCuda (*)(const CompileRequest&);

// Whether compiles of this process go through the helper (see above).
bool compiles_in_helper();

// compile(request) in this process's helper, forked on first use (again
// in a forked child, which gets its own). UserError and InternalError
// thrown there are thrown here with the same text; a helper that dies is a
// UserError.
CompiledCuda compile_in_helper(const CompileRequest& request, CompileFn compile);

}  // namespace tunectl::codegen::cuda
