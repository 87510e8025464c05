#include "codegen/cuda/vector_access.h"

#include "ir/functor.h"
#include "ir/linear_sum.h"
#include "ir/structural.h"

namespace tunectl::codegen::cuda {

namespace {

using namespace ir;

bool uses_var(const Expr& e, const Var& v) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) { found = found || x.get() == v.get(); });
  return found;
}

// index == base + v with base n-aligned and free of v.
bool is_aligned_lane_index(const Expr& index, const Var& v, int n) {
  LinearSum sum = LinearSum::from_expr(index);
  sum.normalize();
  LinearSum base(sum.constant());
  bool lane_term = false;
  for (const LinearTerm& t : sum.terms()) {
    if (t.term.get() == v.get()) {
      if (t.coeff != 1 || lane_term) return false;
      lane_term = true;
    } else {
      if (uses_var(t.term, v)) return false;
      base.add_term(t.term, t.coeff);
    }
  }
  return lane_term && base.content() % n == 0;
}

}  // namespace

std::optional<VectorPlan> plan_vector_access(const ForNode* loop, const std::function<bool(const Buffer&)>& aligned) {
  auto vector_memory = [&](const Buffer& b) { return b->dtype == DType::Float32 && aligned(b); };
  const auto* extent = loop->extent.as<IntImmNode>();
  const auto* min = loop->min.as<IntImmNode>();
  const auto* store = loop->body.as<StoreNode>();
  if (!extent || !min || min->value != 0 || (extent->value != 2 && extent->value != 4) || !store) return std::nullopt;
  const int n = static_cast<int>(extent->value);
  VectorPlan plan{n, store, vector_memory(store->buffer) && is_aligned_lane_index(store->indices.at(0), loop->var, n), {}};
  bool fits = true;
  post_order_visit(store->value, [&](const Expr& e) {
    const auto* load = e.as<LoadNode>();
    if (!load) return;
    if (load->buffer.same_as(store->buffer) && !structural_equal(load->indices.at(0), store->indices.at(0))) fits = false;
    if (vector_memory(load->buffer) && is_aligned_lane_index(load->indices.at(0), loop->var, n)) {
      for (const LoadNode* seen : plan.loads)
        if (seen == load) return;
      plan.loads.push_back(load);
    }
  });
  if (!fits || (!plan.vector_store && plan.loads.empty())) return std::nullopt;
  return plan;
}

}  // namespace tunectl::codegen::cuda
