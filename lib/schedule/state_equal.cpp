// states_equal: structural equality of two States. Ops built by separate
// replays have distinct variable and buffer objects, so ops are compared by
// structure: variables by the position that binds them, buffers by name,
// type, shape and scope.
#include <unordered_map>

#include "schedule/state.h"

namespace tunectl::schedule {

namespace {

class OpMatcher {
 public:
  bool ops(const te::Tensor& a, const te::Tensor& b) {
    if (a->name != b->name || a->op_kind != b->op_kind || a->tag != b->tag || !buffers(a->buffer, b->buffer))
      return false;
    if (a->axes.size() != b->axes.size() || a->inputs.size() != b->inputs.size()) return false;
    for (size_t k = 0; k < a->axes.size(); ++k)
      if (!bind(a->axes[k], b->axes[k])) return false;
    for (size_t k = 0; k < a->inputs.size(); ++k)
      if (!buffers(a->inputs[k]->buffer, b->inputs[k]->buffer)) return false;
    return exprs(a->body, b->body);
  }

 private:
  static bool buffers(const ir::Buffer& a, const ir::Buffer& b) {
    return a->name == b->name && a->dtype == b->dtype && a->shape == b->shape && a->scope == b->scope;
  }

  bool bind(const ir::IterVar& a, const ir::IterVar& b) {
    if (a.extent != b.extent || a.kind != b.kind) return false;
    vars_[a.var.get()] = b.var.get();
    return true;
  }

  template <typename T>
  static const T* cast(const ir::Expr& e) {
    return static_cast<const T*>(e.get());
  }

  bool expr_lists(const std::vector<ir::Expr>& a, const std::vector<ir::Expr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t k = 0; k < a.size(); ++k)
      if (!exprs(a[k], b[k])) return false;
    return true;
  }

  bool exprs(const ir::Expr& a, const ir::Expr& b) {
    if (!a || !b) return !a && !b;
    if (a.kind() != b.kind() || a.dtype() != b.dtype()) return false;
    switch (a.kind()) {
      case ir::ExprKind::IntImm:
        return cast<ir::IntImmNode>(a)->value == cast<ir::IntImmNode>(b)->value;
      case ir::ExprKind::FloatImm:
        return cast<ir::FloatImmNode>(a)->value == cast<ir::FloatImmNode>(b)->value;
      case ir::ExprKind::Var: {
        auto it = vars_.find(a.get());
        return it != vars_.end() ? it->second == b.get() : a.same_as(b);
      }
#define TUNECTL_BINARY_EQ(name)                                              \
  case ir::ExprKind::name: {                                                 \
    const auto *x = cast<ir::name##Node>(a), *y = cast<ir::name##Node>(b);   \
    return exprs(x->a, y->a) && exprs(x->b, y->b);                           \
  }
        TUNECTL_BINARY_NODES(TUNECTL_BINARY_EQ)
#undef TUNECTL_BINARY_EQ
      case ir::ExprKind::Not:
        return exprs(cast<ir::NotNode>(a)->a, cast<ir::NotNode>(b)->a);
      case ir::ExprKind::Select: {
        const auto *x = cast<ir::SelectNode>(a), *y = cast<ir::SelectNode>(b);
        return exprs(x->cond, y->cond) && exprs(x->true_value, y->true_value) &&
               exprs(x->false_value, y->false_value);
      }
      case ir::ExprKind::Cast:
        return exprs(cast<ir::CastNode>(a)->value, cast<ir::CastNode>(b)->value);
      case ir::ExprKind::Call: {
        const auto *x = cast<ir::CallNode>(a), *y = cast<ir::CallNode>(b);
        return x->func == y->func && expr_lists(x->args, y->args);
      }
      case ir::ExprKind::Load: {
        const auto *x = cast<ir::LoadNode>(a), *y = cast<ir::LoadNode>(b);
        return buffers(x->buffer, y->buffer) && expr_lists(x->indices, y->indices);
      }
      case ir::ExprKind::Reduce: {
        const auto *x = cast<ir::ReduceNode>(a), *y = cast<ir::ReduceNode>(b);
        if (x->combiner != y->combiner || x->axes.size() != y->axes.size()) return false;
        for (size_t k = 0; k < x->axes.size(); ++k)
          if (!bind(x->axes[k], y->axes[k])) return false;
        return exprs(x->source, y->source);
      }
    }
    return false;
  }

  std::unordered_map<const void*, const void*> vars_;
};

bool iterators_equal(const Iterator& a, const Iterator& b) {
  return a.id == b.id && a.name == b.name && a.extent == b.extent && a.kind == b.kind && a.annotation == b.annotation;
}

bool relations_equal(const IterRelation& a, const IterRelation& b) {
  if (a.index() != b.index()) return false;
  if (const auto* x = std::get_if<SplitRelation>(&a)) {
    const auto& y = std::get<SplitRelation>(b);
    return x->parent == y.parent && x->children == y.children;
  }
  const auto& x = std::get<FuseRelation>(a);
  const auto& y = std::get<FuseRelation>(b);
  return x.parents == y.parents && x.child == y.child;
}

bool stages_equal(const Stage& a, const Stage& b) {
  if (!OpMatcher().ops(a.op, b.op)) return false;
  if (a.leaves != b.leaves || a.iters.size() != b.iters.size() || a.relations.size() != b.relations.size())
    return false;
  for (size_t k = 0; k < a.iters.size(); ++k)
    if (!iterators_equal(a.iters[k], b.iters[k])) return false;
  for (size_t k = 0; k < a.relations.size(); ++k)
    if (!relations_equal(a.relations[k], b.relations[k])) return false;
  return a.attach.kind == b.attach.kind && a.attach.target_stage == b.attach.target_stage &&
         a.attach.target_iter == b.attach.target_iter && a.auto_unroll_max_step == b.auto_unroll_max_step &&
         a.double_buffer == b.double_buffer && a.prepacked == b.prepacked && a.storage_order == b.storage_order;
}

}  // namespace

bool states_equal(const State& a, const State& b) {
  if (a.history != b.history || a.stages.size() != b.stages.size()) return false;
  for (size_t k = 0; k < a.stages.size(); ++k)
    if (!stages_equal(a.stages[k], b.stages[k])) return false;
  return a.to_string() == b.to_string();
}

}  // namespace tunectl::schedule
