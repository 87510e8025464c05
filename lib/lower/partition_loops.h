// Lowering pass (CPU): loop partitioning, so that a tile which does not
// divide its axis costs a guard only in its last, partial tile. A split of
// 1024 rows into tiles of 6 guards every store of the tile with
// `i.0 * 6 + i.1 < 1024`; left in the inner loop, that check made a
// 6-row matmul tile (24 AVX-512 accumulators) run 2.1x as long as the
// 4-row tile it beats once cut. For a serial, unrolled or parallel loop whose
// body has a guard that is linear in the loop's variable, the loop is cut where the
// guard becomes decided for every inner iteration: a prefix and a suffix on
// which it is provably true or false, and the undecided middle. The
// simplifier then drops the decided guards, and with them the segments
// whose guard is false throughout. A parallel loop stays one dispatch: its
// body branches on the segment of its iteration (`if (i < 170) ...; if
// (i >= 170) ...`). Vectorized and thread-bound loops are not cut; a
// function is cut at most kMaxLoopCuts times, since each cut copies a loop
// body.
#pragma once

#include "lower/lower.h"

namespace tunectl::lower {

constexpr int kMaxLoopCuts = 16;

LoweredFunc partition_loops(LoweredFunc func);

}  // namespace tunectl::lower
