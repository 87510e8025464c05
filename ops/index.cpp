#include "ops/index.h"

#include "ir/error.h"
#include "ops/op_util.h"

namespace tunectl::ops {

using ir::Expr;

namespace {

std::vector<int64_t> non_empty(std::vector<int64_t> shape) {
  if (shape.empty()) shape = {1};
  return shape;
}

}  // namespace

te::Tensor gather(const te::Tensor& data, const te::Tensor& indices, int64_t axis, bool scalar_index,
                  const std::string& name) {
  user_check(ir::is_int(indices->dtype()), name, ": indices must be integers, '", indices->name, "' is ",
             ir::to_string(indices->dtype()));
  user_check(!scalar_index || indices->shape() == std::vector<int64_t>{1}, name,
             ": a scalar index must have shape [1]");
  const auto& s = data->shape();
  size_t ax = static_cast<size_t>(normalize_axis(axis, s.size(), name));
  std::vector<int64_t> idx_shape = scalar_index ? std::vector<int64_t>{} : indices->shape();
  std::vector<int64_t> shape(s.begin(), s.begin() + ax);
  shape.insert(shape.end(), idx_shape.begin(), idx_shape.end());
  shape.insert(shape.end(), s.begin() + ax + 1, s.end());
  int64_t n = s[ax];
  size_t ni = idx_shape.size();
  return te::compute(
      name, non_empty(shape),
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> at;
        if (scalar_index) {
          at.push_back(0);
        } else {
          for (size_t d = 0; d < ni; ++d) at.push_back(i[ax + d]);
        }
        Expr k = axis_index(te::read(indices, at), n);
        std::vector<Expr> idx;
        for (size_t d = 0; d < ax; ++d) idx.push_back(i[d]);
        idx.push_back(k);
        for (size_t d = ax + 1; d < s.size(); ++d) idx.push_back(i[d - 1 + ni]);
        return te::read(data, idx);
      },
      "injective", data->dtype());
}

te::Tensor gather_elements(const te::Tensor& data, const te::Tensor& indices, int64_t axis, const std::string& name) {
  user_check(ir::is_int(indices->dtype()), name, ": indices must be integers, '", indices->name, "' is ",
             ir::to_string(indices->dtype()));
  const auto& s = data->shape();
  const auto& is = indices->shape();
  user_check(is.size() == s.size(), name, ": indices of rank ", is.size(), " for data of rank ", s.size());
  const size_t ax = static_cast<size_t>(normalize_axis(axis, s.size(), name));
  for (size_t d = 0; d < s.size(); ++d)
    user_check(d == ax || is[d] <= s[d], name, ": indices dimension ", d, " (", is[d], ") exceeds the data's (", s[d],
               ")");
  return te::compute(
      name, is,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> at(i.begin(), i.end());
        at[ax] = axis_index(te::read(indices, {i.begin(), i.end()}), s[ax]);
        return te::read(data, at);
      },
      "injective", data->dtype());
}

te::Tensor strided_slice(const te::Tensor& x, const std::vector<int64_t>& begins, const std::vector<int64_t>& steps,
                         const std::vector<int64_t>& extents, const std::string& name) {
  const auto& s = x->shape();
  size_t rank = s.size();
  user_check(begins.size() == rank && steps.size() == rank && extents.size() == rank, name, ": needs ", rank,
             " begins, steps and extents");
  for (size_t d = 0; d < rank; ++d) {
    user_check(steps[d] != 0 && extents[d] >= 0, name, ": axis ", d, " has step ", steps[d], " and extent ",
               extents[d]);
    if (extents[d] == 0) continue;  // an empty slice reads nothing
    int64_t last = begins[d] + (extents[d] - 1) * steps[d];
    user_check(begins[d] >= 0 && begins[d] < s[d] && last >= 0 && last < s[d], name, ": axis ", d,
               " reads outside [0, ", s[d], ")");
  }
  return te::compute(
      name, extents,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> idx;
        for (size_t d = 0; d < rank; ++d) {
          Expr e = i[d];
          if (steps[d] != 1) e = e * steps[d];
          if (begins[d] != 0) e = e + begins[d];
          idx.push_back(e);
        }
        return te::read(x, idx);
      },
      "injective", x->dtype());
}

te::Tensor broadcast_to(const te::Tensor& x, const std::vector<int64_t>& shape, const std::string& name) {
  return te::compute(
      name, non_empty(broadcast_shape(x->shape(), shape, name)),
      [&](const std::vector<ir::Var>& i) { return read_broadcast(x, i); }, "injective", x->dtype());
}

te::Tensor where(const te::Tensor& cond, const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  user_check(cond->dtype() == ir::DType::Bool, name, ": the condition must be bool, '", cond->name, "' is ",
             ir::to_string(cond->dtype()));
  user_check(a->dtype() == b->dtype(), name, ": the branches differ in type (", ir::to_string(a->dtype()), " vs ",
             ir::to_string(b->dtype()), ")");
  std::vector<int64_t> shape = broadcast_shape(broadcast_shape(cond->shape(), a->shape(), name), b->shape(), name);
  return te::compute(
      name, shape,
      [&](const std::vector<ir::Var>& i) {
        return ir::make_select(read_broadcast(cond, i), read_broadcast(a, i), read_broadcast(b, i));
      },
      "elemwise", a->dtype());
}

