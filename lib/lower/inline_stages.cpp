#include "lower/inline_stages.h"

#include <unordered_map>

#include "ir/error.h"
#include "ir/functor.h"
#include "ir/substitute.h"

namespace tunectl::lower {

namespace {

using namespace ir;

class Inliner : public IRMutator {
 public:
  Inliner(const schedule::State& state, const std::vector<StageInfo>& stages) : state_(state), stages_(stages) {}

  void add(int stage) { inlined_[state_.stages[stage].op->buffer.get()] = stage; }

 protected:
  Expr mutate_Load(const Expr& e, const LoadNode* op) override {
    Expr loaded = IRMutator::mutate_Load(e, op);
    auto it = inlined_.find(op->buffer.get());
    if (it == inlined_.end()) return loaded;
    const auto* load = loaded.as<LoadNode>();
    const StageInfo& producer = stages_[it->second];
    VarMap<Expr> map;
    for (size_t k = 0; k < load->indices.size(); ++k) map[producer.root_vars[k]] = load->indices[k];
    return substitute(producer.body, map);
  }

 private:
  const schedule::State& state_;
  const std::vector<StageInfo>& stages_;
  std::unordered_map<const BufferNode*, int> inlined_;
};

}  // namespace

void inline_stages(const schedule::State& state, std::vector<StageInfo>& stages) {
  Inliner inliner(state, stages);
  // Producers come before their readers in stage order, so an inlined
  // producer's body is final by the time a reader substitutes it.
  for (size_t s = 0; s < state.stages.size(); ++s) {
    const schedule::Stage& stage = state.stages[s];
    if (stage.op->is_placeholder()) continue;
    stages[s].body = inliner.mutate(stage.op->body);
    if (stage.attach.kind == schedule::AttachKind::Inline) {
      user_check(stage.op->reduce() == nullptr, "cannot inline ", stage.op->name, ": it is a reduction");
      inliner.add(static_cast<int>(s));
    }
  }
}

}  // namespace tunectl::lower
