// Deep comparison of expressions: used by the simplifier to combine like
// terms, by common-subexpression style caches, and by tests. Variables and
// buffers compare by identity (two vars named "i" are different), everything
// else by value.
#pragma once

#include <cstddef>

#include "ir/expr.h"

namespace tunectl::ir {

bool structural_equal(const Expr& a, const Expr& b);
// Consistent with structural_equal. Mixes in variable and buffer addresses, so
// it is stable within a process only: never use it to order output.
size_t structural_hash(const Expr& e);

// Functors for hash containers keyed by expression structure.
struct StructuralHash {
  size_t operator()(const Expr& e) const { return structural_hash(e); }
};
struct StructuralEqual {
  bool operator()(const Expr& a, const Expr& b) const { return structural_equal(a, b); }
};

}  // namespace tunectl::ir
