// Cache stages: cache_write computes a stage into a scoped buffer and copies
// it out; cache_read copies a stage into a scoped buffer for chosen readers;
// prepack moves a cache_read copy of a constant out of the kernel;
// storage_order lays out a scoped buffer's axes in another order.
#include <algorithm>
#include <memory>

#include "ir/error.h"
#include "schedule/op_rewrite.h"
#include "schedule/step_apply.h"

namespace tunectl::schedule::detail {

void apply_cache_write(State& s, const CacheWriteStep& step) {
  Stage& stage = compute_stage(s, step.stage);
  const te::Tensor op = stage.op;
  ir::MemScope scope = ir::mem_scope_from_string(step.scope);
  user_check(stage.attach.kind != AttachKind::Inline, "cannot cache_write ", op->name, ": it is inlined");
  // The original stage restarts with fresh loops, so attachments to its old
  // loops would dangle.
  user_check(!has_attached_stages(s, step.stage), "cannot cache_write ", op->name,
             ": other stages are attached to its loops");

  std::string cache_name = unique_stage_name(s, op->name + "." + step.scope);
  ir::Buffer cache_buffer(cache_name, op->dtype(), op->shape(), scope);
  te::Tensor cache_op = clone_with_fresh_vars(op, cache_name, cache_buffer, op->tag);
  te::Tensor copy_op = make_copy_op(op->name, op->buffer, cache_op, "cache_copy");

  Stage copy = make_stage(copy_op);
  copy.attach = stage.attach;
  s.stages[step.stage] = std::move(copy);
  insert_stage(s, step.stage, make_stage(cache_op));
  refresh_inputs(s);
}

void apply_cache_read(State& s, const CacheReadStep& step) {
  user_check(step.stage >= 0 && step.stage < static_cast<int>(s.stages.size()), "stage index ", step.stage,
             " is out of range");
  const te::Tensor op = s.stages[step.stage].op;
  ir::MemScope scope = ir::mem_scope_from_string(step.scope);
  user_check(s.stages[step.stage].attach.kind != AttachKind::Inline, "cannot cache_read ", op->name,
             ": it is inlined");
  user_check(!step.readers.empty(), "cache_read of ", op->name, " lists no readers");
  std::vector<int> readers = step.readers;
  std::sort(readers.begin(), readers.end());
  user_check(std::adjacent_find(readers.begin(), readers.end()) == readers.end(), "cache_read of ", op->name,
             " lists a reader twice");
  for (int r : readers) {
    user_check(r >= 0 && r < static_cast<int>(s.stages.size()), "cache_read reader ", r, " is out of range");
    user_check(r != step.stage && reads_directly(s, r, step.stage), "cache_read reader ", s.stages[r].op->name,
               " does not read ", op->name);
    // A prepacked copy is made outside the kernel from the constant itself.
    user_check(!s.stages[r].prepacked, "cache_read reader ", s.stages[r].op->name, " is prepacked: it must copy ",
               op->name, " itself");
  }

  std::string cache_name = unique_stage_name(s, op->name + "." + step.scope);
  ir::Buffer cache_buffer(cache_name, op->dtype(), op->shape(), scope);
  te::Tensor cache_op = make_copy_op(cache_name, cache_buffer, op, "cache_read");
  for (int r : readers) {
    auto node = std::make_shared<te::TensorNode>(*s.stages[r].op);
    node->body = redirect_loads(node->body, op->buffer, cache_buffer);
    for (auto& in : node->inputs)
      if (in->buffer.same_as(op->buffer)) in = cache_op;
    // The reader keeps its loops: only which buffer its body loads changes.
    s.stages[r].op = std::move(node);
  }
  insert_stage(s, step.stage + 1, make_stage(cache_op));
  refresh_inputs(s);
}

void apply_prepack(State& s, const PrepackStep& step) {
  Stage& stage = compute_stage(s, step.stage);
  const te::Tensor& op = stage.op;
  user_check(op->tag == "cache_read" && op->inputs.size() == 1 && op->inputs[0]->is_placeholder() &&
                 op->inputs[0]->constant,
             "cannot prepack ", op->name, ": only a cache_read copy of a constant placeholder can be");
  user_check(stage.attach.kind != AttachKind::Inline, "cannot prepack ", op->name, ": it is inlined");
  user_check(!stage.prepacked, op->name, " is already prepacked");
  stage.prepacked = true;
}

void apply_storage_order(State& s, const StorageOrderStep& step) {
  Stage& stage = compute_stage(s, step.stage);
  const te::Tensor& op = stage.op;
  // A global buffer may be an argument of the kernel, whose layout is fixed.
  user_check(op->buffer->scope != ir::MemScope::Global, "cannot reorder the storage of ", op->name,
             ": only a shared or local buffer's layout is the schedule's");
  user_check(stage.attach.kind != AttachKind::Inline, "cannot reorder the storage of ", op->name, ": it is inlined");
  std::vector<int> sorted = step.order;
  std::sort(sorted.begin(), sorted.end());
  bool permutation = sorted.size() == op->axes.size();
  for (size_t a = 0; permutation && a < sorted.size(); ++a) permutation = sorted[a] == static_cast<int>(a);
  user_check(permutation, "storage order of ", op->name, " must be a permutation of its ", op->axes.size(), " axes");
  stage.storage_order = step.order;
}

}  // namespace tunectl::schedule::detail
