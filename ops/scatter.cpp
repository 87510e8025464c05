#include "ops/scatter.h"

#include "ir/error.h"
#include "ops/op_util.h"

namespace tunectl::ops {

namespace {

using ir::Expr;

void check_indices(const te::Tensor& indices, const std::string& name) {
  user_check(ir::is_int(indices->dtype()), name, ": indices must be integers, '", indices->name, "' is ",
             ir::to_string(indices->dtype()));
}

ir::ReduceOp combiner(ScatterReduction r) {
  switch (r) {
    case ScatterReduction::Mul: return ir::ReduceOp::Prod;
    case ScatterReduction::Max: return ir::ReduceOp::Max;
    case ScatterReduction::Min: return ir::ReduceOp::Min;
    default: return ir::ReduceOp::Sum;
  }
}

// The data's value combined with the updates aimed at its position, already
// folded with the reduction (its identity when there are none).
Expr apply(ScatterReduction r, Expr data, Expr combined) {
  switch (r) {
    case ScatterReduction::Add: return data + combined;
    case ScatterReduction::Mul: return data * combined;
    case ScatterReduction::Max: return ir::make_max(data, combined);
    case ScatterReduction::Min: return ir::make_min(data, combined);
    default: internal_fail("scatter: no reduction to apply");
  }
}

// The output of a scatter with a reduction: data combined elementwise with
// the updates folded per position.
te::Tensor combine_with(const te::Tensor& data, const te::Tensor& combined, ScatterReduction r,
                        const std::string& name) {
  return te::compute(
      name, data->shape(),
      [&](const std::vector<ir::Var>& i) {
        return apply(r, te::read(data, {i.begin(), i.end()}), te::read(combined, {i.begin(), i.end()}));
      },
      "elemwise", data->dtype());
}

}  // namespace

te::Tensor gather_nd(const te::Tensor& data, const te::Tensor& indices, int64_t batch_dims, const std::string& name) {
  check_indices(indices, name);
  const auto& s = data->shape();
  const auto& is = indices->shape();
  const int64_t r = static_cast<int64_t>(s.size()), q = static_cast<int64_t>(is.size());
  user_check(q >= 1 && batch_dims >= 0 && batch_dims < std::min(r, q), name, ": batch_dims ", batch_dims,
             " for data of rank ", r, " and indices of rank ", q);
  const int64_t m = is.back();
  user_check(m >= 1 && batch_dims + m <= r, name, ": index tuples of ", m, " for data of rank ", r, " after ",
             batch_dims, " batch dimensions");
  for (int64_t d = 0; d < batch_dims; ++d)
    user_check(is[d] == s[d], name, ": batch dimension ", d, " differs between data and indices");
  std::vector<int64_t> shape(is.begin(), is.end() - 1);
  shape.insert(shape.end(), s.begin() + batch_dims + m, s.end());
  if (shape.empty()) shape = {1};
  return te::compute(
      name, shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> at(i.begin(), i.begin() + batch_dims);
        std::vector<Expr> tuple(i.begin(), i.begin() + (q - 1));
        tuple.push_back(0);
        for (int64_t t = 0; t < m; ++t) {
          tuple.back() = Expr(t);
          at.push_back(axis_index(te::read(indices, tuple), s[batch_dims + t]));
        }
        for (size_t d = static_cast<size_t>(q - 1); d < i.size(); ++d) at.push_back(i[d]);
        return te::read(data, at);
      },
      "injective", data->dtype());
}

te::Tensor scatter_elements(const te::Tensor& data, const te::Tensor& indices, const te::Tensor& updates,
                            int64_t axis, ScatterReduction reduction, const std::string& name) {
  check_indices(indices, name);
  const auto& s = data->shape();
  const auto& is = indices->shape();
  user_check(updates->shape() == is, name, ": updates and indices differ in shape");
  user_check(updates->dtype() == data->dtype(), name, ": updates and data differ in type");
  user_check(is.size() == s.size(), name, ": indices of rank ", is.size(), " for data of rank ", s.size());
  const size_t ax = static_cast<size_t>(normalize_axis(axis, s.size(), name));
  for (size_t d = 0; d < s.size(); ++d)
    user_check(is[d] <= s[d] || d == ax, name, ": indices dimension ", d, " (", is[d], ") exceeds the data's (", s[d], ")");
  // Whether update k (along the axis) aims at position i, and where it lies.
  auto aimed = [&](const std::vector<ir::Var>& i, Expr k, std::vector<Expr>& at) {
    Expr inside = ir::make_bool(true);
    at.assign(i.begin(), i.end());
    for (size_t d = 0; d < s.size(); ++d) {
      if (d == ax) continue;
      if (is[d] < s[d]) inside = ir::make_and(inside, Expr(i[d]) < is[d]);
      at[d] = ir::make_min(Expr(i[d]), is[d] - 1);
    }
    at[ax] = k;
    return ir::make_and(inside, ir::make_eq(axis_index(te::read(indices, at), s[ax]), Expr(i[ax])));
  };
  if (reduction == ScatterReduction::None) {
    te::Tensor last = te::compute(
        name + "_last", s,
        [&](const std::vector<ir::Var>& i) {
          ir::IterVar k = te::reduce_axis(is[ax], "rk");
          std::vector<Expr> at;
          Expr hit = aimed(i, k.var, at);
          return ir::make_reduce(ir::ReduceOp::Max, ir::make_select(hit, Expr(k.var), Expr(int64_t{-1})), {k});
        },
        "reduce", ir::kIndexType);
    return te::compute(
        name, s,
        [&](const std::vector<ir::Var>& i) {
          Expr k = te::read(last, {i.begin(), i.end()});
          std::vector<Expr> at(i.begin(), i.end());
          for (size_t d = 0; d < s.size(); ++d)
            if (d != ax) at[d] = ir::make_min(Expr(i[d]), is[d] - 1);
          at[ax] = ir::make_max(k, 0);
          return ir::make_select(k >= 0, te::read(updates, at), te::read(data, {i.begin(), i.end()}));
        },
        "injective", data->dtype());
  }
  te::Tensor combined = te::compute(
      name + "_combined", s,
      [&](const std::vector<ir::Var>& i) {
        ir::IterVar k = te::reduce_axis(is[ax], "rk");
        std::vector<Expr> at;
        Expr hit = aimed(i, k.var, at);
        const ir::ReduceOp op = combiner(reduction);
        return ir::make_reduce(op, ir::make_select(hit, te::read(updates, at), ir::reduce_identity(op, data->dtype())),
                               {k});
      },
      "reduce", data->dtype());
  return combine_with(data, combined, reduction, name);
}

