// The heap buffers of JIT-compiled CPU kernels: the intermediates too large
// for a thread's stack (codegen/llvm/ir_builder.cpp), which a kernel takes
// and gives back on every call. A freed block is kept for the next request
// it fits, so a kernel called again gets the same memory back, and a timer
// can evict exactly that memory (TimingOptions::evict_scratch). The JIT
// binds the kernels' aligned_alloc and free to these (codegen/llvm/jit.cpp);
// objects compiled ahead of time keep the C library's.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

extern "C" {
// aligned_alloc's contract (alignment a power of two, bytes a multiple of it).
void* tunectl_scratch_alloc(size_t alignment, size_t bytes);
// free's; null is a no-op.
void tunectl_scratch_free(void* p);
}

namespace tunectl::runtime {

// The blocks kept for reuse now (each freed, none in use).
std::vector<std::span<const std::byte>> idle_scratch();
// Gives every idle block back to the C library.
void release_idle_scratch();

}  // namespace tunectl::runtime
