// Lowering pass (GPU): gives vthread loops the meaning of TVM's virtual
// threads. A vthread loop runs its iterations as independent work of one
// thread, so it may move inward past anything: it is pushed into the
// loops (vectorized ones excepted), branches and allocations that do not
// depend on it, down to the statements that do, and wraps only those. What does not
// depend on it runs once instead of once per vthread: the fills of shared
// tiles, whose region (bound_inference.h) covers every vthread of the
// block. `for k: {fill tiles; for i: for j: for vt: compute}` is the
// result, each thread computing several strided tiles from one shared
// fill, the vthreads' statements side by side so that they share the
// operands they load (with the vthread loop outside `for i: for j`, ptxas
// spilled the 128 x 128 SGEMM's 64 accumulators under 128 registers; with
// it inside, 121 registers and no spill).
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
