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
// vthread's fragments loaded once per k1 (H100, hand SGEMM: with vt around
// k1, ptxas spilled under 128 registers; with vt innermost, under i and j,
// it kept fewer fragments in registers and ran 20% slower, reloading them
// from shared memory).
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
