// NVRTC, the CUDA Toolkit's run-time compiler, opened with dlopen so that
// tunectl builds and starts without the toolkit (DESIGN.md: CUDA is no
// Debian package). It compiles CUDA C to PTX and, for a real architecture,
// to a cubin, without a GPU; ptxas's verbose report gives each kernel's
// registers, spills and shared memory.
//
// The library is libnvrtc.so.13, found as runtime/cuda_library.h says.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tunectl::codegen::cuda {

// What ptxas reports for one kernel.
struct KernelResources {
  int registers = 0;
  int64_t spill_store_bytes = 0;
  int64_t spill_load_bytes = 0;
  int64_t shared_bytes = 0;  // static shared memory
  int64_t stack_bytes = 0;   // stack frame (local memory)
};

struct CompiledCuda {
  std::string ptx;
  std::vector<char> cubin;
  std::string log;  // the compiler's log, ptxas's report included
  std::map<std::string, KernelResources> resources;  // by kernel symbol
};

// True when NVRTC can be opened; otherwise `why` says what was tried.
bool nvrtc_available(std::string* why = nullptr);

// "13.0".
std::string nvrtc_version();

// Compiles source (named `name` in messages) for arch ("sm_90"): the PTX,
// the cubin and the resource report. UserError when NVRTC cannot be opened
// (the message says where it was looked for and that the CUDA Toolkit is
// needed); InternalError with the compiler's log when the source does not
// compile (generated code is valid by construction).
CompiledCuda nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch);

// On a machine with a CUDA device, forks the process that runs this
// process's compiles (compile_process.h) now, while nothing here has
// started CUDA; elsewhere nothing.
void start_nvrtc_helper();

// The report of ptxas -v, by kernel (exposed for its test).
std::map<std::string, KernelResources> parse_ptxas_report(const std::string& log);

}  // namespace tunectl::codegen::cuda
