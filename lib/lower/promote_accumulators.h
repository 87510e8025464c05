// Lowering pass (CPU): an accumulator tile that a serial reduction loop
// updates without moving it gets a buffer of its own around that loop,
// loaded before the loop and stored after it, indexed by nothing but the
// loops of the tile. Once the unrolled copies are replicated, that buffer is
// a few vector registers to LLVM (SROA). Left in the stage's buffer, the
// tile is there only if LLVM's LICM can tell its elements apart: a 3x3
// convolution's 2 x 2 tile of 28-wide rows, inside tile loops of 4 and 2
// around its reduction loop, had its addresses rewritten two ways (the
// zeroing loop became a memset) and was loaded and stored around every FMA
// (5.5 ms; the same tile promoted by LICM in another nest, 1.3 ms).
//
// The loop L promoted is the outermost one of a perfect nest down to one
// update `B[i] = B[i] + ...` (a store of B whose value loads B only at i)
// that is serial and does not move i. Its inner loops have constant bounds
// and none is parallel; those that move i (the tile) are unrolled,
// vectorized (innermost) or serial, and i is an injective linear function
// of them; a vectorized loop that does not move i (a reduction across
// lanes) rules the nest out. The tile takes at most the target's vector
// registers.
#pragma once

#include "lower/lower.h"

namespace tunectl::lower {

LoweredFunc promote_accumulators(LoweredFunc func, const target::Target& target);

}  // namespace tunectl::lower
