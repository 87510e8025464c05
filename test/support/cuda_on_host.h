// Runs generated CUDA C on the CPU, for tests: the source of
// codegen/cuda/cuda_source.h compiled by the host C++ compiler against a
// small header that stands in for CUDA's (threadIdx and blockIdx, float2 and
// float4, __syncthreads, __shared__ as per-module static arrays) and run
// with every block in turn and the threads of a block as fibers that meet at
// each __syncthreads, as the GPU emulator runs loop IR. The emulator checks
// the loop IR; this checks what code generation printed from it: precedence,
// 32-bit indices, guards, vector accesses, where the barriers ended up.
// Test support: a GPU runs the real thing.
#pragma once

#include <string>
#include <vector>

#include "lower/lower.h"
#include "runtime/ndarray.h"

namespace tunectl::testing {

// The kernels of funcs, compiled into one shared library with `c++` ($CXX
// overrides) in dir. Fails the test (Catch FAIL) when the compiler does.
class CudaOnHost {
 public:
  CudaOnHost(const std::vector<const lower::LoweredFunc*>& funcs, const std::string& dir);
  ~CudaOnHost();
  CudaOnHost(const CudaOnHost&) = delete;
  CudaOnHost& operator=(const CudaOnHost&) = delete;

  // Runs func (one of those given, or one of their packing functions) on
  // host arrays in LoweredFunc::args order (lower::run_with_packing packs
  // the inputs of a function that has packings). Throws std::runtime_error when a barrier is not
  // reached by every thread of a block.
  void run(const lower::LoweredFunc& func, const std::vector<runtime::NDArray*>& args) const;

 private:
  void* handle_ = nullptr;
};

}  // namespace tunectl::testing
