// Queries and invariants over the stages of a State: who reads whom, where
// stages are attached, and the bookkeeping when a step inserts a stage.
#include <algorithm>
#include <set>

#include "ir/error.h"
#include "schedule/op_rewrite.h"
#include "schedule/stage_graph.h"
#include "schedule/step_apply.h"

namespace tunectl::schedule {

bool reads_directly(const State& s, int reader, int producer) {
  const auto& r = s.stages[reader].op;
  if (r->is_placeholder()) return false;
  const auto& buf = s.stages[producer].op->buffer;
  return std::any_of(r->inputs.begin(), r->inputs.end(), [&](const te::Tensor& in) { return in->buffer.same_as(buf); });
}

std::vector<int> effective_readers(const State& s, int producer) {
  std::set<int> out;
  for (int r = 0; r < static_cast<int>(s.stages.size()); ++r) {
    if (r == producer || !reads_directly(s, r, producer)) continue;
    if (s.stages[r].attach.kind == AttachKind::Inline) {
      for (int rr : effective_readers(s, r)) out.insert(rr);
    } else {
      out.insert(r);
    }
  }
  return {out.begin(), out.end()};
}

bool is_output_stage(const State& s, int i) {
  const auto& buf = s.stages[i].op->buffer;
  const auto& outs = s.dag->outputs();
  return std::any_of(outs.begin(), outs.end(), [&](const te::Tensor& t) { return t->buffer.same_as(buf); });
}

namespace {

// Whether the reader's computation lies inside loop target_iter of target:
// it is the target, or its attach chain reaches the target at that loop or
// inside it.
bool encloses_reader(const State& s, int reader, int target, int target_iter) {
  int stage = reader;
  int chain_iter = -1;  // the loop of `stage` the chain passed through; -1: the reader itself
  for (;;) {
    if (stage == target) {
      if (chain_iter < 0) return true;
      const Stage& t = s.stages[target];
      return t.leaf_position(target_iter) <= t.leaf_position(chain_iter);
    }
    const Attach& up = s.stages[stage].attach;
    if (up.kind != AttachKind::Iter) return false;
    stage = up.target_stage;
    chain_iter = up.target_iter;
  }
}

}  // namespace

bool encloses_readers(const State& s, int producer, int target, int target_iter) {
  const std::vector<int> readers = effective_readers(s, producer);
  return !readers.empty() && std::all_of(readers.begin(), readers.end(), [&](int r) {
    return encloses_reader(s, r, target, target_iter);
  });
}

bool has_attached_stages(const State& s, int i) {
  return std::any_of(s.stages.begin(), s.stages.end(), [&](const Stage& st) {
    return st.attach.kind == AttachKind::Iter && st.attach.target_stage == i;
  });
}

namespace detail {

Stage& compute_stage(State& s, int i) {
  user_check(i >= 0 && i < static_cast<int>(s.stages.size()), "stage index ", i, " is out of range (",
             s.stages.size(), " stages)");
  Stage& stage = s.stages[i];
  user_check(!stage.op->is_placeholder(), "stage ", stage.op->name, " is a placeholder and takes no loop steps");
  return stage;
}

int leaf_id_at(const Stage& stage, int position) {
  user_check(position >= 0 && position < static_cast<int>(stage.leaves.size()), "iterator position ", position,
             " is out of range (stage ", stage.op->name, " has ", stage.leaves.size(), " loops)");
  return stage.leaves[position];
}

std::string unique_stage_name(const State& s, const std::string& base) {
  auto taken = [&](const std::string& name) {
    return std::any_of(s.stages.begin(), s.stages.end(), [&](const Stage& st) { return st.op->name == name; });
  };
  std::string name = base;
  for (int k = 1; taken(name); ++k) name = base + "_" + std::to_string(k);
  return name;
}

void insert_stage(State& s, int at, Stage stage) {
  for (auto& st : s.stages)
    if (st.attach.kind == AttachKind::Iter && st.attach.target_stage >= at) ++st.attach.target_stage;
  s.stages.insert(s.stages.begin() + at, std::move(stage));
}

void move_attachments(State& s, int stage, const std::vector<int>& from_ids, int to_id) {
  for (auto& st : s.stages) {
    if (st.attach.kind != AttachKind::Iter || st.attach.target_stage != stage) continue;
    if (std::find(from_ids.begin(), from_ids.end(), st.attach.target_iter) != from_ids.end())
      st.attach.target_iter = to_id;
  }
}

void refresh_inputs(State& s) {
  for (auto& st : s.stages) {
    if (st.op->is_placeholder()) continue;
    bool stale = false;
    std::vector<te::Tensor> current;
    for (const auto& in : st.op->inputs) {
      for (const auto& other : s.stages) {
        if (other.op->buffer.same_as(in->buffer)) {
          stale |= other.op != in;
          current.push_back(other.op);
          break;
        }
      }
    }
    internal_check(current.size() == st.op->inputs.size(), "op ", st.op->name, " reads a tensor of no stage");
    if (!stale) continue;
    auto node = std::make_shared<te::TensorNode>(*st.op);
    node->inputs = std::move(current);
    st.op = std::move(node);
  }
}

void validate_attachments(const State& s) {
  for (int i = 0; i < static_cast<int>(s.stages.size()); ++i) {
    const Attach& a = s.stages[i].attach;
    if (a.kind != AttachKind::Iter) continue;
    const std::string& name = s.stages[i].op->name;
    internal_check(a.target_stage >= 0 && a.target_stage < static_cast<int>(s.stages.size()), "stage ", name,
                   " attached to missing stage ", a.target_stage);
    const Stage& target = s.stages[a.target_stage];
    user_check(target.attach.kind != AttachKind::Inline, "stage ", name, " is attached to ", target.op->name,
               ", which is inlined");
    internal_check(target.leaf_position(a.target_iter) >= 0, "stage ", name, " attached to iterator ", a.target_iter,
                   " of ", target.op->name, ", which is not a loop");
    user_check(encloses_readers(s, i, a.target_stage, a.target_iter), "stage ", name, " is attached to ",
               target.op->name, ", but ", target.op->name,
               " neither reads it nor holds every reader of it inside the loop");
  }
}

}  // namespace detail
}  // namespace tunectl::schedule
