// A reference interpreter of lowered loop IR: the test oracle for lowering
// that does not depend on LLVM. It runs a LoweredFunc (after flattening) on
// host NDArrays exactly as written: every loop kind runs serially, barriers
// are no-ops, float32 arithmetic rounds to float after each operation, and
// every load and store is bounds-checked. Scratch buffers from Allocate start
// filled with NaN (floats) or a large sentinel (integers), so a read before
// the first write shows up in the result.
#pragma once

#include <functional>
#include <vector>

#include "lower/lower.h"
#include "runtime/ndarray.h"

namespace tunectl::lower {

// Runs func with args bound to func.args in order (same count, shapes and
// dtypes, else InternalError). An out-of-range load or store is an
// InternalError naming the buffer and the index.
void interpret(const LoweredFunc& func, const std::vector<runtime::NDArray*>& args);

// How a function is run on host arrays: interpret, or emulate_gpu.
using LoopRunner = std::function<void(const LoweredFunc& func, const std::vector<runtime::NDArray*>& args)>;

// run(func, args) with the inputs func takes packed (LoweredFunc::packings)
// given in their placeholder layout: runs each packing into a scratch copy
// first.
void run_with_packing(const LoweredFunc& func, std::vector<runtime::NDArray*> args, const LoopRunner& run);

// run_with_packing with interpret.
inline void interpret_with_packing(const LoweredFunc& func, std::vector<runtime::NDArray*> args) {
  run_with_packing(func, std::move(args), interpret);
}

}  // namespace tunectl::lower
