#include "ops/dft.h"

#include <numbers>

#include "ir/error.h"

namespace tunectl::ops {

using ir::Expr;

te::Tensor dft(const te::Tensor& x, const DftAttrs& a, const std::string& name) {
  const std::vector<int64_t>& in = x->shape();
  const int64_t rank = static_cast<int64_t>(in.size());
  user_check(rank >= 2 && (in.back() == 1 || in.back() == 2), name,
             ": the input's last axis must hold real (1) or complex (2) values");
  user_check(a.axis >= 0 && a.axis < rank - 1, name, ": axis ", a.axis, " is not a signal axis of a rank-", rank,
             " input");
  const int64_t signal = in[a.axis];
  const int64_t length = a.length > 0 ? a.length : signal;
  const int64_t frequencies = a.onesided ? length / 2 + 1 : length;
  std::vector<int64_t> shape = in;
  shape[a.axis] = frequencies;
  shape.back() = 2;
  // The samples past the signal are zeros: only the first ones are summed.
  const ir::IterVar n = te::reduce_axis(std::min(signal, length), "rn");
  const double step = (a.inverse ? 2 : -2) * std::numbers::pi / static_cast<double>(length);
  const double scale = a.inverse ? 1.0 / static_cast<double>(length) : 1.0;
  return te::compute(
      name, shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> at(i.begin(), i.end());
        at[a.axis] = n.var;
        at.back() = 0;
        const Expr re = te::read(x, at);
        at.back() = 1;
        const Expr im = in.back() == 2 ? te::read(x, at) : ir::make_zero(x->dtype());
        // k n reduced modulo L first and the twiddle factor computed in
        // float64, so that a quarter turn's zero stays (close to) zero.
        const Expr turn = ir::make_cast(ir::DType::Float64, (i[a.axis] * n.var) % length);
        const Expr angle = turn * ir::make_const(ir::DType::Float64, step);
        const Expr c = ir::make_cast(x->dtype(), ir::make_call(ir::MathFunc::cos, {angle}));
        const Expr s = ir::make_cast(x->dtype(), ir::make_call(ir::MathFunc::sin, {angle}));
        // (re + i im)(cos + i sin), its real or imaginary part.
        Expr v = ir::make_select(ir::make_eq(i.back(), Expr(0)), re * c - im * s, re * s + im * c);
        if (a.inverse) v = v * ir::make_const(x->dtype(), scale);
        return te::sum(v, {n});
      },
      "dft", x->dtype());
}

}  // namespace tunectl::ops
