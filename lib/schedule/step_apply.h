// Internal to lib/schedule: the per-step transforms that State::apply
// dispatches to, and the stage bookkeeping they share. Each apply_* checks
// its step against the state with user_check (plain messages; State::apply
// prefixes which step and which stage) and then edits the state in place.
// State::apply runs them on a copy, so a rejected step leaves the state as it
// was.
#pragma once

#include <string>
#include <vector>

#include "schedule/stage_graph.h"
#include "schedule/state.h"

namespace tunectl::schedule::detail {

void apply_split(State& s, const SplitStep& step);
void apply_follow_split(State& s, const FollowSplitStep& step);
void apply_follow_fused_split(State& s, const FollowFusedSplitStep& step);
void apply_reorder(State& s, const ReorderStep& step);
void apply_fuse(State& s, const FuseStep& step);
void apply_annotation(State& s, const AnnotationStep& step);
void apply_pragma(State& s, const PragmaStep& step);
void apply_compute_at(State& s, const ComputeAtStep& step);
void apply_compute_inline(State& s, const ComputeInlineStep& step);
void apply_compute_root(State& s, const ComputeRootStep& step);
void apply_cache_read(State& s, const CacheReadStep& step);
void apply_cache_write(State& s, const CacheWriteStep& step);
void apply_rfactor(State& s, const RfactorStep& step);
void apply_prepack(State& s, const PrepackStep& step);
void apply_storage_order(State& s, const StorageOrderStep& step);

// The stage at index i of a compute op (UserError for a placeholder).
Stage& compute_stage(State& s, int i);
// Checks that position is a leaf position of stage and returns the iterator id.
int leaf_id_at(const Stage& stage, int position);

// base, or base_1, base_2, ... when a stage already has that name (a stage
// cached or rfactored twice), so that buffer names stay unique.
std::string unique_stage_name(const State& s, const std::string& base);
// Inserts stage at index `at`, shifting every attach target at or after it.
void insert_stage(State& s, int at, Stage stage);
// Moves attachments to (stage, any of from_ids) onto to_id.
void move_attachments(State& s, int stage, const std::vector<int>& from_ids, int to_id);
// Points every op's inputs at the current op of each read buffer (cache and
// rfactor steps replace ops while keeping buffers).
void refresh_inputs(State& s);
// Checks the invariants that several steps can break: every Iter attach
// points at a leaf of a compute stage that is not inlined and that is the
// only (effective) reader of the attached stage.
void validate_attachments(const State& s);

}  // namespace tunectl::schedule::detail
