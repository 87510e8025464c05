#include "ops/normalization.h"

#include <functional>

#include "ir/error.h"
#include "ops/op_util.h"
#include "ops/transform.h"

namespace tunectl::ops {

using ir::Expr;

namespace {

// Softmax's three stages; the last one's value from x - max and the sum of
// exp(x - max).
te::Tensor softmax_stages(const te::Tensor& x, int64_t axis, const std::string& name,
                          const std::function<Expr(Expr shifted, Expr sum)>& normalize) {
  user_check(ir::is_float(x->dtype()), name, ": input must be float");
  const auto& s = x->shape();
  int ax = normalize_axis(axis, s.size(), name);
  std::vector<int64_t> reduced = s;
  reduced.erase(reduced.begin() + ax);
  // A rank-0 reduced shape is not a tensor; keep one unit dimension then.
  bool scalar = reduced.empty();
  if (scalar) reduced = {1};
  // Index of x at output point i with the softmax axis replaced by k.
  auto at = [&](const std::vector<ir::Var>& i, Expr k) {
    std::vector<Expr> idx;
    if (scalar) return std::vector<Expr>{k};
    for (size_t d = 0, j = 0; d < s.size(); ++d) idx.push_back(static_cast<int>(d) == ax ? k : Expr(i[j++]));
    return idx;
  };
  // i without the softmax axis: the index into the reduced stages.
  auto outer = [&](const std::vector<ir::Var>& i) {
    std::vector<Expr> idx;
    if (scalar) return std::vector<Expr>{0};
    for (size_t d = 0; d < s.size(); ++d)
      if (static_cast<int>(d) != ax) idx.push_back(i[d]);
    return idx;
  };
  ir::IterVar rm = te::reduce_axis(s[ax], "rk");
  te::Tensor mx = te::compute(
      name + "_max", reduced,
      [&](const std::vector<ir::Var>& i) { return te::max_reduce(te::read(x, at(i, rm.var)), {rm}); }, "softmax",
      x->dtype());
  ir::IterVar rs = te::reduce_axis(s[ax], "rk");
  te::Tensor sum = te::compute(
      name + "_expsum", reduced,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> o(i.begin(), i.end());
        Expr v = te::read(x, at(i, rs.var)) - te::read(mx, o);
        return te::sum(ir::make_call(ir::MathFunc::exp, {v}), {rs});
      },
      "softmax", x->dtype());
  return te::compute(
      name, s,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> o = outer(i);
        return normalize(te::read(x, {i.begin(), i.end()}) - te::read(mx, o), te::read(sum, o));
      },
      "softmax", x->dtype());
}

}  // namespace

te::Tensor softmax(const te::Tensor& x, int64_t axis, const std::string& name) {
  return softmax_stages(x, axis, name,
                        [](Expr shifted, Expr sum) { return ir::make_call(ir::MathFunc::exp, {shifted}) / sum; });
}

te::Tensor log_softmax(const te::Tensor& x, int64_t axis, const std::string& name) {
  return softmax_stages(x, axis, name,
                        [](Expr shifted, Expr sum) { return shifted - ir::make_call(ir::MathFunc::log, {sum}); });
}

