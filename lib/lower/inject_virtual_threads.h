// Lowering pass (GPU): gives vthread loops the meaning of TVM's virtual
// threads. A vthread loop runs its iterations as independent work of one
// thread, so it may move inward past anything: it is pushed into the
// loops, branches and allocations that do not depend on it, and into the
// loops that depend on it but index none of the thread's own buffers (a
// reduction), and wraps what is left. What does not depend on it runs once
// instead of once per vthread: the fills of shared tiles, whose region
// (bound_inference.h) covers every vthread of the block. `for k0: {fill
// tiles; for k1: for vt: for i: for j: compute}` is the result, each
// thread computing several strided tiles from one shared fill, each
// vthread's fragments loaded once per k1 and shared by the vthreads that
// read them. H100, the 4096^3 hand SGEMM built by NVRTC, in one run: vt
// inside k1 and k1 unrolled (auto_unroll_max_step), 121-128 registers under
// the 2-blocks-per-SM hint, 2.93 ms = 0.94x cuBLAS; vt around k1, 166
// registers (ptxas keeps every k1 step's fragments for the next vthread;
// nvcc's build of the same source fits 128) and one block per SM, 3.29 ms;
// with k1 rolled, 3.72 ms; with vt innermost, under i and j, fragments are
// reloaded from shared memory per vthread, about 20% slower.
//
// A buffer allocated inside the loop that is not shared (a local cache, an
// intermediate computed at a thread loop) is the thread's own: it becomes
// one copy per vthread (the vthread index selects the copy), so it can live
// outside the loop. The vthread loops that remain are unrolled by code
// generation and stay bound to "vthread" for the analyses after lowering.
#pragma once

#include "lower/lower.h"

namespace tunectl::lower {

LoweredFunc inject_virtual_threads(LoweredFunc func);

}  // namespace tunectl::lower
