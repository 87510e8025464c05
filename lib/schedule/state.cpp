#include "schedule/state.h"

#include <optional>

#include <nlohmann/json.hpp>

#include "ir/error.h"
#include "schedule/step_apply.h"

namespace tunectl::schedule {

const char* to_string(IterAnnotation a) {
  switch (a) {
#define TUNECTL_ANN_CASE(name, text) \
  case IterAnnotation::name:         \
    return text;
    TUNECTL_ITER_ANNOTATIONS(TUNECTL_ANN_CASE)
#undef TUNECTL_ANN_CASE
  }
  internal_fail("bad iterator annotation");
}

IterAnnotation iter_annotation_from_string(const std::string& s) {
#define TUNECTL_ANN_PARSE(name, text) \
  if (s == text) return IterAnnotation::name;
  TUNECTL_ITER_ANNOTATIONS(TUNECTL_ANN_PARSE)
#undef TUNECTL_ANN_PARSE
  user_fail("unknown annotation '", s, "'");
}

int Stage::num_root_iters() const {
  if (op->is_placeholder()) return 0;
  const auto* red = op->reduce();
  return static_cast<int>(op->axes.size() + (red ? red->axes.size() : 0));
}

int Stage::leaf_position(int iter_id) const {
  for (size_t p = 0; p < leaves.size(); ++p)
    if (leaves[p] == iter_id) return static_cast<int>(p);
  return -1;
}

Stage make_stage(const te::Tensor& op) {
  Stage stage;
  stage.op = op;
  if (op->is_placeholder()) return stage;
  auto add = [&](const ir::IterVar& a) {
    int id = static_cast<int>(stage.iters.size());
    stage.iters.push_back({id, a.var.name(), a.extent, a.kind, IterAnnotation::None});
    stage.leaves.push_back(id);
  };
  for (const auto& a : op->axes) add(a);
  if (const auto* red = op->reduce())
    for (const auto& a : red->axes) add(a);
  return stage;
}

State State::initial(std::shared_ptr<const te::ComputeDAG> dag) {
  internal_check(dag != nullptr, "initial state of a null DAG");
  State s;
  for (const auto& op : dag->ops()) s.stages.push_back(make_stage(op));
  s.dag = std::move(dag);
  return s;
}

namespace {

void dispatch(State& s, const Step& step) {
  std::visit(
      [&](const auto& st) {
        using T = std::decay_t<decltype(st)>;
        if constexpr (std::is_same_v<T, SplitStep>) detail::apply_split(s, st);
        else if constexpr (std::is_same_v<T, FollowSplitStep>) detail::apply_follow_split(s, st);
        else if constexpr (std::is_same_v<T, FollowFusedSplitStep>) detail::apply_follow_fused_split(s, st);
        else if constexpr (std::is_same_v<T, ReorderStep>) detail::apply_reorder(s, st);
        else if constexpr (std::is_same_v<T, FuseStep>) detail::apply_fuse(s, st);
        else if constexpr (std::is_same_v<T, AnnotationStep>) detail::apply_annotation(s, st);
        else if constexpr (std::is_same_v<T, ComputeAtStep>) detail::apply_compute_at(s, st);
        else if constexpr (std::is_same_v<T, ComputeInlineStep>) detail::apply_compute_inline(s, st);
        else if constexpr (std::is_same_v<T, ComputeRootStep>) detail::apply_compute_root(s, st);
        else if constexpr (std::is_same_v<T, CacheReadStep>) detail::apply_cache_read(s, st);
        else if constexpr (std::is_same_v<T, CacheWriteStep>) detail::apply_cache_write(s, st);
        else if constexpr (std::is_same_v<T, RfactorStep>) detail::apply_rfactor(s, st);
        else if constexpr (std::is_same_v<T, PragmaStep>) detail::apply_pragma(s, st);
        else if constexpr (std::is_same_v<T, PrepackStep>) detail::apply_prepack(s, st);
        else if constexpr (std::is_same_v<T, StorageOrderStep>) detail::apply_storage_order(s, st);
        else static_assert(sizeof(T) == 0, "step kind without apply");
      },
      step);
}

}  // namespace

void State::apply(const Step& step) {
  int stage = std::visit([](const auto& st) { return st.stage; }, step);
  const bool in_range = stage >= 0 && stage < static_cast<int>(stages.size());
  // A rejected step must leave the state as it was (the random generator
  // and the search rely on that). Steps edit in place, so keep only what
  // this one may change: steps that insert stages may touch every stage;
  // the others change their own stage and where other stages are attached.
  const bool inserts_stages = std::holds_alternative<CacheReadStep>(step) ||
                              std::holds_alternative<CacheWriteStep>(step) || std::holds_alternative<RfactorStep>(step);
  std::vector<Stage> saved_stages;
  std::optional<Stage> saved_stage;
  std::vector<Attach> saved_attaches;
  if (in_range && inserts_stages) {
    saved_stages = stages;
  } else if (in_range) {
    saved_stage = stages[stage];
    for (const Stage& s : stages) saved_attaches.push_back(s.attach);
  }
  try {
    if (!in_range) user_fail("stage index ", stage, " is out of range (", stages.size(), " stages)");
    dispatch(*this, step);
    detail::validate_attachments(*this);
  } catch (const UserError& e) {
    if (inserts_stages) {
      stages = std::move(saved_stages);
    } else if (saved_stage) {
      internal_check(stages.size() == saved_attaches.size(), "step ", step_to_json(step).dump(),
                     " changed the number of stages");
      stages[stage] = std::move(*saved_stage);
      for (size_t i = 0; i < stages.size(); ++i) stages[i].attach = saved_attaches[i];
    }
    std::string where = in_range ? " on stage " + std::to_string(stage) + " (" + stages[stage].op->name + ")" : "";
    user_fail("schedule step ", step_to_json(step).dump(), where, ": ", e.what());
  }
  history.push_back(step);
}

State replay(std::shared_ptr<const te::ComputeDAG> dag, const std::vector<Step>& steps) {
  State s = State::initial(std::move(dag));
  for (const auto& step : steps) s.apply(step);
  return s;
}

// The one place where a step that does not fit turns from the UserError that
// validation raises into a return value.
std::optional<std::string> State::try_apply(const Step& step) {
  try {
    apply(step);
    return std::nullopt;
  } catch (const UserError& e) {
    return e.what();
  }
}

std::optional<State> try_replay(std::shared_ptr<const te::ComputeDAG> dag, const std::vector<Step>& steps) {
  State s = State::initial(std::move(dag));
  for (const auto& step : steps)
    if (s.try_apply(step)) return std::nullopt;
  return s;
}

std::optional<State> try_edit(const State& s, const std::function<void(State&)>& edit) {
  State next = s;
  try {
    edit(next);
  } catch (const UserError&) {
    return std::nullopt;
  }
  return next;
}

}  // namespace tunectl::schedule
