#include "lower/simplify_loops.h"

#include "ir/simplify.h"

namespace tunectl::lower {

LoweredFunc simplify_loops(LoweredFunc func) {
  func.body = ir::simplify(func.body);
  return func;
}

}  // namespace tunectl::lower
