// Analytic cost of a lowered CUDA kernel on a target (Roller's hardware
// model in a few terms, ALGORITHMS.md): what construction (construct.h) walks
// by without a device, and what a GPU program's record says it would take
// when no device timed it. Walking the loop IR once, it counts per statement
// how often it runs across the grid, and from that:
//   compute  instructions issued (an FMA counts once, each memory access and
//            non-unrolled loop step one more) over the SMs' FP32 lanes
//   memory   DRAM bytes (the footprint of the kernel's arguments) plus the
//            traffic through L2: each warp access moves whole 32-byte
//            sectors, so a load whose address steps by s elements from one
//            thread to the next moves min(32, 4s) bytes per thread (s = 0: a
//            broadcast; the lanes of a vector access count as one)
//   shared   warp-wide shared-memory transactions, each repeated by its bank
//            conflict degree gcd(step, 32)
//   latency  the trips to memory each thread waits for in turn at the
//            barriers after its block's shared-tile fills (a fill's
//            unrolled loads are in flight together), per wave
// each over what the launch keeps busy: it runs in waves of the blocks
// resident at once (blocks per SM from threads, shared memory and an
// estimate of registers: 24 plus the thread's private elements), each wave
// on the SMs and FP32 lanes its blocks fill (DRAM bandwidth in proportion to
// the SMs busy); the largest throughput term over how well the warps per SM
// hide latency and the latency term add up, the smaller one divided by the
// blocks resident per SM (which overlap one's waits with another's work;
// double buffering overlaps them within a block), plus a launch.
// The estimate is a time in seconds, for ranking programs of one task; it is
// not a measurement.
#pragma once

#include <cstdint>

#include "lower/lower.h"
#include "target/gpu_arch.h"

namespace tunectl::search {

struct GpuCost {
  double compute_s = 0;
  double memory_s = 0;
  double shared_s = 0;
  double latency_s = 0;
  int64_t blocks = 0;
  int64_t threads_per_block = 0;
  int64_t shared_bytes_per_block = 0;
  int blocks_per_sm = 0;        // resident at once (0: the block does not fit an SM)
  double fill = 0;              // share of the SMs' slots the launch keeps busy, over its waves
  double seconds = 0;           // the estimate: +inf when the block does not fit an SM
};

GpuCost estimate_gpu_cost(const lower::LoweredFunc& func, const target::GpuFacts& gpu);

}  // namespace tunectl::search
