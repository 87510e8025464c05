// Steps that rearrange or label the loops of one stage: reorder, fuse,
// annotate and pragma.
#include <algorithm>
#include <charconv>

#include "ir/error.h"
#include "schedule/step_apply.h"

namespace tunectl::schedule::detail {

void apply_reorder(State& s, const ReorderStep& step) {
  Stage& stage = compute_stage(s, step.stage);
  size_t n = stage.leaves.size();
  user_check(step.order.size() == n, "reorder lists ", step.order.size(), " positions but the stage has ", n,
             " loops (not a permutation)");
  std::vector<bool> seen(n, false);
  std::vector<int> leaves;
  for (int p : step.order) {
    user_check(p >= 0 && p < static_cast<int>(n) && !seen[p], "reorder order is not a permutation of 0..", n - 1);
    seen[p] = true;
    leaves.push_back(stage.leaves[p]);
  }
  stage.leaves = std::move(leaves);
}

void apply_fuse(State& s, const FuseStep& step) {
  Stage& stage = compute_stage(s, step.stage);
  user_check(!step.iters.empty(), "fuse of no iterators");
  std::vector<int> parents;
  std::string name;
  int64_t extent = 1;
  for (size_t k = 0; k < step.iters.size(); ++k) {
    int id = leaf_id_at(stage, step.iters[k]);
    user_check(k == 0 || step.iters[k] == step.iters[k - 1] + 1, "fuse of non-consecutive iterators (positions ",
               step.iters[k - (k > 0)], " and ", step.iters[k], ")");
    const Iterator& it = stage.iters[id];
    const Iterator& first = stage.iters[stage.leaves[step.iters[0]]];
    user_check(it.kind == first.kind, "fuse of spatial with reduce iterators (", first.name, " is ",
               ir::to_string(first.kind), ", ", it.name, " is ", ir::to_string(it.kind), ")");
    user_check(extent <= (int64_t{1} << 40) / it.extent, "fused extent is too large");
    parents.push_back(id);
    name += it.name + "@";
    extent *= it.extent;
  }
  int child = static_cast<int>(stage.iters.size());
  stage.iters.push_back({child, name, extent, stage.iters[parents[0]].kind, IterAnnotation::None});
  int first = step.iters.front();
  stage.leaves.erase(stage.leaves.begin() + first, stage.leaves.begin() + first + step.iters.size());
  stage.leaves.insert(stage.leaves.begin() + first, child);
  stage.relations.emplace_back(FuseRelation{parents, child});
  move_attachments(s, step.stage, parents, child);
}

void apply_annotation(State& s, const AnnotationStep& step) {
  Stage& stage = compute_stage(s, step.stage);
  Iterator& it = stage.iters[leaf_id_at(stage, step.iter)];
  IterAnnotation a = iter_annotation_from_string(step.annotation);
  // A parallel or vectorized reduce loop would race on the accumulator (or
  // need a horizontal reduction, which lowering does not do): rfactor first.
  user_check(!(it.kind == ir::IterKind::Reduce && (a == IterAnnotation::Parallel || a == IterAnnotation::Vectorize)),
             "cannot ", step.annotation, " reduce iterator ", it.name, " (rfactor it first)");
  // A block or thread index stands for one loop of a stage: two loops bound
  // to it would both take its value. A reduce loop bound to threadIdx.x is
  // a cross-thread reduction (lower/loop_nest.cpp: the block's threads
  // combine their shares); to a block index it would need blocks to combine.
  const bool hardware = a != IterAnnotation::None && a != IterAnnotation::Parallel &&
                        a != IterAnnotation::Vectorize && a != IterAnnotation::Unroll && a != IterAnnotation::VThread;
  if (hardware) {
    user_check(it.kind != ir::IterKind::Reduce || a == IterAnnotation::ThreadX, "cannot bind reduce iterator ",
               it.name, " to ", step.annotation, " (a reduction across threads binds threadIdx.x)");
    for (int leaf : stage.leaves) {
      user_check(&stage.iters[leaf] == &it || stage.iters[leaf].annotation != a, "cannot bind ", it.name, " to ",
                 step.annotation, ": ", stage.iters[leaf].name, " of the same stage is bound to it");
    }
  }
  it.annotation = a;
}

void apply_pragma(State& s, const PragmaStep& step) {
  Stage& stage = compute_stage(s, step.stage);
  leaf_id_at(stage, step.iter);
  if (step.pragma == "double_buffer") {
    user_check(stage.op->buffer->scope == ir::MemScope::Shared, "pragma double_buffer applies to a shared cache stage, not ",
               stage.op->name);
    stage.double_buffer = true;
    return;
  }
  const std::string prefix = "auto_unroll_max_step$";
  user_check(step.pragma.rfind(prefix, 0) == 0, "bad pragma syntax '", step.pragma, "' (expected ", prefix,
             "N or double_buffer)");
  const char* begin = step.pragma.data() + prefix.size();
  const char* end = step.pragma.data() + step.pragma.size();
  int value = -1;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  user_check(ec == std::errc() && ptr == end && begin != end && value >= 0, "bad pragma syntax '", step.pragma,
             "' (N must be a non-negative integer)");
  stage.auto_unroll_max_step = value;
}

}  // namespace tunectl::schedule::detail
