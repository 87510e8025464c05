#include "ops/reduce.h"

#include <functional>

#include "ir/error.h"
#include "ops/elemwise.h"
#include "ops/op_util.h"
#include "ops/transform.h"

namespace tunectl::ops {

namespace {

using ir::Expr;

// `op` over f(x) of the reduced axes.
te::Tensor reduce(const te::Tensor& x, const std::vector<int64_t>& axes_in, bool keepdims, ir::ReduceOp op,
                  const std::function<Expr(Expr, int64_t count)>& f, const std::string& name) {
  const auto& s = x->shape();
  std::vector<bool> reduced(s.size(), axes_in.empty());
  for (int64_t a : axes_in) {
    int ax = normalize_axis(a, s.size(), name);
    user_check(!reduced[ax], name, ": axis ", a, " listed twice");
    reduced[ax] = true;
  }
  std::vector<int64_t> shape;
  std::vector<ir::IterVar> raxes;
  int64_t count = 1;
  for (size_t d = 0; d < s.size(); ++d) {
    if (reduced[d]) {
      raxes.push_back(te::reduce_axis(s[d], "rk" + std::to_string(raxes.size())));
      count *= s[d];
      if (keepdims) shape.push_back(1);
    } else {
      shape.push_back(s[d]);
    }
  }
  bool scalar = shape.empty();
  if (scalar) shape = {1};
  return te::compute(
      name, shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> idx;
        size_t j = 0, r = 0;
        for (size_t d = 0; d < s.size(); ++d) {
          if (reduced[d]) {
            idx.push_back(raxes[r++].var);
            if (keepdims) ++j;
          } else {
            idx.push_back(i[j++]);
          }
        }
        return ir::make_reduce(op, f(te::read(x, idx), count), raxes);
      },
      "reduce", x->dtype());
}

Expr identity(Expr v, int64_t) { return v; }

void check_float(const te::Tensor& x, const std::string& name) {
  user_check(ir::is_float(x->dtype()), name, ": input must be float");
}

}  // namespace

te::Tensor reduce_sum(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims, const std::string& name) {
  return reduce(x, axes, keepdims, ir::ReduceOp::Sum, identity, name);
}

te::Tensor reduce_mean(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims,
                       const std::string& name) {
  check_float(x, name);
  return reduce(
      x, axes, keepdims, ir::ReduceOp::Sum,
      [](Expr v, int64_t count) { return v * ir::make_const(v.dtype(), 1.0 / static_cast<double>(count)); }, name);
}

te::Tensor reduce_max(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims, const std::string& name) {
  return reduce(x, axes, keepdims, ir::ReduceOp::Max, identity, name);
}

te::Tensor reduce_min(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims, const std::string& name) {
  return reduce(x, axes, keepdims, ir::ReduceOp::Min, identity, name);
}

te::Tensor reduce_prod(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims, const std::string& name) {
  return reduce(x, axes, keepdims, ir::ReduceOp::Prod, identity, name);
}

te::Tensor reduce_l1(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims, const std::string& name) {
  return reduce(
      x, axes, keepdims, ir::ReduceOp::Sum, [](Expr v, int64_t) { return ir::make_call(ir::MathFunc::abs, {v}); },
      name);
}

te::Tensor reduce_sum_square(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims,
                             const std::string& name) {
  return reduce(x, axes, keepdims, ir::ReduceOp::Sum, [](Expr v, int64_t) { return v * v; }, name);
}

te::Tensor reduce_l2(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims, const std::string& name) {
  check_float(x, name);
  return sqrt(reduce_sum_square(x, axes, keepdims, name + "_sum_square"), name);
}

te::Tensor reduce_log_sum(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims,
                          const std::string& name) {
  check_float(x, name);
  return log(reduce_sum(x, axes, keepdims, name + "_sum"), name);
}

te::Tensor arg_extreme(const te::Tensor& x, int64_t axis, bool keepdims, bool max, bool select_last,
                       const std::string& name) {
  const auto& s = x->shape();
  const int ax = normalize_axis(axis, s.size(), name);
  te::Tensor extreme = max ? reduce_max(x, {axis}, true, name + "_max") : reduce_min(x, {axis}, true, name + "_min");
  std::vector<int64_t> shape;
  for (size_t d = 0; d < s.size(); ++d) {
    if (static_cast<int>(d) != ax) shape.push_back(s[d]);
    else if (keepdims) shape.push_back(1);
  }
  const bool scalar = shape.empty();
  if (scalar) shape = {1};
  const ir::DType index = ir::DType::Int64;
  return te::compute(
      name, shape,
      [&](const std::vector<ir::Var>& i) {
        ir::IterVar k = te::reduce_axis(s[ax], "rk");
        std::vector<Expr> at_k, at_extreme;
        for (size_t d = 0, j = 0; d < s.size(); ++d) {
          if (static_cast<int>(d) == ax) {
            at_k.push_back(k.var);
            at_extreme.push_back(0);
            if (keepdims) ++j;
          } else {
            at_k.push_back(i[j]);
            at_extreme.push_back(i[j++]);
          }
        }
        Expr is_extreme = ir::make_eq(te::read(x, at_k), te::read(extreme, at_extreme));
        Expr position = ir::make_cast(index, k.var);
        Expr none = ir::make_const(index, select_last ? -1.0 : static_cast<double>(s[ax]));
        return ir::make_reduce(select_last ? ir::ReduceOp::Max : ir::ReduceOp::Min,
                               ir::make_select(is_extreme, position, none), {k});
      },
      "reduce", index);
}