te::Tensor cast(const te::Tensor& x, ir::DType dtype, const std::string& name) {
  return te::compute(
      name, x->shape(),
      [&](const std::vector<ir::Var>& i) {
        Expr v = te::read(x, {i.begin(), i.end()});
        return v.dtype() == dtype ? v : ir::make_cast(dtype, v);
      },
      "elemwise", dtype);
}

te::Tensor copy(const te::Tensor& x, const std::string& name) {
  return te::compute(
      name, x->shape(), [&](const std::vector<ir::Var>& i) { return te::read(x, {i.begin(), i.end()}); },
      "injective", x->dtype());
}

te::Tensor pad_border(const te::Tensor& x, const std::vector<int64_t>& begins, const std::vector<int64_t>& ends,
                      BorderMode mode, const std::string& name) {
  const bool reflect = mode == BorderMode::Reflect;
  const auto& s = x->shape();
  size_t rank = s.size();
  user_check(begins.size() == rank && ends.size() == rank, name, ": needs ", rank, " begins and ends");
  std::vector<int64_t> shape(rank);
  for (size_t d = 0; d < rank; ++d) {
    user_check(begins[d] >= 0 && ends[d] >= 0, name, ": negative padding on axis ", d);
    user_check(!reflect || (begins[d] < s[d] && ends[d] < s[d]), name, ": reflect padding on axis ", d,
               " must be smaller than its extent ", s[d]);
    shape[d] = s[d] + begins[d] + ends[d];
  }
  return te::compute(
      name, shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> idx;
        for (size_t d = 0; d < rank; ++d) {
          if (begins[d] == 0 && ends[d] == 0) {
            idx.push_back(i[d]);
            continue;
          }
          Expr j = i[d] - begins[d];
          int64_t last = s[d] - 1;
          if (reflect) {
            j = ir::make_select(j < 0, -j, j);
            j = ir::make_select(j > last, Expr(2 * last) - j, j);
          } else if (mode == BorderMode::Wrap) {
            j = ir::make_floormod(j, s[d]);
          } else {
            j = ir::make_min(ir::make_max(j, 0), last);
          }
          idx.push_back(j);
        }
        return te::read(x, idx);
      },
      "injective", x->dtype());
}

te::Tensor full(const std::vector<int64_t>& shape, ir::DType dtype, double value, const std::string& name) {
  return te::compute(
      name, non_empty(shape), [&](const std::vector<ir::Var>&) { return ir::make_const(dtype, value); }, "injective",
      dtype);
}

te::Tensor one_hot(const te::Tensor& indices, int64_t depth, const te::Tensor& values, int64_t axis,
                   const std::string& name) {
  user_check(depth >= 1, name, ": depth ", depth, " must be positive");
  user_check(values->shape() == std::vector<int64_t>{2}, name, ": values must hold [off, on]");
  const auto& is = indices->shape();
  const size_t ax = static_cast<size_t>(normalize_axis(axis, is.size() + 1, name));
  std::vector<int64_t> shape = is;
  shape.insert(shape.begin() + static_cast<int64_t>(ax), depth);
  return te::compute(
      name, shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> at(i.begin(), i.end());
        at.erase(at.begin() + static_cast<int64_t>(ax));
        Expr k = te::read(indices, at);
        k = ir::is_float(k.dtype()) ? ir::make_cast(ir::kIndexType, ir::make_call(ir::MathFunc::floor, {k}))
                                    : ir::make_cast(ir::kIndexType, k);
        k = ir::make_select(k < 0, k + depth, k);
        return ir::make_select(ir::make_eq(k, Expr(i[ax])), te::read(values, {Expr(int64_t{1})}),
                               te::read(values, {Expr(int64_t{0})}));
      },
      "injective", values->dtype());
}

te::Tensor arange(double start, double delta, int64_t n, ir::DType dtype, const std::string& name) {
  user_check(n >= 0, name, ": a range of ", n, " elements");
  return te::compute(
      name, {n},
      [&](const std::vector<ir::Var>& i) {
        if (ir::is_int(dtype)) {
          Expr k = i[0] * static_cast<int64_t>(delta) + static_cast<int64_t>(start);
          return dtype == ir::kIndexType ? k : ir::make_cast(dtype, k);
        }
        return ir::make_cast(dtype, i[0]) * ir::make_const(dtype, delta) + ir::make_const(dtype, start);
      },
      "injective", dtype);
}

te::Tensor value_table(const runtime::NDArray& values, const std::string& name) {
  int64_t n = values.num_elements();
  user_check(n <= kMaxTableElements, name, ": ", n, " values; a value table holds at most ", kMaxTableElements);
  ir::DType t = values.dtype();
  std::vector<int64_t> shape = non_empty(values.shape());
  return te::compute(
      name, shape,
      [&](const std::vector<ir::Var>& i) {
        Expr flat = 0;
        for (size_t d = 0; d < shape.size(); ++d) flat = d == 0 ? Expr(i[d]) : flat * shape[d] + i[d];
        if (n == 0) return ir::make_zero(t);  // an empty table: never read
        Expr v = ir::make_const(t, values.get(n - 1));
        for (int64_t k = n - 1; k-- > 0;) v = ir::make_select(ir::make_eq(flat, Expr(k)), ir::make_const(t, values.get(k)), v);
        return v;
      },
      "injective", t);
}

}  // namespace tunectl::ops
