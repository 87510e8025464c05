#include "schedule/gpu_default_schedule.h"

#include <algorithm>

#include "schedule/stage_graph.h"

namespace tunectl::schedule {

namespace {

// One thread per element of stage i: its space loops fused, split by 64 and
// bound to blockIdx.x / threadIdx.x. False for a stage without space loops.
bool bind_threads(State& s, int i) {
  const Stage& stage = s.stages[i];
  std::vector<int> space;
  int64_t elements = 1;
  for (int p = 0; p < static_cast<int>(stage.leaves.size()) && stage.leaf(p).kind == ir::IterKind::Spatial; ++p) {
    space.push_back(p);
    elements *= stage.leaf(p).extent;
  }
  if (space.empty()) return false;
  if (space.size() > 1) s.apply(FuseStep{i, space});
  const int64_t threads = std::min<int64_t>(64, elements);
  s.apply(SplitStep{i, 0, elements, {threads}});
  s.apply(AnnotationStep{i, 0, "blockIdx.x"});
  s.apply(AnnotationStep{i, 1, "threadIdx.x"});
  return true;
}

}  // namespace

State gpu_default_schedule(std::shared_ptr<const te::ComputeDAG> dag) {
  State s = State::initial(std::move(dag));
  const int last = static_cast<int>(s.stages.size()) - 1;
  if (!bind_threads(s, last)) return s;  // a scalar reduction: one thread
  for (int i = last - 1; i >= 0; --i) {
    if (s.stages[i].op->is_placeholder()) continue;
    // Another output (TopK's values beside its indices) stays at the root
    // with threads of its own.
    if (is_output_stage(s, i)) {
      bind_threads(s, i);
      continue;
    }
    // Inlined, else computed per thread at the thread loop, else (a stage
    // that other attached stages read too) left at the root, where every
    // thread computes it whole into a buffer of its own.
    if (s.try_apply(ComputeInlineStep{i})) s.try_apply(ComputeAtStep{i, last, 1});
  }
  return s;
}

}  // namespace tunectl::schedule
