// Lowering pass (GPU): places __syncthreads (Barrier) wherever threads of a
// block could see each other's shared memory out of order. Tracked per
// shared buffer since the last barrier: which are written and which are
// read. A statement that reads a buffer written since the barrier
// (read after write) or writes a buffer read since it (write after read)
// gets a barrier before it. A loop is walked as its body run twice, so what
// the end of one iteration leaves pending meets the start of the next: the
// classic tiled loop `for k: {fill tiles; compute}` becomes
// `for k: {sync; fill tiles; sync; compute}`.
//
// A barrier must be reached by every thread of the block, so it is placed
// only where control flow is the same for all of them: not inside a branch
// whose condition depends on threadIdx, nor inside a threadIdx loop narrower
// than the block (threads past its extent skip it). Such a statement is
// treated as a whole, with barriers around it; one that both writes and
// reads a shared buffer is refused (UserError), as no barrier can separate
// the two. Writes after writes need no
// barrier: cooperative fills write disjoint elements, and a real
// write-write race is what the GPU emulator reports (gpu_emulator.h).
#pragma once

#include "lower/lower.h"

namespace tunectl::lower {

LoweredFunc insert_barriers(LoweredFunc func);

}  // namespace tunectl::lower
