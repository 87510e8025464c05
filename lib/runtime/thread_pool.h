// The thread pool that parallel loops of generated kernels run on. Generated
// code calls the C entry point tunectl_parallel_for, which splits [0, n) into
// contiguous parts, up to 2 per worker, and returns when all are done. Each
// worker owns a run of them, the same for every loop of the same length, and
// takes over the others' last parts when done with its own: a thread the
// host stops for a while delays the loop by the part it holds, not by its
// whole share (thread_pool.cpp).
#pragma once

#include <cstdint>

extern "C" {
// body(closure, begin, end) runs iterations [begin, end). Nested calls (a
// parallel loop inside a parallel loop) run serially on the calling thread.
// Returns 0.
int tunectl_parallel_for(void (*body)(void* closure, int64_t begin, int64_t end), void* closure, int64_t n);
}

namespace tunectl::runtime {
// Worker count for parallel loops: TUNECTL_NUM_THREADS, else the number of
// cores this process may run on, at most 4096. Takes effect before the first
// parallel loop.
void set_num_threads(int n);
int num_threads();
}  // namespace tunectl::runtime
