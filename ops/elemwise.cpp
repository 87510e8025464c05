#include "ops/elemwise.h"

#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include "ir/error.h"
#include "ops/op_util.h"

namespace tunectl::ops {

namespace {

using ir::Expr;

// f of x; the result has x's type, or `result` when given (bool for the
// predicates).
te::Tensor any_unary(const te::Tensor& x, const std::string& name, const std::function<Expr(Expr)>& f,
                     std::optional<ir::DType> result = std::nullopt) {
  return te::compute(
      name, x->shape(),
      [&](const std::vector<ir::Var>& i) { return f(te::read(x, {i.begin(), i.end()})); }, "elemwise",
      result.value_or(x->dtype()));
}

// f of a float x.
te::Tensor unary(const te::Tensor& x, const std::string& name, const std::function<Expr(Expr)>& f,
                 std::optional<ir::DType> result = std::nullopt) {
  user_check(ir::is_float(x->dtype()), name, ": needs a float input, '", x->name, "' is ",
             ir::to_string(x->dtype()));
  return any_unary(x, name, f, result);
}

// f of a number, float or integer (ONNX's Neg, Abs, Sign, Relu take both).
te::Tensor numeric_unary(const te::Tensor& x, const std::string& name, const std::function<Expr(Expr)>& f) {
  user_check(x->dtype() != ir::DType::Bool, name, ": needs a number, '", x->name, "' is bool");
  return any_unary(x, name, f);
}

// f over the broadcast of a and b; the result has the operands' type, or
// `result` when given (bool for comparisons).
te::Tensor binary(const te::Tensor& a, const te::Tensor& b, const std::string& name,
                  const std::function<Expr(Expr, Expr)>& f, std::optional<ir::DType> result = std::nullopt) {
  user_check(a->dtype() == b->dtype(), name, ": operand types differ (", ir::to_string(a->dtype()), " vs ",
             ir::to_string(b->dtype()), ")");
  return te::compute(
      name, broadcast_shape(a->shape(), b->shape(), name),
      [&](const std::vector<ir::Var>& i) { return f(read_broadcast(a, i), read_broadcast(b, i)); }, "elemwise",
      result.value_or(a->dtype()));
}

te::Tensor logical(const te::Tensor& a, const te::Tensor& b, const std::string& name,
                   const std::function<Expr(Expr, Expr)>& f) {
  user_check(a->dtype() == ir::DType::Bool, name, ": needs bool operands, '", a->name, "' is ",
             ir::to_string(a->dtype()));
  return binary(a, b, name, f);
}

Expr call(ir::MathFunc f, Expr x) { return ir::make_call(f, {std::move(x)}); }

}  // namespace

te::Tensor math(const te::Tensor& x, ir::MathFunc f, const std::string& name) {
  internal_check(ir::arity(f) == 1, "ops::math: ", ir::to_string(f), " is not unary");
  return unary(x, name, [f](Expr v) { return call(f, v); });
}

te::Tensor relu(const te::Tensor& x, const std::string& name) {
  return numeric_unary(x, name, [](Expr v) { return ir::make_max(v, ir::make_zero(v.dtype())); });
}

te::Tensor clip(const te::Tensor& x, double lo, double hi, const std::string& name) {
  user_check(lo <= hi, name, ": min ", lo, " is above max ", hi);
  return unary(x, name, [&](Expr v) {
    return ir::make_min(ir::make_max(v, ir::make_const(v.dtype(), lo)), ir::make_const(v.dtype(), hi));
  });
}

te::Tensor sigmoid(const te::Tensor& x, const std::string& name) {
  return unary(x, name, [](Expr v) {
    Expr one = ir::make_const(v.dtype(), 1);
    return one / (one + call(ir::MathFunc::exp, -v));
  });
}

te::Tensor tanh(const te::Tensor& x, const std::string& name) { return math(x, ir::MathFunc::tanh, name); }

te::Tensor erf(const te::Tensor& x, const std::string& name) { return math(x, ir::MathFunc::erf, name); }

te::Tensor gelu(const te::Tensor& x, const std::string& name) {
  return unary(x, name, [](Expr v) {
    ir::DType t = v.dtype();
    Expr e = call(ir::MathFunc::erf, v * ir::make_const(t, M_SQRT1_2));
    return v * ir::make_const(t, 0.5) * (ir::make_const(t, 1) + e);
  });
}

te::Tensor gelu_tanh(const te::Tensor& x, const std::string& name) {
  return unary(x, name, [](Expr v) {
    ir::DType t = v.dtype();
    Expr inner = ir::make_const(t, std::sqrt(2.0 / M_PI)) * (v + ir::make_const(t, 0.044715) * v * v * v);
    return v * ir::make_const(t, 0.5) * (ir::make_const(t, 1) + call(ir::MathFunc::tanh, inner));
  });
}

te::Tensor reciprocal(const te::Tensor& x, const std::string& name) {
  return unary(x, name, [](Expr v) { return ir::make_const(v.dtype(), 1) / v; });
}

te::Tensor exp(const te::Tensor& x, const std::string& name) { return math(x, ir::MathFunc::exp, name); }

te::Tensor sqrt(const te::Tensor& x, const std::string& name) { return math(x, ir::MathFunc::sqrt, name); }

te::Tensor neg(const te::Tensor& x, const std::string& name) {
  return numeric_unary(x, name, [](Expr v) { return -v; });
}

te::Tensor abs(const te::Tensor& x, const std::string& name) {
  return numeric_unary(x, name, [](Expr v) { return call(ir::MathFunc::abs, v); });
}

te::Tensor log(const te::Tensor& x, const std::string& name) { return math(x, ir::MathFunc::log, name); }

te::Tensor floor(const te::Tensor& x, const std::string& name) { return math(x, ir::MathFunc::floor, name); }

te::Tensor ceil(const te::Tensor& x, const std::string& name) { return math(x, ir::MathFunc::ceil, name); }

te::Tensor round(const te::Tensor& x, const std::string& name) { return math(x, ir::MathFunc::round, name); }

te::Tensor sin(const te::Tensor& x, const std::string& name) { return math(x, ir::MathFunc::sin, name); }

te::Tensor cos(const te::Tensor& x, const std::string& name) { return math(x, ir::MathFunc::cos, name); }

te::Tensor shrink(const te::Tensor& x, double lambd, double bias, const std::string& name) {
  return numeric_unary(x, name, [&](Expr v) {
    const ir::DType t = v.dtype();
    const Expr lo = ir::make_const(t, -lambd), hi = ir::make_const(t, lambd), b = ir::make_const(t, bias);
    return ir::make_select(v < lo, v + b, ir::make_select(v > hi, v - b, ir::make_zero(t)));
  });
}

te::Tensor sign(const te::Tensor& x, const std::string& name) {
  return numeric_unary(x, name, [](Expr v) {
    const ir::DType t = v.dtype();
    return ir::make_select(v > ir::make_zero(t), ir::make_const(t, 1),
                           ir::make_select(v < ir::make_zero(t), ir::make_const(t, -1), ir::make_zero(t)));
  });
}

te::Tensor is_nan(const te::Tensor& x, const std::string& name) {
  return unary(x, name, [](Expr v) { return ir::make_ne(v, v); }, ir::DType::Bool);
}

te::Tensor is_inf(const te::Tensor& x, bool negative, bool positive, const std::string& name) {
  return unary(
      x, name,
      [&](Expr v) {
        const double inf = std::numeric_limits<double>::infinity();
        Expr pos = ir::make_eq(v, ir::make_const(v.dtype(), inf));
        Expr neg = ir::make_eq(v, ir::make_const(v.dtype(), -inf));
        if (negative && positive) return ir::make_or(pos, neg);
        if (positive) return pos;
        if (negative) return neg;
        return ir::make_bool(false);
      },
      ir::DType::Bool);
}

te::Tensor leaky_relu(const te::Tensor& x, double alpha, const std::string& name) {
  return unary(x, name, [&](Expr v) {
    return ir::make_select(v > ir::make_zero(v.dtype()), v, v * ir::make_const(v.dtype(), alpha));
  });
}

namespace {

Expr constant_like(const Expr& v, double c) { return ir::make_const(v.dtype(), c); }

// max(0, min(1, alpha v + beta)).
Expr hard_sigmoid_of(const Expr& v, double alpha, double beta) {
  Expr lin = v * constant_like(v, alpha) + constant_like(v, beta);
  return ir::make_max(ir::make_zero(v.dtype()), ir::make_min(constant_like(v, 1), lin));
}

Expr softplus_of(const Expr& v) {
  Expr positive = ir::make_max(v, ir::make_zero(v.dtype()));
  Expr tail = call(ir::MathFunc::log, constant_like(v, 1) + call(ir::MathFunc::exp, -call(ir::MathFunc::abs, v)));
  return positive + tail;
}

// alpha (e^v - 1).
Expr exp_minus_one(const Expr& v, double alpha) {
  return constant_like(v, alpha) * (call(ir::MathFunc::exp, v) - constant_like(v, 1));
}

}  // namespace

te::Tensor hard_sigmoid(const te::Tensor& x, double alpha, double beta, const std::string& name) {
  return unary(x, name, [&](Expr v) { return hard_sigmoid_of(v, alpha, beta); });
}

te::Tensor hard_swish(const te::Tensor& x, const std::string& name) {
  return unary(x, name, [](Expr v) { return v * hard_sigmoid_of(v, 1.0 / 6.0, 0.5); });
}

te::Tensor elu(const te::Tensor& x, double alpha, const std::string& name) {
  return unary(x, name, [&](Expr v) {
    return ir::make_select(v < ir::make_zero(v.dtype()), exp_minus_one(v, alpha), v);
  });
}

te::Tensor selu(const te::Tensor& x, double alpha, double gamma, const std::string& name) {
  return unary(x, name, [&](Expr v) {
    Expr y = ir::make_select(v > ir::make_zero(v.dtype()), v, exp_minus_one(v, alpha));
    return constant_like(v, gamma) * y;
  });
}

te::Tensor celu(const te::Tensor& x, double alpha, const std::string& name) {
  user_check(alpha != 0, name, ": alpha must not be 0");
  return unary(x, name, [&](Expr v) {
    Expr zero = ir::make_zero(v.dtype());
    return ir::make_max(zero, v) + ir::make_min(zero, exp_minus_one(v / constant_like(v, alpha), alpha));
  });
}

te::Tensor softplus(const te::Tensor& x, const std::string& name) { return unary(x, name, softplus_of); }

te::Tensor softsign(const te::Tensor& x, const std::string& name) {
  return unary(x, name, [](Expr v) { return v / (constant_like(v, 1) + call(ir::MathFunc::abs, v)); });
}

te::Tensor mish(const te::Tensor& x, const std::string& name) {
  return unary(x, name, [](Expr v) { return v * call(ir::MathFunc::tanh, softplus_of(v)); });
}

te::Tensor thresholded_relu(const te::Tensor& x, double alpha, const std::string& name) {
  return unary(x, name, [&](Expr v) {
    return ir::make_select(v > constant_like(v, alpha), v, ir::make_zero(v.dtype()));
  });
}

te::Tensor prelu(const te::Tensor& x, const te::Tensor& slope, const std::string& name) {
  user_check(ir::is_float(x->dtype()), name, ": needs a float input");
  return binary(x, slope, name, [](Expr v, Expr s) {
    return ir::make_select(v < ir::make_zero(v.dtype()), v * s, v);
  });
}

te::Tensor scale(const te::Tensor& x, double factor, const std::string& name) {
  return unary(x, name, [&](Expr v) { return v * ir::make_const(v.dtype(), factor); });
}

te::Tensor add(const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  return binary(a, b, name, [](Expr x, Expr y) { return x + y; });
}
te::Tensor sub(const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  return binary(a, b, name, [](Expr x, Expr y) { return x - y; });
}
te::Tensor mul(const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  return binary(a, b, name, [](Expr x, Expr y) { return x * y; });
}
te::Tensor div(const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  user_check(ir::is_float(a->dtype()) || ir::is_int(a->dtype()), name, ": division needs numeric operands");
  if (ir::is_float(a->dtype())) return binary(a, b, name, [](Expr x, Expr y) { return x / y; });
  // Integers: the quotient truncated toward zero (C, ONNX), from the IR's
  // floor division corrected when the signs differ and it is inexact.
  return binary(a, b, name, [](Expr x, Expr y) {
    Expr zero = ir::make_zero(x.dtype());
    Expr inexact = ir::make_ne(x % y, zero);
    Expr signs_differ = ir::make_ne(x < zero, y < zero);
    return ir::make_select(ir::make_and(inexact, signs_differ), x / y + ir::make_const(x.dtype(), 1), x / y);
  });
}
te::Tensor pow(const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  user_check(ir::is_float(a->dtype()), name, ": pow needs float operands");
  return binary(a, b, name, [](Expr x, Expr y) { return ir::make_call(ir::MathFunc::pow, {x, y}); });
}
te::Tensor equal(const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  return binary(a, b, name, [](Expr x, Expr y) { return ir::make_eq(x, y); }, ir::DType::Bool);
}
te::Tensor greater(const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  return binary(a, b, name, [](Expr x, Expr y) { return x > y; }, ir::DType::Bool);
}
te::Tensor less(const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  return binary(a, b, name, [](Expr x, Expr y) { return x < y; }, ir::DType::Bool);
}
te::Tensor greater_equal(const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  return binary(a, b, name, [](Expr x, Expr y) { return x >= y; }, ir::DType::Bool);
}
te::Tensor less_equal(const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  return binary(a, b, name, [](Expr x, Expr y) { return x <= y; }, ir::DType::Bool);
}
te::Tensor logical_and(const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  return logical(a, b, name, [](Expr x, Expr y) { return ir::make_and(x, y); });
}
te::Tensor logical_or(const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  return logical(a, b, name, [](Expr x, Expr y) { return ir::make_or(x, y); });
}
te::Tensor logical_xor(const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  return logical(a, b, name, [](Expr x, Expr y) { return ir::make_ne(x, y); });
}

te::Tensor bitwise(const te::Tensor& a, const te::Tensor& b, ir::MathFunc f, const std::string& name) {
  internal_check(ir::is_bit_func(f) && ir::arity(f) == 2, "ops::bitwise: ", ir::to_string(f), " is not a bit function");
  user_check(ir::is_int(a->dtype()), name, ": needs integer inputs, '", a->name, "' is ", ir::to_string(a->dtype()));
  const bool shift = f == ir::MathFunc::shift_left || f == ir::MathFunc::shift_right;
  user_check(!shift || ir::is_unsigned(a->dtype()), name, ": shifts take unsigned integers, '", a->name, "' is ",
             ir::to_string(a->dtype()));
  return binary(a, b, name, [f](Expr x, Expr y) { return ir::make_call(f, {x, y}); });
}

te::Tensor bitwise_not(const te::Tensor& x, const std::string& name) {
  user_check(ir::is_int(x->dtype()), name, ": needs an integer input, '", x->name, "' is ", ir::to_string(x->dtype()));
  return any_unary(x, name, [](Expr v) { return ir::make_call(ir::MathFunc::bitwise_not, {v}); });
}

te::Tensor logical_not(const te::Tensor& x, const std::string& name) {
  user_check(x->dtype() == ir::DType::Bool, name, ": needs a bool input, '", x->name, "' is ",
             ir::to_string(x->dtype()));
  return te::compute(
      name, x->shape(), [&](const std::vector<ir::Var>& i) { return ir::make_not(te::read(x, {i.begin(), i.end()})); },
      "elemwise", x->dtype());
}

te::Tensor maximum(const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  return binary(a, b, name, [](Expr x, Expr y) { return ir::make_max(x, y); });
}
te::Tensor minimum(const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  return binary(a, b, name, [](Expr x, Expr y) { return ir::make_min(x, y); });
}

te::Tensor mod(const te::Tensor& a, const te::Tensor& b, bool fmod, const std::string& name) {
  if (ir::is_float(a->dtype())) {
    user_check(fmod, name, ": a float remainder needs fmod = 1");
    // x - y trunc(x / y), trunc rounding toward zero.
    return binary(a, b, name, [](Expr x, Expr y) {
      Expr q = x / y;
      Expr trunc = ir::make_select(q < ir::make_zero(q.dtype()), ir::make_call(ir::MathFunc::ceil, {q}),
                                   ir::make_call(ir::MathFunc::floor, {q}));
      return x - y * trunc;
    });
  }
  user_check(ir::is_int(a->dtype()), name, ": the remainder needs numeric operands");
  if (!fmod) return binary(a, b, name, [](Expr x, Expr y) { return x % y; });
  // The IR's floor remainder has the divisor's sign: moved to the
  // dividend's where they differ and it is not zero.
  return binary(a, b, name, [](Expr x, Expr y) {
    Expr zero = ir::make_zero(x.dtype());
    Expr r = x % y;
    Expr signs_differ = ir::make_ne(r < zero, x < zero);
    return ir::make_select(ir::make_and(ir::make_ne(r, zero), signs_differ), r - y, r);
  });
}

}  // namespace tunectl::ops
