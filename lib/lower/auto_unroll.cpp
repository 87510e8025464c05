#include "lower/auto_unroll.h"

namespace tunectl::lower {

void auto_unroll(std::vector<Loop>& loops, int max_step) {
  if (max_step <= 0) return;
  int64_t product = 1;
  for (size_t k = loops.size(); k-- > 0;) {
    Loop& loop = loops[k];
    bool inner_kind = loop.kind == ir::ForKind::Vectorized || loop.kind == ir::ForKind::Unrolled;
    if ((loop.kind != ir::ForKind::Serial && !inner_kind) || product * loop.extent > max_step) return;
    product *= loop.extent;
    if (loop.kind == ir::ForKind::Serial) {
      loop.kind = ir::ForKind::Unrolled;
      loop.unroll_budget = max_step;
    }
  }
}

}  // namespace tunectl::lower
