// Rfactor: turn one reduce loop of a reduction into a spatial axis of a new
// stage of partial results, so that it can be parallelized or vectorized.
//
// For a stage X with spatial axes (a_0..a_{n-1}) of shape S and reduce leaf
// loops l_0..l_{m-1} (after its splits and fuses), rfactor on leaf f at
// factor_iter p gives:
//   X.rf[a_0..a_{p-1}, v, a_p..a_{n-1}]   shape S with extent(f) inserted at p
//       = reduce over the other reduce leaves (in loop order) of X's source,
//         each original reduce axis expressed from the leaves through the
//         split/fuse relations, guarded with a select to the combiner's
//         identity where a split does not divide; no reduce at all when f is
//         the only reduce leaf.
//   X[a...] = reduce over v of X.rf[a_0..a_{p-1}, v, a_p..]   (same combiner,
//         X's own buffer, shape S)
// X.rf (X.rf_1, ... when taken) is inserted before X; both get fresh loops.
#include <map>

#include "ir/error.h"
#include "ir/substitute.h"
#include "schedule/op_rewrite.h"
#include "schedule/step_apply.h"

namespace tunectl::schedule::detail {

namespace {

// Values of every iterator derivable from the leaf values, walking the
// relations backwards; `guard` collects conditions that hold exactly when no
// non-dividing split overshoots its parent.
std::map<int, ir::Expr> derive_iter_values(const Stage& stage, std::map<int, ir::Expr> values,
                                           std::vector<ir::Expr>& guard) {
  for (auto rel = stage.relations.rbegin(); rel != stage.relations.rend(); ++rel) {
    if (const auto* sp = std::get_if<SplitRelation>(&*rel)) {
      bool known = true;
      for (int c : sp->children) known &= values.count(c) > 0;
      if (!known) continue;
      ir::Expr v = values.at(sp->children[0]);
      int64_t covered = stage.iters[sp->children[0]].extent;
      for (size_t k = 1; k < sp->children.size(); ++k) {
        int64_t e = stage.iters[sp->children[k]].extent;
        v = v * ir::Expr(e) + values.at(sp->children[k]);
        covered *= e;
      }
      int64_t parent_extent = stage.iters[sp->parent].extent;
      if (covered > parent_extent) guard.push_back(ir::make_lt(v, ir::Expr(parent_extent)));
      values[sp->parent] = v;
    } else {
      const auto& fu = std::get<FuseRelation>(*rel);
      auto it = values.find(fu.child);
      if (it == values.end()) continue;
      int64_t inner = 1;
      for (size_t k = fu.parents.size(); k-- > 0;) {
        int64_t e = stage.iters[fu.parents[k]].extent;
        ir::Expr v = inner == 1 ? it->second : it->second / ir::Expr(inner);
        values[fu.parents[k]] = k == 0 ? v : v % ir::Expr(e);
        inner *= e;
      }
    }
  }
  return values;
}

}  // namespace

void apply_rfactor(State& s, const RfactorStep& step) {
  Stage& stage = compute_stage(s, step.stage);
  const te::Tensor op = stage.op;
  const ir::ReduceNode* red = op->reduce();
  user_check(red != nullptr, "cannot rfactor ", op->name, ": it is not a reduction");
  int factor_id = leaf_id_at(stage, step.iter);
  const Iterator& factor = stage.iters[factor_id];
  user_check(factor.kind == ir::IterKind::Reduce, "cannot rfactor ", op->name, " on ", factor.name,
             ": it is not a reduce iterator");
  int n_spatial = static_cast<int>(op->axes.size());
  user_check(step.factor_iter >= 0 && step.factor_iter <= n_spatial, "rfactor factor_iter ", step.factor_iter,
             " is out of range [0, ", n_spatial, "]");
  user_check(!has_attached_stages(s, step.stage), "cannot rfactor ", op->name,
             ": other stages are attached to its loops");

  // The partial-result op: original spatial axes with the factored loop
  // inserted, reducing over the remaining reduce leaves.
  VarMap map;
  std::vector<ir::IterVar> rf_axes;
  for (const auto& a : op->axes) {
    ir::Var v(a.var.name());
    map.emplace(a.var, v);
    rf_axes.push_back({v, a.extent, ir::IterKind::Spatial});
  }
  ir::Var factor_var(factor.name);
  rf_axes.insert(rf_axes.begin() + step.factor_iter, ir::IterVar{factor_var, factor.extent, ir::IterKind::Spatial});
  std::map<int, ir::Expr> leaf_values{{factor_id, factor_var}};
  std::vector<ir::IterVar> rf_reduce_axes;
  for (int id : stage.leaves) {
    const Iterator& it = stage.iters[id];
    if (it.kind != ir::IterKind::Reduce || id == factor_id) continue;
    ir::Var v(it.name);
    leaf_values.emplace(id, v);
    rf_reduce_axes.push_back({v, it.extent, ir::IterKind::Reduce});
  }
  std::vector<ir::Expr> guard;
  std::map<int, ir::Expr> values = derive_iter_values(stage, std::move(leaf_values), guard);
  for (size_t r = 0; r < red->axes.size(); ++r) {
    auto it = values.find(n_spatial + static_cast<int>(r));
    internal_check(it != values.end(), "reduce axis ", red->axes[r].var.name(), " of ", op->name,
                   " is not derived from reduce leaves");
    map.emplace(red->axes[r].var, it->second);
  }
  ir::Expr source = ir::substitute(red->source, map);
  if (!guard.empty()) {
    ir::Expr cond = guard[0];
    for (size_t k = 1; k < guard.size(); ++k) cond = ir::make_and(cond, guard[k]);
    source = ir::make_select(cond, source, ir::reduce_identity(red->combiner, source.dtype()));
  }
  ir::Expr rf_body = rf_reduce_axes.empty() ? source : ir::make_reduce(red->combiner, source, rf_reduce_axes);
  std::string rf_name = unique_stage_name(s, op->name + ".rf");
  std::vector<int64_t> rf_shape;
  for (const auto& a : rf_axes) rf_shape.push_back(a.extent);
  ir::Buffer rf_buffer(rf_name, op->dtype(), rf_shape, ir::MemScope::Global);
  te::Tensor rf_op = make_compute_op(rf_name, rf_buffer, rf_axes, rf_body, op->inputs, op->tag);

  // The original op now reduces the partial results over the factored axis.
  std::vector<ir::IterVar> axes;
  std::vector<ir::Expr> indices;
  for (const auto& a : op->axes) {
    ir::Var v(a.var.name());
    axes.push_back({v, a.extent, ir::IterKind::Spatial});
    indices.push_back(v);
  }
  ir::Var v(factor.name + ".v");
  indices.insert(indices.begin() + step.factor_iter, v);
  ir::Expr body = ir::make_reduce(red->combiner, ir::make_load(rf_buffer, indices),
                                  {ir::IterVar{v, factor.extent, ir::IterKind::Reduce}});
  te::Tensor new_op = make_compute_op(op->name, op->buffer, axes, body, {rf_op}, op->tag);

  Attach attach = stage.attach;
  s.stages[step.stage] = make_stage(new_op);
  s.stages[step.stage].attach = attach;
  insert_stage(s, step.stage, make_stage(rf_op));
  refresh_inputs(s);
}

}  // namespace tunectl::schedule::detail
