#include "lower/stage_info.h"

#include "ir/error.h"

namespace tunectl::lower {

std::vector<StageInfo> collect_stages(const schedule::State& state) {
  std::vector<StageInfo> infos(state.stages.size());
  for (size_t s = 0; s < state.stages.size(); ++s) {
    const schedule::Stage& stage = state.stages[s];
    StageInfo& info = infos[s];
    const te::Tensor& op = stage.op;
    if (op->is_placeholder()) continue;
    for (const ir::IterVar& a : op->axes) {
      info.root_vars.push_back(a.var);
      info.domain.push_back(a.extent);
    }
    info.num_spatial = static_cast<int>(op->axes.size());
    if (const ir::ReduceNode* r = op->reduce()) {
      for (const ir::IterVar& a : r->axes) {
        info.root_vars.push_back(a.var);
        info.domain.push_back(a.extent);
      }
    }
    internal_check(static_cast<int>(info.root_vars.size()) == stage.num_root_iters(), "stage ", op->name, " has ",
                   stage.num_root_iters(), " root iterators but its op has ", info.root_vars.size(), " axes");
    for (const te::Tensor& out : state.dag->outputs()) info.is_output |= out->buffer.same_as(op->buffer);
    info.active = stage.attach.kind != schedule::AttachKind::Inline;
    user_check(!info.is_output || stage.attach.kind == schedule::AttachKind::Root, "output stage ", op->name,
               " must be computed at the root");
  }
  return infos;
}

}  // namespace tunectl::lower
