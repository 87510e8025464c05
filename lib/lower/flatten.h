// Lowering pass: buffer flattening. Every Load and Store addresses its
// buffer with one row-major element offset, the form code generation and the
// interpreter expect (in the buffer's axis order where it has one).
#pragma once

#include "lower/lower.h"

namespace tunectl::lower {

// func with every multi-dimensional access buffer[i0, .., in] replaced by
// buffer[((i0 * s1 + i1) * s2 + ..) + in] over the buffer's shape (its axes
// taken in the buffer's axis_order where it has one).
LoweredFunc flatten_buffers(LoweredFunc func);

// The element offset of buffer[indices] in its memory order; an access with
// one index is already flat (code generation calls this on flattened IR).
ir::Expr flat_index(const ir::Buffer& buffer, const std::vector<ir::Expr>& indices);

}  // namespace tunectl::lower
