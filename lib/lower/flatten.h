// Buffer flattening, the last structural pass of lowering: every Load and
// Store of the lowered body addresses its buffer with one row-major element
// offset, the form code generation and the interpreter expect.
#pragma once

#include "ir/stmt.h"

namespace tunectl::lower {

// s with every multi-dimensional access buffer[i0, .., in] replaced by
// buffer[((i0 * s1 + i1) * s2 + ..) + in] over the buffer's shape.
ir::Stmt flatten(const ir::Stmt& s);

}  // namespace tunectl::lower
