// Runs one kernel of a library of CUDA C compiled for the host (what
// CudaOnHost builds: each kernel behind `tc_entry_<name>(void* const*)`,
// the module's `tc_current` naming the running thread and `tc_sync_hook` its
// __syncthreads) over a grid: every block in turn, the threads of a block as
// fibers that meet at each barrier (lower::LockstepThreads). Shared by the
// tests' CudaOnHost and by the stand-in CUDA driver (fake_cuda_driver.cpp).
// Test support: a GPU runs the real thing.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace tunectl::testing {

// Throws std::runtime_error when the library lacks the entry or its hooks,
// and lower::DivergentBarrier for a barrier not every thread reaches.
void run_host_grid(void* library, const std::string& kernel, const std::array<int64_t, 3>& grid,
                   const std::array<int64_t, 3>& block, void* const* args);

}  // namespace tunectl::testing
