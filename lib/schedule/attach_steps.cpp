// Steps that decide where a stage is computed: inside a loop of its reader,
// or of a stage that reader is computed inside (compute_at), substituted
// into its readers (compute_inline), or at the root of the kernel
// (compute_root).
#include "ir/error.h"
#include "schedule/step_apply.h"

namespace tunectl::schedule::detail {

void apply_compute_at(State& s, const ComputeAtStep& step) {
  Stage& stage = compute_stage(s, step.stage);
  const std::string& name = stage.op->name;
  user_check(step.target_stage != step.stage, "compute_at of ", name, " onto itself");
  user_check(step.target_stage >= 0 && step.target_stage < static_cast<int>(s.stages.size()), "compute_at target ",
             step.target_stage, " is out of range (", s.stages.size(), " stages)");
  const Stage& target = s.stages[step.target_stage];
  user_check(!target.op->is_placeholder(), "compute_at onto placeholder ", target.op->name);
  user_check(target.attach.kind != AttachKind::Inline, "compute_at onto ", target.op->name,
             ", which is inlined and has no loops");
  int iter = leaf_id_at(target, step.target_iter);
  user_check(encloses_readers(s, step.stage, step.target_stage, iter), "compute_at onto ", target.op->name,
             ", which does not read ", name, " nor holds every reader of it inside that loop");
  stage.attach = Attach{AttachKind::Iter, step.target_stage, iter};
}

void apply_compute_inline(State& s, const ComputeInlineStep& step) {
  Stage& stage = compute_stage(s, step.stage);
  const std::string& name = stage.op->name;
  user_check(stage.op->reduce() == nullptr, "cannot compute_inline ", name, ": it is a reduction");
  user_check(!stage.prepacked, "cannot compute_inline ", name, ": it is prepacked");
  user_check(!is_output_stage(s, step.stage), "cannot compute_inline ", name, ": it is an output");
  user_check(!has_attached_stages(s, step.stage), "cannot compute_inline ", name,
             ": other stages are attached to its loops");
  stage.attach = Attach{AttachKind::Inline, -1, -1};
}

void apply_compute_root(State& s, const ComputeRootStep& step) {
  Stage& stage = compute_stage(s, step.stage);
  stage.attach = Attach{AttachKind::Root, -1, -1};
}

}  // namespace tunectl::schedule::detail
