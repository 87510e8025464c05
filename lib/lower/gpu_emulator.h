// The GPU emulator: runs a lowered GPU program on the CPU with CUDA's
// semantics, which is how a machine without a GPU (CI) checks that a GPU
// program computes the reference. The grid and block come from the bound
// loops (launch_dims.h). Blocks run one after another; within a block every
// thread runs the whole kernel body as a fiber of its own, in lockstep
// between barriers: each thread runs until it reaches a barrier or ends, and
// the barrier releases once every thread has reached it. A loop bound to
// blockIdx/threadIdx runs its body once, for this block's or thread's index
// (not at all where the index is past its extent); vthread loops run
// serially in each thread. Buffers allocated in shared scope exist once per
// block; every other allocation is private to the thread that makes it.
//
// It checks what a GPU would not: every load and store is bounds-checked;
// a shared location written by one thread and read or written by another
// with no barrier between them is a race (except two stores of the same
// value, which no order can change); a thread that ends while others
// wait at a barrier is a divergent barrier. Each is an EmulatorError naming
// the buffer, the block and the threads. Arithmetic is the reference
// interpreter's (loop_interpreter.h): float32 rounds after each operation.
#pragma once

#include <stdexcept>
#include <vector>

#include "lower/lower.h"
#include "runtime/ndarray.h"

namespace tunectl::lower {

// What the program did that is wrong on a GPU (as opposed to a wrong value).
struct EmulatorError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs func with args bound to func.args in order (same count, shapes and
// dtypes, else InternalError).
void emulate_gpu(const LoweredFunc& func, const std::vector<runtime::NDArray*>& args);

// The same for a sample of the grid: `max_blocks` blocks evenly spaced in
// launch order, the first and the last among them (every block when the
// grid has no more). For kernels too big to emulate whole; the outputs of
// the other blocks are left as they were.
void emulate_gpu_blocks(const LoweredFunc& func, const std::vector<runtime::NDArray*>& args, int64_t max_blocks);

}  // namespace tunectl::lower
