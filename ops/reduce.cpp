#include "ops/reduce.h"

#include "ir/error.h"
#include "ops/op_util.h"

namespace tunectl::ops {

namespace {

using ir::Expr;

te::Tensor reduce(const te::Tensor& x, const std::vector<int64_t>& axes_in, bool keepdims, ir::ReduceOp op,
                  bool mean, const std::string& name) {
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
        Expr v = te::read(x, idx);
        if (mean) v = v * ir::make_const(v.dtype(), 1.0 / static_cast<double>(count));
        return ir::make_reduce(op, v, raxes);
      },
      "reduce", x->dtype());
}

}  // namespace

te::Tensor reduce_sum(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims, const std::string& name) {
  return reduce(x, axes, keepdims, ir::ReduceOp::Sum, false, name);
}

te::Tensor reduce_mean(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims,
                       const std::string& name) {
  user_check(ir::is_float(x->dtype()), name, ": input must be float");
  return reduce(x, axes, keepdims, ir::ReduceOp::Sum, true, name);
}

te::Tensor reduce_max(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims, const std::string& name) {
  return reduce(x, axes, keepdims, ir::ReduceOp::Max, false, name);
}

}  // namespace tunectl::ops