TopK top_k(const te::Tensor& x, int64_t k, int64_t axis, bool largest, const std::string& name,
          const std::string& indices_name) {
  const auto& s = x->shape();
  const size_t ax = static_cast<size_t>(normalize_axis(axis, s.size(), name));
  const int64_t n = s[ax];
  user_check(k >= 0 && k <= n, name, ": k = ", k, " for an axis of ", n, " elements");
  const ir::DType index = ir::DType::Int64;
  // rank[e]: how many elements come before e (better, or equal at a lower index).
  te::Tensor rank = te::compute(
      name + "_rank", s,
      [&](const std::vector<ir::Var>& i) {
        ir::IterVar f = te::reduce_axis(n, "rf");
        std::vector<Expr> at_f(i.begin(), i.end());
        at_f[ax] = f.var;
        Expr other = te::read(x, at_f), mine = te::read(x, {i.begin(), i.end()});
        Expr before = ir::make_or(largest ? other > mine : other < mine,
                                  ir::make_and(ir::make_eq(other, mine), Expr(f.var) < Expr(i[ax])));
        return ir::make_reduce(ir::ReduceOp::Sum, ir::make_cast(index, before), {f});
      },
      "reduce", index);
  std::vector<int64_t> shape = s;
  shape[ax] = k;
  // Output r picks, over the axis, what `of` gives for the one element of
  // rank r (combined with op, whose identity the others give). Both outputs
  // pick alike: an output reading the other could not be scheduled as an
  // output of its own.
  auto pick = [&](const std::string& stage, ir::DType t, ir::ReduceOp op,
                  const std::function<Expr(const std::vector<Expr>&, const ir::IterVar&)>& of) {
    return te::compute(
        stage, shape,
        [&](const std::vector<ir::Var>& i) {
          ir::IterVar e = te::reduce_axis(n, "re");
          std::vector<Expr> at_e(i.begin(), i.end());
          at_e[ax] = e.var;
          Expr placed = ir::make_eq(te::read(rank, at_e), Expr(i[ax]));
          return ir::make_reduce(op, ir::make_select(placed, of(at_e, e), ir::reduce_identity(op, t)), {e});
        },
        "reduce", t);
  };
  te::Tensor indices = pick(indices_name, index, ir::ReduceOp::Min,
                            [](const std::vector<Expr>&, const ir::IterVar& e) { return Expr(e.var); });
  te::Tensor values = pick(name, x->dtype(), ir::ReduceOp::Max,
                           [&](const std::vector<Expr>& at, const ir::IterVar&) { return te::read(x, at); });
  return {values, indices};
}

te::Tensor cumsum(const te::Tensor& x, int64_t axis, bool exclusive, bool reverse, const std::string& name) {
  const auto& s = x->shape();
  const int ax = normalize_axis(axis, s.size(), name);
  return te::compute(
      name, s,
      [&](const std::vector<ir::Var>& i) {
        ir::IterVar k = te::reduce_axis(s[ax], "rk");
        std::vector<Expr> at(i.begin(), i.end());
        at[ax] = k.var;
        Expr here = i[ax], there = k.var;
        Expr in_range = reverse ? (exclusive ? there > here : there >= here) : (exclusive ? there < here : there <= here);
        return ir::make_reduce(ir::ReduceOp::Sum, ir::make_select(in_range, te::read(x, at), ir::make_zero(x->dtype())),
                               {k});
      },
      "reduce", x->dtype());
}

te::Tensor hardmax(const te::Tensor& x, int64_t axis, const std::string& name) {
  const int ax = normalize_axis(axis, x->shape().size(), name);
  te::Tensor first = arg_extreme(x, axis, true, true, false, name + "_argmax");
  return te::compute(
      name, x->shape(),
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> at(i.begin(), i.end());
        at[ax] = 0;
        return ir::make_select(ir::make_eq(ir::make_cast(ir::DType::Int64, i[ax]), te::read(first, at)),
                               ir::make_const(x->dtype(), 1), ir::make_zero(x->dtype()));
      },
      "injective", x->dtype());
}

te::Tensor reduce_log_sum_exp(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims,
                              const std::string& name) {
  check_float(x, name);
  // The maximum with kept dimensions broadcasts against x; the result adds
  // it back in the output's shape.
  te::Tensor m = reduce_max(x, axes, true, name + "_max");
  te::Tensor sum = reduce_sum(exp(sub(x, m, name + "_shifted"), name + "_exp"), axes, keepdims, name + "_sum");
  te::Tensor m_out = keepdims ? m : reshape(m, sum->shape(), name + "_max_out");
  return add(log(sum, name + "_log"), m_out, name);
}

}  // namespace tunectl::ops
