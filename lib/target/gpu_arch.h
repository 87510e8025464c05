// The facts about an NVIDIA GPU that GPU schedules depend on, and a built-in
// table of them per architecture for machines without the GPU (CI, a laptop
// compiling kernels for a server): `cuda -arch=sm_90` resolves from the table
// unless the device present is of that arch, whose own figures win
// (backend/cuda_backend.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tunectl::target {

struct GpuFacts {
  std::string arch;                   // "sm_90"
  std::string device;                 // what the figures describe ("H100 SXM5")
  int sm_count = 0;
  int max_threads_per_block = 1024;
  // Static __shared__ arrays, what generated kernels use: 48 KiB on every
  // arch (more needs dynamic shared memory and an opt-in per kernel).
  int64_t shared_bytes_per_block = 48 << 10;
  int registers_per_sm = 65536;
  int max_registers_per_thread = 255;
  int warp_size = 32;
  int64_t l2_bytes = 0;
  // What the analytic cost model (search/gpu_cost.h) rates a program by.
  int max_threads_per_sm = 2048;
  int64_t shared_bytes_per_sm = 164 << 10;
  int fp32_lanes_per_sm = 128;  // FP32 FMA units (64 on sm_80)
  double clock_ghz = 1.5;       // boost clock
  double dram_gbytes_per_s = 1000;
  // Peak FP32 throughput (an FMA counts as two operations).
  double peak_gflops() const { return 2.0 * sm_count * fp32_lanes_per_sm * clock_ghz; }
};

// The table's entry for arch ("sm_80", "sm_86", "sm_89", "sm_90"); nullopt
// for any other.
std::optional<GpuFacts> gpu_facts_of_arch(const std::string& arch);

// The archs of the table, oldest first.
std::vector<std::string> known_gpu_archs();

}  // namespace tunectl::target
