// Split and FollowSplit: one loop becomes several nested loops.
#include <variant>

#include "ir/error.h"
#include "schedule/step_apply.h"

namespace tunectl::schedule::detail {

namespace {

// Splits leaf `position` of stage_index into 1 + lengths.size() loops.
void split_leaf(State& s, int stage_index, int position, int64_t expected_extent, const std::vector<int64_t>& lengths) {
  Stage& stage = compute_stage(s, stage_index);
  int parent_id = leaf_id_at(stage, position);
  Iterator parent = stage.iters[parent_id];
  user_check(parent.extent == expected_extent, "split of ", parent.name, " expects extent ", expected_extent,
             " but the loop has extent ", parent.extent);
  user_check(!lengths.empty(), "split of ", parent.name, " has no lengths");
  int64_t product = 1;
  for (int64_t l : lengths) {
    user_check(l > 0, "split of ", parent.name, " has a non-positive length ", l);
    user_check(l <= (int64_t{1} << 40) / product, "split lengths of ", parent.name, " are too large");
    product *= l;
  }
  std::vector<int64_t> extents{(parent.extent + product - 1) / product};
  extents.insert(extents.end(), lengths.begin(), lengths.end());

  SplitRelation rel{parent_id, {}};
  std::vector<int> new_leaves(stage.leaves.begin(), stage.leaves.begin() + position);
  for (size_t k = 0; k < extents.size(); ++k) {
    int id = static_cast<int>(stage.iters.size());
    stage.iters.push_back({id, parent.name + "." + std::to_string(k), extents[k], parent.kind, IterAnnotation::None});
    rel.children.push_back(id);
    new_leaves.push_back(id);
  }
  new_leaves.insert(new_leaves.end(), stage.leaves.begin() + position + 1, stage.leaves.end());
  stage.leaves = std::move(new_leaves);
  int innermost = rel.children.back();
  stage.relations.emplace_back(std::move(rel));
  // A stage computed inside the split loop now sits inside all of its parts.
  move_attachments(s, stage_index, {parent_id}, innermost);
}

}  // namespace

void apply_split(State& s, const SplitStep& step) {
  user_check(step.inner_to_outer, "split with inner_to_outer = false is not supported");
  split_leaf(s, step.stage, step.iter, step.extent, step.lengths);
}

void apply_follow_split(State& s, const FollowSplitStep& step) {
  user_check(step.src_step >= 0 && step.src_step < static_cast<int>(s.history.size()), "follow_split source step ",
             step.src_step, " is out of range (", s.history.size(), " steps so far)");
  const auto* src = std::get_if<SplitStep>(&s.history[step.src_step]);
  user_check(src != nullptr, "follow_split source step ", step.src_step, " is not a split");
  int max_parts = static_cast<int>(src->lengths.size()) + 1;
  user_check(step.n_split >= 1 && step.n_split <= max_parts, "follow_split n_split ", step.n_split,
             " must be in [1, ", max_parts, "]");
  // As in Ansor: the first n_split - 1 lengths, then the product of the rest
  // (1 when none is left) as the innermost length.
  std::vector<int64_t> lengths(src->lengths.begin(), src->lengths.begin() + (step.n_split - 1));
  int64_t rest = 1;
  for (size_t k = step.n_split - 1; k < src->lengths.size(); ++k) rest *= src->lengths[k];
  lengths.push_back(rest);
  const Stage& stage = compute_stage(s, step.stage);
  int64_t extent = stage.iters[leaf_id_at(stage, step.iter)].extent;
  split_leaf(s, step.stage, step.iter, extent, lengths);
}

void apply_follow_fused_split(State& s, const FollowFusedSplitStep& step) {
  user_check(!step.src_steps.empty(), "follow_fused_split has no source steps");
  int64_t length = 1;
  for (int src_step : step.src_steps) {
    user_check(src_step >= 0 && src_step < static_cast<int>(s.history.size()), "follow_fused_split source step ",
               src_step, " is out of range (", s.history.size(), " steps so far)");
    const auto* src = std::get_if<SplitStep>(&s.history[src_step]);
    user_check(src != nullptr, "follow_fused_split source step ", src_step, " is not a split");
    user_check(step.level >= 0 && step.level < static_cast<int>(src->lengths.size()), "follow_fused_split level ",
               step.level, " is not a level of source step ", src_step, " (", src->lengths.size(), " lengths)");
    user_check(src->lengths[step.level] <= (int64_t{1} << 40) / length, "follow_fused_split lengths are too large");
    length *= src->lengths[step.level];
  }
  const Stage& stage = compute_stage(s, step.stage);
  const int64_t extent = stage.iters[leaf_id_at(stage, step.iter)].extent;
  const int64_t inner = step.factor ? length : (extent + length - 1) / length;
  split_leaf(s, step.stage, step.iter, extent, {inner});
}

}  // namespace tunectl::schedule::detail
