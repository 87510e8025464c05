// The loops of one stage (for infer_bounds, bound_inference.h): one loop per leaf
// iterator, outer to inner, with the kind its annotation asks for, and the
// value of every root iterator as an expression of the loop variables,
// recovered by walking the stage's split and fuse relations backwards.
#pragma once

#include <vector>

#include "lower/stage_info.h"

namespace tunectl::lower {

struct LeafLoops {
  std::vector<Loop> loops;
  // One per root iterator (ids 0..num_root_iters-1).
  std::vector<ir::Expr> root_values;
  // Non-leaf inner children of splits. Their overflow would alias points of
  // the parent, so lowering guards them like root iterators; an outer child
  // or a fused parent that overflows pushes its parent out of range instead,
  // which the parent's own check catches.
  std::vector<InnerRange> inner_ranges;
};

// Loops of stage when its root iterators must cover root_extents (the
// inferred region, which may be smaller than the stage's own extents).
// Split factors stay as scheduled but for an inner part longer than what its
// parent covers, which shrinks to it (unless it leads to a hardware
// binding); the outer part of each split and every fused loop are
// recomputed from the root extents, so a loop nest may cover more points
// than asked for (lowering guards those).
LeafLoops make_leaf_loops(const schedule::Stage& stage, const std::vector<int64_t>& root_extents);

}  // namespace tunectl::lower
