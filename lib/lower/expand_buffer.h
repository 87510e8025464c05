// Rewrites every access to a flat buffer as an access to one copy of it in a
// buffer holding several copies back to back (the per-vthread copies of a
// thread's own buffers, the two tiles of a double-buffered shared array).
#pragma once

#include "ir/stmt.h"

namespace tunectl::lower {

// s with each access from[i] replaced by to[copy * from.num_elements() + i].
ir::Stmt expand_buffer(const ir::Stmt& s, const ir::Buffer& from, const ir::Buffer& to, const ir::Expr& copy);

}  // namespace tunectl::lower
