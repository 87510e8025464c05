// NVRTC in a helper process, on machines with a CUDA device. Seen on an
// H200 (NVRTC 13.0, driver 580):
// - nvrtcCompileProgram starts the driver (cuInit), and a process that has
//   started it cannot use CUDA in the children it forks: every measurement
//   worker's cuInit failed ("initialization error");
// - once cuInit has succeeded in a process, NVRTC's logs there hold no
//   ptxas report (it hands the PTX to the driver's JIT, we infer), so no
//   registers or spills to check: a third of a measured tune's candidates
//   and every kernels folder failed so.
// So there every process compiles through a helper in which no device is
// visible (CUDA_VISIBLE_DEVICES=-1: cuInit fails, and NVRTC runs its own
// ptxas as on machines without a driver). The helper must be forked while
// this process has not started CUDA (a child inherits the driver's state):
// the cuda backend starts it when it is made, before anything runs, and a
// forked child (a measurement worker) starts its own on its first compile,
// before it runs anything. On machines without a device (CI) NVRTC runs
// in-process.
#pragma once

#include <string>

#include "codegen/cuda/nvrtc.h"

namespace tunectl::codegen::cuda {

struct CompileRequest {
  std::string source, name, arch;
};

using CompileFn = CompiledCuda (*)(const CompileRequest&);

// Whether compiles go through the helper: this machine has a CUDA device.
bool compiles_in_helper();

// Forks this process's helper unless it has one (a forked child does not
// share its parent's).
void start_helper(CompileFn compile);

// compile(request) in this process's helper, started if need be. UserError and InternalError
// thrown there are thrown here with the same text; a helper that dies is a
// UserError.
CompiledCuda compile_in_helper(const CompileRequest& request, CompileFn compile);

}  // namespace tunectl::codegen::cuda
