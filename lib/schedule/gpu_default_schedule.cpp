#include "schedule/gpu_default_schedule.h"

#include <algorithm>

namespace tunectl::schedule {

State gpu_default_schedule(std::shared_ptr<const te::ComputeDAG> dag) {
  State s = State::initial(std::move(dag));
  const int last = static_cast<int>(s.stages.size()) - 1;
  const Stage& out = s.stages[last];
  std::vector<int> space;
  int64_t elements = 1;
  for (int p = 0; p < static_cast<int>(out.leaves.size()) && out.leaf(p).kind == ir::IterKind::Spatial; ++p) {
    space.push_back(p);
    elements *= out.leaf(p).extent;
  }
  if (space.empty()) return s;  // a scalar reduction: one thread
  if (space.size() > 1) s.apply(FuseStep{last, space});
  const int64_t threads = std::min<int64_t>(64, elements);
  s.apply(SplitStep{last, 0, elements, {threads}});
  s.apply(AnnotationStep{last, 0, "blockIdx.x"});
  s.apply(AnnotationStep{last, 1, "threadIdx.x"});
  for (int i = last - 1; i >= 0; --i) {
    if (s.stages[i].op->is_placeholder()) continue;
    // Inlined, else computed per thread at the thread loop, else (a stage
    // that other attached stages read too) left at the root, where every
    // thread computes it whole into a buffer of its own.
    if (s.try_apply(ComputeInlineStep{i})) s.try_apply(ComputeAtStep{i, last, 1});
  }
  return s;
}

}  // namespace tunectl::schedule
