// How an output that reads a reduction through reshapes and transposes can
// walk the reduction's own axes. BERT's key projection is a matmul [s, n]
// stored as [h, d, s] with n = h * 64 + d: its output reordered to
// (s, h, d) and h, d fused is a loop nest over (s, n), which can follow
// the matmul's tiles as an elementwise consumer does (gpu_sketch.cpp), so
// every result goes from a thread's registers straight to its place. Its
// attention output, [h, s, d] stored as [s, n], splits n by 64 instead.
#pragma once

#include <optional>
#include <vector>

#include "schedule/state.h"

namespace tunectl::search {

// How stage c's loops come to walk stage i's axes: some of c's axes split
// in two, then its leaves reordered and fused into one loop per axis of i.
struct FollowPlan {
  // Per axis of c: the inner length it is split by (BERT's attention
  // output [seq, heads * dim] read from [heads, seq, dim]: heads * dim by
  // dim), or none.
  std::vector<std::vector<int64_t>> split_lengths;
  // Per axis of i: the leaves of c (positions after the splits, outermost
  // first) whose loops, fused in that order, walk it.
  std::vector<std::vector<int>> groups;
};

// The plan for output c, when its only read of i (looking through inlined
// stages) maps each axis of c, or each of at most two digits of it, onto a
// contiguous run of one of i's axes, and together they cover each of i's
// exactly once. Extent-1 axes of c pair with those of i in order; the rest
// join the first group. nullopt where c reads i in any other way (a
// reshape across rows, a gather, two different reads), or c's loops are no
// longer its axes.
std::optional<FollowPlan> follow_axes(const schedule::State& s, int i, int c);

// Stage c split, reordered and fused by the plan, so that its leaves walk
// i's axes in order.
void apply_follow_axes(schedule::State& s, int c, const FollowPlan& plan);

}  // namespace tunectl::search