te::Tensor scatter_nd(const te::Tensor& data, const te::Tensor& indices, const te::Tensor& updates,
                      ScatterReduction reduction, const std::string& name) {
  check_indices(indices, name);
  const auto& s = data->shape();
  const auto& is = indices->shape();
  user_check(!is.empty() && is.back() >= 1 && is.back() <= static_cast<int64_t>(s.size()), name,
             ": index tuples of ", is.empty() ? 0 : is.back(), " for data of rank ", s.size());
  user_check(updates->dtype() == data->dtype(), name, ": updates and data differ in type");
  const size_t m = static_cast<size_t>(is.back()), batch = is.size() - 1;
  std::vector<int64_t> want(is.begin(), is.end() - 1);
  want.insert(want.end(), s.begin() + static_cast<int64_t>(m), s.end());
  if (want.empty()) want = {1};
  user_check(updates->shape() == want, name, ": updates must have the shape of indices[..., 0] then data's trailing axes");
  // One reduce axis per batch axis of indices; whether update b aims at position i.
  auto batch_axes = [&] {
    std::vector<ir::IterVar> axes;
    for (size_t d = 0; d < batch; ++d) axes.push_back(te::reduce_axis(is[d], "rb" + std::to_string(d)));
    return axes;
  };
  auto aimed = [&](const std::vector<ir::Var>& i, const std::vector<ir::IterVar>& b) {
    std::vector<Expr> tuple;
    for (const auto& a : b) tuple.push_back(a.var);
    tuple.push_back(0);
    Expr hit = ir::make_bool(true);
    for (size_t t = 0; t < m; ++t) {
      tuple.back() = Expr(static_cast<int64_t>(t));
      hit = ir::make_and(hit, ir::make_eq(axis_index(te::read(indices, tuple), s[t]), Expr(i[t])));
    }
    return hit;
  };
  auto update_at = [&](const std::vector<Expr>& b, const std::vector<ir::Var>& i) {
    std::vector<Expr> at = b;
    for (size_t d = m; d < s.size(); ++d) at.push_back(i[d]);
    if (at.empty()) at.push_back(0);
    return te::read(updates, at);
  };
  if (batch == 0) {  // a single index tuple: no reduction over updates
    return te::compute(
        name, s,
        [&](const std::vector<ir::Var>& i) {
          Expr hit = aimed(i, {});
          Expr v = update_at({}, i);
          Expr d = te::read(data, {i.begin(), i.end()});
          return ir::make_select(hit, reduction == ScatterReduction::None ? v : apply(reduction, d, v), d);
        },
        "injective", data->dtype());
  }
  if (reduction == ScatterReduction::None) {
    std::vector<int64_t> prefix(s.begin(), s.begin() + static_cast<int64_t>(m));
    te::Tensor last = te::compute(
        name + "_last", s,
        [&](const std::vector<ir::Var>& i) {
          std::vector<ir::IterVar> b = batch_axes();
          Expr flat;
          for (size_t d = 0; d < batch; ++d) flat = d == 0 ? Expr(b[d].var) : flat * is[d] + b[d].var;
          return ir::make_reduce(ir::ReduceOp::Max, ir::make_select(aimed(i, b), flat, Expr(int64_t{-1})), b);
        },
        "reduce", ir::kIndexType);
    return te::compute(
        name, s,
        [&](const std::vector<ir::Var>& i) {
          Expr k = te::read(last, {i.begin(), i.end()});
          std::vector<Expr> b(batch);
          Expr rest = ir::make_max(k, 0);
          for (size_t d = batch; d-- > 0;) {
            b[d] = rest % is[d];
            rest = rest / is[d];
          }
          return ir::make_select(k >= 0, update_at(b, i), te::read(data, {i.begin(), i.end()}));
        },
        "injective", data->dtype());
  }
  te::Tensor combined = te::compute(
      name + "_combined", s,
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::IterVar> b = batch_axes();
        std::vector<Expr> at;
        for (const auto& a : b) at.push_back(a.var);
        const ir::ReduceOp op = combiner(reduction);
        return ir::make_reduce(op, ir::make_select(aimed(i, b), update_at(at, i), ir::reduce_identity(op, data->dtype())), b);
      },
      "reduce", data->dtype());
  return combine_with(data, combined, reduction, name);
}

}  // namespace tunectl::ops
