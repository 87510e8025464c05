// What schedule_to_loops (schedule_to_loops.h) knows about each stage of a
// State while it builds the loop IR. Its steps complete the records in
// order: collect_stages (root axes and domains), inline_stages (bodies with
// inlined producers substituted), infer_bounds (regions, buffers and loops),
// plan_prepacks, auto_unroll, then build_loop_nests turns them into one
// statement.
#pragma once

#include <string>
#include <vector>

#include "ir/stmt.h"
#include "schedule/state.h"

namespace tunectl::lower {

// An iterator between the leaves and the root whose value may leave its
// range when a split below it covers more than its extent.
struct InnerRange {
  ir::Expr value;
  int64_t extent = 0;
  ir::IterKind kind = ir::IterKind::Spatial;
};

// One loop of the generated nest.
struct Loop {
  ir::Var var;
  int64_t extent = 0;
  ir::ForKind kind = ir::ForKind::Serial;
  std::string thread_tag;
  // Set when auto_unroll made the loop Unrolled: its stage's
  // auto_unroll_max_step, which also bounds what other stages computed
  // inside the loop are replicated with it (build_loop_nests).
  int64_t unroll_budget = 0;
};

struct StageInfo {
  // A compute stage that is not inlined: it gets loops and a buffer.
  bool active = false;
  bool is_output = false;
  // Root iterators of the stage: the op's spatial axes, then its reduce axes.
  std::vector<ir::Var> root_vars;
  std::vector<int64_t> domain;  // extent of each root iterator
  int num_spatial = 0;
  // The op's body with inlined producers substituted (a Reduce at the top
  // for reductions).
  ir::Expr body;

  // Bound inference: the stage computes spatial points [region_min,
  // region_min + region_extent) into `buffer`, whose element 0 holds the
  // point region_min. region_min is in terms of the enclosing loops.
  std::vector<ir::Expr> region_min;
  std::vector<int64_t> region_extent;
  ir::Buffer buffer;
  // Loops around the stage (from its attach chain), outer to inner.
  std::vector<Loop> enclosing;
  // The stage's own loops, one per leaf, outer to inner.
  std::vector<Loop> loops;
  // Value of each root iterator in terms of `loops`, relative to region_min
  // (reduce iterators are absolute: their region is the whole domain).
  std::vector<ir::Expr> local_root_values;
  // Intermediate iterators that need a range check (LeafLoops::inner_ranges).
  std::vector<InnerRange> inner_ranges;
  // A prepacked stage: the kernel argument holding all its regions, which
  // the kernel reads instead of computing the stage (prepack.h).
  ir::Buffer packed;
};

// Root axes and domains of every stage; which stages are active and outputs.
std::vector<StageInfo> collect_stages(const schedule::State& state);

}  // namespace tunectl::lower
