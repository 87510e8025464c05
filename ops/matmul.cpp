#include "ops/matmul.h"

#include "ir/error.h"
#include "ops/elemwise.h"
#include "ops/op_util.h"

namespace tunectl::ops {

using ir::Expr;

te::Tensor matmul(const te::Tensor& a, const te::Tensor& b, bool trans_a, bool trans_b, const std::string& name) {
  user_check(a->shape().size() == 2 && b->shape().size() == 2, name, ": operands must be matrices");
  user_check(a->dtype() == b->dtype(), name, ": operand types differ");
  int64_t m = trans_a ? a->shape()[1] : a->shape()[0];
  int64_t k = trans_a ? a->shape()[0] : a->shape()[1];
  int64_t kb = trans_b ? b->shape()[1] : b->shape()[0];
  int64_t n = trans_b ? b->shape()[0] : b->shape()[1];
  user_check(k == kb, name, ": inner dimensions differ (", k, " vs ", kb, ")");
  ir::IterVar rk = te::reduce_axis(k, "rk");
  return te::compute(
      name, {m, n},
      [&](const std::vector<ir::Var>& i) {
        Expr x = trans_a ? te::read(a, {rk.var, i[0]}) : te::read(a, {i[0], rk.var});
        Expr y = trans_b ? te::read(b, {i[1], rk.var}) : te::read(b, {rk.var, i[1]});
        return te::sum(x * y, {rk});
      },
      "matmul", a->dtype());
}

te::Tensor gemm(const te::Tensor& a, const te::Tensor& b, const te::Tensor& c, double alpha, double beta,
                bool trans_a, bool trans_b, const std::string& name) {
  te::Tensor prod = matmul(a, b, trans_a, trans_b, name + "_matmul");
  if (!c) return alpha == 1.0 ? prod : scale(prod, alpha, name);
  user_check(c->dtype() == prod->dtype(), name, ": C has a different type");
  user_check(broadcast_shape(prod->shape(), c->shape(), name) == prod->shape(), name,
             ": C does not broadcast to the product's shape");
  return te::compute(
      name, prod->shape(),
      [&](const std::vector<ir::Var>& i) {
        Expr p = te::read(prod, {i[0], i[1]});
        Expr q = read_broadcast(c, i);
        if (alpha != 1.0) p = p * ir::make_const(p.dtype(), alpha);
        if (beta != 1.0) q = q * ir::make_const(q.dtype(), beta);
        return p + q;
      },
      "elemwise", prod->dtype());
}

te::Tensor dense(const te::Tensor& x, const te::Tensor& weight, const te::Tensor& bias, const std::string& name) {
  if (!bias) return matmul(x, weight, false, true, name);
  user_check(bias->shape().size() == 1 && bias->shape()[0] == weight->shape()[0], name,
             ": bias must have one value per output feature");
  te::Tensor prod = matmul(x, weight, false, true, name + "_matmul");
  return add(prod, bias, name);
}

te::Tensor batch_matmul(const te::Tensor& a, const te::Tensor& b, bool trans_b, const std::string& name) {
  const auto& sa = a->shape();
  const auto& sb = b->shape();
  user_check(sa.size() >= 2 && sb.size() >= 2, name, ": operands need rank at least 2");
  user_check(a->dtype() == b->dtype(), name, ": operand types differ");
  int64_t m = sa[sa.size() - 2], k = sa.back();
  int64_t kb = trans_b ? sb.back() : sb[sb.size() - 2];
  int64_t n = trans_b ? sb[sb.size() - 2] : sb.back();
  user_check(k == kb, name, ": inner dimensions differ (", k, " vs ", kb, ")");
  std::vector<int64_t> batch = broadcast_shape({sa.begin(), sa.end() - 2}, {sb.begin(), sb.end() - 2}, name);
  std::vector<int64_t> shape = batch;
  shape.push_back(m);
  shape.push_back(n);
  size_t nb = batch.size();
  ir::IterVar rk = te::reduce_axis(k, "rk");
  // Batch index of an operand whose batch dims are the trailing ones of the
  // output's, with extent-1 dimensions broadcast.
  auto batch_index = [&](const std::vector<int64_t>& s, const std::vector<ir::Var>& i) {
    std::vector<Expr> idx;
    size_t own = s.size() - 2;
    for (size_t d = 0; d < own; ++d) idx.push_back(s[d] == 1 ? Expr(0) : Expr(i[nb - own + d]));
    return idx;
  };
  return te::compute(
      name, shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> ia = batch_index(sa, i);
        ia.push_back(i[nb]);
        ia.push_back(rk.var);
        std::vector<Expr> ib = batch_index(sb, i);
        if (trans_b) {
          ib.push_back(i[nb + 1]);
          ib.push_back(rk.var);
        } else {
          ib.push_back(rk.var);
          ib.push_back(i[nb + 1]);
        }
        return te::sum(te::read(a, ia) * te::read(b, ib), {rk});
      },
      "batch_matmul", a->dtype());
}

}  // namespace tunectl::ops
