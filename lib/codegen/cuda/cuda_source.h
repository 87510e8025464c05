// CUDA C code generation: a lowered GPU function (lower/lower.h, after the
// cuda passes) -> the source of one `extern "C" __global__` kernel, plus one
// kernel per packing function (named as the function, `<name>_pack<arg>`;
// launched once, on one thread). Arguments are `__restrict__` pointers in LoweredFunc::args order,
// `const` where the kernel never stores to them. A loop bound to a hardware
// index reads it (`threadIdx.x`) and guards its body where its extent is
// below the launch dimension (lower/launch_dims.h); a vectorized loop of 2
// or 4 aligned float32 accesses becomes float2/float4 loads and stores
// (vector_access.h); vthread, unrolled and other vectorized loops carry
// `#pragma unroll`; shared buffers are 16-byte aligned `__shared__`
// arrays declared at the top of the kernel, every other allocation an array
// private to the thread (registers or local memory). Arithmetic matches the
// reference interpreter's: no fast math, std::min/std::max operand order,
// floor division and modulo for integers, round half to even.
#pragma once

#include <string>
#include <vector>

#include "lower/launch_dims.h"
#include "lower/lower.h"

namespace tunectl::codegen::cuda {

// The kernel's source: a preamble of helpers, then the kernel(s). The kernel
// is declared with __launch_bounds__(its threads per block), and with
// occupancy_hint a double-buffered one also with the blocks per SM that make
// 16 warps (a register cap; compile_cuda drops it where it spills).
std::string cuda_source(const lower::LoweredFunc& func, bool occupancy_hint = true);
// One module of many functions (distinct names), for compiling in one go.
std::string cuda_source(const std::vector<const lower::LoweredFunc*>& funcs, bool occupancy_hint = true);

// The C type a kernel's arrays of dtype t have ("float", "unsigned char", ...).
const char* cuda_c_type(ir::DType t);

}  // namespace tunectl::codegen::cuda
