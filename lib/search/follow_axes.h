// How an output that reads a reduction through reshapes and transposes can
// walk the reduction's own axes. BERT's key projection is a matmul [s, n]
// stored as [h, d, s] with n = h * 64 + d: its output reordered to
// (s, h, d) and h, d fused is a loop nest over (s, n), which can follow
// the matmul's tiles as an elementwise consumer does (gpu_sketch.cpp), so
// every result goes from a thread's registers straight to its place.
#pragma once

#include <optional>
#include <vector>

#include "schedule/state.h"

namespace tunectl::search {

// For each spatial axis of stage i, the axes of stage c (positions,
// outermost first) whose loops, fused in that order, walk it: c's only
// read of i (looking through inlined stages) maps each axis of c onto a
// contiguous run of one of i's axes, and together c's axes cover each of
// i's exactly once. Extent-1 axes of c pair with those of i in order; the
// rest join the first group. nullopt where c reads i in any other way (a
// reshape that splits one of c's axes across two of i's, a gather, two
// different reads), or c's loops are no longer its axes.
std::optional<std::vector<std::vector<int>>> follow_axes(const schedule::State& s, int i, int c);

// Stage c's axes reordered and fused into the groups (follow_axes), so
// that its leaves walk i's axes in order.
void apply_follow_axes(schedule::State& s, int c, const std::vector<std::vector<int>>& groups);

}  // namespace tunectl::search
