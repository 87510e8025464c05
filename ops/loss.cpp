#include "ops/loss.h"

#include <functional>
#include <tuple>

#include "ir/error.h"

namespace tunectl::ops {

using ir::Expr;

te::Tensor nll_loss(const te::Tensor& input, const te::Tensor& target, const te::Tensor& weight,
                    LossReduction reduction, std::optional<int64_t> ignore_index, const std::string& name) {
  const auto& s = input->shape();
  const auto& ts = target->shape();
  user_check(s.size() >= 2, name, ": input must be [N, C, ...], it has rank ", s.size());
  user_check(ir::is_int(target->dtype()), name, ": target must be integers, it is ", ir::to_string(target->dtype()));
  std::vector<int64_t> want = s;
  want.erase(want.begin() + 1);
  user_check(ts == want, name, ": target must have the input's shape without its class axis");
  const int64_t classes = s[1];
  user_check(!weight || weight->shape() == std::vector<int64_t>{classes}, name, ": weight must have ", classes,
             " values, one per class");
  const ir::DType t = input->dtype();
  // Per sample position p: whether its target counts, the class, the weight.
  auto counted = [&](const std::vector<Expr>& p) {
    Expr k = te::read(target, p);
    Expr use = ignore_index ? ir::make_ne(k, ir::make_int(*ignore_index, target->dtype())) : ir::make_bool(true);
    Expr cls = ir::make_min(ir::make_max(ir::make_cast(ir::kIndexType, k), 0), classes - 1);
    Expr w = weight ? te::read(weight, {cls}) : ir::make_const(t, 1);
    return std::tuple{use, cls, w};
  };
  auto loss_at = [&](const std::vector<Expr>& p) {
    auto [use, cls, w] = counted(p);
    std::vector<Expr> at{p[0], cls};
    at.insert(at.end(), p.begin() + 1, p.end());
    return ir::make_select(use, -te::read(input, at) * w, ir::make_zero(t));
  };
  if (reduction == LossReduction::None)
    return te::compute(
        name, ts, [&](const std::vector<ir::Var>& i) { return loss_at({i.begin(), i.end()}); }, "injective", t);
  // One reduction over every sample position.
  auto over_samples = [&](const std::string& stage, const std::function<Expr(const std::vector<Expr>&)>& f) {
    return te::compute(
        stage, {1},
        [&](const std::vector<ir::Var>&) {
          std::vector<ir::IterVar> axes;
          std::vector<Expr> p;
          for (size_t d = 0; d < ts.size(); ++d) {
            axes.push_back(te::reduce_axis(ts[d], "rs" + std::to_string(d)));
            p.push_back(axes.back().var);
          }
          return ir::make_reduce(ir::ReduceOp::Sum, f(p), axes);
        },
        "reduce", t);
  };
  if (reduction == LossReduction::Sum) return over_samples(name, loss_at);
  te::Tensor total = over_samples(name + "_sum", loss_at);
  te::Tensor weights = over_samples(name + "_weights", [&](const std::vector<Expr>& p) {
    auto [use, cls, w] = counted(p);
    return ir::make_select(use, w, ir::make_zero(t));
  });
  return te::compute(
      name, {1}, [&](const std::vector<ir::Var>&) { return te::read(total, {0}) / te::read(weights, {0}); }, "elemwise",
      t);
}

}  // namespace tunectl::ops