te::Tensor layer_norm(const te::Tensor& x, const te::Tensor& scale, const te::Tensor& bias, int64_t axis,
                      double epsilon, const std::string& name) {
  user_check(ir::is_float(x->dtype()), name, ": input must be float");
  const auto& s = x->shape();
  size_t ax = static_cast<size_t>(normalize_axis(axis, s.size(), name));
  std::vector<int64_t> outer_shape(s.begin(), s.begin() + ax);
  std::vector<int64_t> inner_shape(s.begin() + ax, s.end());
  for (const te::Tensor& p : {scale, bias})
    user_check(!p || (p->shape() == inner_shape && p->dtype() == x->dtype()), name,
               ": scale and bias must have the normalised shape and x's type");
  // A rank-0 reduced shape is not a tensor; keep one unit dimension then.
  std::vector<int64_t> stat_shape = outer_shape.empty() ? std::vector<int64_t>{1} : outer_shape;
  auto stat_index = [&](const std::vector<ir::Var>& i) {
    if (outer_shape.empty()) return std::vector<Expr>{0};
    return std::vector<Expr>(i.begin(), i.begin() + ax);
  };
  ir::DType t = x->dtype();
  Expr inv_n = ir::make_const(t, 1.0 / static_cast<double>(product(inner_shape)));
  auto reduce_axes = [&]() {
    std::vector<ir::IterVar> r;
    for (size_t d = 0; d < inner_shape.size(); ++d) r.push_back(te::reduce_axis(inner_shape[d], "rk" + std::to_string(d)));
    return r;
  };
  auto x_at = [&](const std::vector<ir::Var>& i, const std::vector<ir::IterVar>& r) {
    std::vector<Expr> idx;
    if (!outer_shape.empty()) idx.assign(i.begin(), i.begin() + ax);
    for (const auto& a : r) idx.push_back(a.var);
    return te::read(x, idx);
  };
  std::vector<ir::IterVar> r1 = reduce_axes();
  te::Tensor mean = te::compute(
      name + "_mean", stat_shape,
      [&](const std::vector<ir::Var>& i) { return te::sum(x_at(i, r1) * inv_n, r1); }, "layer_norm", t);
  std::vector<ir::IterVar> r2 = reduce_axes();
  te::Tensor var = te::compute(
      name + "_var", stat_shape,
      [&](const std::vector<ir::Var>& i) {
        Expr d = x_at(i, r2) - te::read(mean, stat_index(i));
        return te::sum(d * d * inv_n, r2);
      },
      "layer_norm", t);
  return te::compute(
      name, s,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> st = stat_index(i);
        std::vector<Expr> inner(i.begin() + ax, i.end());
        Expr v = (te::read(x, {i.begin(), i.end()}) - te::read(mean, st)) /
                 ir::make_call(ir::MathFunc::sqrt, {te::read(var, st) + ir::make_const(t, epsilon)});
        if (scale) v = v * te::read(scale, inner);
        if (bias) v = v + te::read(bias, inner);
        return v;
      },
      "layer_norm", t);
}

te::Tensor batch_norm(const te::Tensor& x, const te::Tensor& scale, const te::Tensor& bias, const te::Tensor& mean,
                      const te::Tensor& var, double epsilon, const std::string& name) {
  user_check(ir::is_float(x->dtype()), name, ": input must be float");
  user_check(x->shape().size() >= 2, name, ": input needs rank at least 2 (N, C, ...)");
  int64_t c = x->shape()[1];
  for (const te::Tensor& p : {scale, bias, mean, var})
    user_check(p->shape() == std::vector<int64_t>{c} && p->dtype() == x->dtype(), name, ": '", p->name,
               "' must have shape [", c, "] and x's type");
  ir::DType t = x->dtype();
  return te::compute(
      name, x->shape(),
      [&](const std::vector<ir::Var>& i) {
        Expr ch = i[1];
        Expr inv = ir::make_call(ir::MathFunc::sqrt, {te::read(var, {ch}) + ir::make_const(t, epsilon)});
        return (te::read(x, {i.begin(), i.end()}) - te::read(mean, {ch})) / inv * te::read(scale, {ch}) +
               te::read(bias, {ch});
      },
      "elemwise", t);
}

te::Tensor lrn(const te::Tensor& x, int64_t size, double alpha, double beta, double bias, const std::string& name) {
  user_check(ir::is_float(x->dtype()), name, ": input must be float");
  const auto& s = x->shape();
  user_check(s.size() >= 3, name, ": input needs rank at least 3 (N, C, ...)");
  user_check(size >= 1, name, ": size must be positive, got ", size);
  std::vector<int64_t> before(s.size(), 0), after(s.size(), 0);
  before[1] = (size - 1) / 2;
  after[1] = size - 1 - before[1];
  te::Tensor padded = before[1] || after[1] ? pad(x, before, after, 0.0, name + "_pad") : x;
  ir::DType t = x->dtype();
  ir::IterVar rc = te::reduce_axis(size, "rc");
  te::Tensor sq = te::compute(
      name + "_sqsum", s,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> idx(i.begin(), i.end());
        idx[1] = i[1] + rc.var;
        Expr v = te::read(padded, idx);
        return te::sum(v * v, {rc});
      },
      "lrn", t);
  return te::compute(
      name, s,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> idx(i.begin(), i.end());
        Expr d = ir::make_const(t, bias) + ir::make_const(t, alpha / static_cast<double>(size)) * te::read(sq, idx);
        return te::read(x, idx) / ir::make_call(ir::MathFunc::pow, {d, ir::make_const(t, beta)});
      },
      "elemwise", t);
}

}  // namespace tunectl::ops
