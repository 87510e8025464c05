#include "ops/op_util.h"

#include <algorithm>

#include "ir/error.h"

namespace tunectl::ops {

int normalize_axis(int64_t axis, size_t rank, const std::string& op) {
  int64_t r = static_cast<int64_t>(rank);
  user_check(axis >= -r && axis < r, op, ": axis ", axis, " is out of range for rank ", rank);
  return static_cast<int>(axis < 0 ? axis + r : axis);
}

ir::Expr axis_index(ir::Expr k, int64_t n) {
  if (k.dtype() != ir::kIndexType) k = ir::make_cast(ir::kIndexType, k);
  k = ir::make_select(k < 0, k + n, k);
  return ir::make_min(ir::make_max(k, 0), n - 1);
}

std::vector<int64_t> broadcast_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                     const std::string& op) {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    user_check(da == db || da == 1 || db == 1, op, ": shapes cannot broadcast (dimension ", i, ": ", da, " vs ",
               db, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

ir::Expr read_broadcast(const te::Tensor& t, const std::vector<ir::Var>& out) {
  const auto& shape = t->shape();
  size_t lead = out.size() - shape.size();
  std::vector<ir::Expr> idx;
  for (size_t i = 0; i < shape.size(); ++i) idx.push_back(shape[i] == 1 ? ir::Expr(0) : ir::Expr(out[lead + i]));
  return te::read(t, std::move(idx));
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t d : v) p *= d;
  return p;
}

}  // namespace tunectl::ops
