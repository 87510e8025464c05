// Lowering pass (GPU): software pipelining of the shared tiles whose stage
// has pragma double_buffer (LoweredFunc::double_buffered). A loop whose body
// fills such a tile from global memory and then computes on it,
//
//   for k in [0, E): { S = fill(k); compute(k, S) }
//
// runs on two tiles, S0 and S1, with each fill split into its global loads
// into registers (R, the thread's share of the tile) and their stores into
// the tile:
//
//   S0 = fill(0)
//   for j in [0, (E - 1) / 2): { R = load(2j + 1); compute(2j, S0);     S1 = R;
//                                R = load(2j + 2); compute(2j + 1, S1); S0 = R }
//   the last one or two steps alike, without loads past E - 1
//
// so a tile's global loads are in flight while the other tile is computed
// on, and, the tiles being distinct buffers, insert_barriers (run after)
// places one barrier per step instead of two. This is the register-staged
// double buffering of hand-written SGEMMs; TVM's double_buffer pragma and
// MetaSchedule's software pipeline do the same from a schedule annotation.
//
// A fill is a nest of loops (thread-bound ones included) and branches
// around one store into the tile whose value loads only buffers that the
// loop does not write. A marked tile that cannot be pipelined this way (its
// fill is not such a nest, the loop reads the tile before filling it, or
// the loop's extent is not a constant) is an error naming the tile; a fill
// that does not depend on its loop is left alone (nothing to overlap).
#pragma once

#include "lower/lower.h"

namespace tunectl::lower {

LoweredFunc double_buffer(LoweredFunc func);

}  // namespace tunectl::lower
