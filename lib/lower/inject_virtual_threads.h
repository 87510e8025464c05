// Lowering pass (GPU): gives vthread loops the meaning of TVM's virtual
// threads. A vthread loop runs its iterations as independent work of one
// thread, so it may move inward past anything: it is pushed into the
// loops, branches and allocations whose body holds some statement that
// does not depend on it, and wraps only the statements that do. What does
// not depend on it runs once instead of once per vthread: the fills of
// shared tiles, whose region (bound_inference.h) covers every vthread of
// the block. `for k: {fill tiles; for vt: compute}` is the classic result,
// each thread computing several strided tiles from one shared fill.
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
