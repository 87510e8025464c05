// Lowering pass (GPU): refuses a kernel the target cannot launch or that
// does not mean what its bindings say, with a UserError naming the reason
// (measurement records it as an instantiation error):
//   - more threads per block than the target allows, or more blocks or
//     threads along one dimension than CUDA allows (grid 2^31-1 x 65535 x
//     65535, block 1024 x 1024 x 64);
//   - more static shared memory per block than the target allows;
//   - a blockIdx loop inside a threadIdx or vthread loop (blocks are the
//     outermost level of the launch);
//   - a loop bound to a hardware index inside a loop bound to the same one
//     (another stage attached there: cooperative fetch) with a larger
//     extent: the outer loop's guard keeps the threads it needs out;
//   - a buffer filled under a binding made inside its allocation: a buffer
//     private to each thread filled by several threads, or a shared buffer
//     filled by several blocks (each would hold only its own part);
//   - an update of a kernel argument (a reduction into the output) under no
//     loop bound to some blockIdx or threadIdx dimension the launch spreads:
//     every block or thread of it would add to the same elements;
//   - an all-reduce inside a threadIdx or vthread loop, in a block that is
//     not one-dimensional, or across a block that is neither whole warps
//     nor a power of two below a warp (the shuffles' masks);
//   - a parallel loop (a CPU annotation);
//   - a vthread loop of more than kMaxVirtualThreads iterations (each is
//     unrolled into the thread's code, as TVM's VerifyGPUCode limits);
//   - a buffer private to a thread larger than a thread's local memory can
//     sensibly hold (kMaxLocalBytes).
#pragma once

#include "lower/lower.h"

namespace tunectl::lower {

constexpr int64_t kMaxVirtualThreads = 8;

// What one thread may allocate for itself (registers, then local memory).
constexpr int64_t kMaxLocalBytes = 16 << 10;

LoweredFunc check_gpu_launch(LoweredFunc func, const target::Target& target);

}  // namespace tunectl::lower
