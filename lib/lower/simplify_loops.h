// Lowering pass: the arithmetic simplifier (ir/simplify.h) over a whole
// function, its packing functions included. Splits and fuses leave index
// expressions like `(f // 16) * 16 + f % 16`, and loop nests leave unit
// loops and guards the loop ranges already decide; this pass removes them.
#pragma once

#include "lower/lower.h"

namespace tunectl::lower {

LoweredFunc simplify_loops(LoweredFunc func);

}  // namespace tunectl::lower
