// Lowering pass: buffer flattening. Every Load and Store addresses its
// buffer with one row-major element offset, the form code generation and the
// interpreter expect.
#pragma once

#include "lower/lower.h"

namespace tunectl::lower {

// func with every multi-dimensional access buffer[i0, .., in] replaced by
// buffer[((i0 * s1 + i1) * s2 + ..) + in] over the buffer's shape.
LoweredFunc flatten_buffers(LoweredFunc func);

}  // namespace tunectl::lower
