#include "ir/const_fold.h"

#include <cmath>
#include <optional>

#include "ir/error.h"
#include "ir/linear_sum.h"
#include "ir/scalar_math.h"

namespace tunectl::ir {

namespace {

std::optional<int64_t> int_value(const Expr& e) {
  if (const int64_t* v = as_const_int(e)) return *v;
  return std::nullopt;
}
std::optional<double> float_value(const Expr& e) {
  if (const auto* f = e.as<FloatImmNode>()) return f->value;
  return std::nullopt;
}

// An integer of type t holding v wrapped to t's width.
Expr int_result(DType t, int64_t v) { return make_int(wrap_to(t, v), t); }

Expr float_result(DType t, double v) {
  return make_float(round_to_float(t, v), t);
}

Expr fold_int_binary(ExprKind k, DType t, int64_t a, int64_t b) {
  // A uint64 past INT64_MAX is held as a negative int64: only the wrapping
  // arithmetic of add, sub and mul folds it.
  if (t == DType::UInt64 && (a < 0 || b < 0) && k != ExprKind::Add && k != ExprKind::Sub && k != ExprKind::Mul &&
      k != ExprKind::EQ && k != ExprKind::NE)
    return Expr();
  switch (k) {
    case ExprKind::Add: return int_result(t, wrap_add(a, b));
    case ExprKind::Sub: return int_result(t, wrap_add(a, wrap_mul(b, -1)));
    case ExprKind::Mul: return int_result(t, wrap_mul(a, b));
    case ExprKind::FloorDiv:
      if (b == 0) return Expr();
      return int_result(t, b == -1 ? wrap_mul(a, -1) : floordiv_int(a, b));
    case ExprKind::FloorMod:
      if (b == 0) return Expr();
      return int_result(t, floormod_int(a, b));
    case ExprKind::Min: return int_result(t, std::min(a, b));
    case ExprKind::Max: return int_result(t, std::max(a, b));
    case ExprKind::EQ: return make_bool(a == b);
    case ExprKind::NE: return make_bool(a != b);
    case ExprKind::LT: return make_bool(a < b);
    case ExprKind::LE: return make_bool(a <= b);
    case ExprKind::GT: return make_bool(a > b);
    case ExprKind::GE: return make_bool(a >= b);
    case ExprKind::And: return make_bool(a && b);
    case ExprKind::Or: return make_bool(a || b);
    default: return Expr();
  }
}

// Float arithmetic in the type's precision: float32 operands are exact floats,
// so computing in float and widening gives the float32 result.
template <typename F>
Expr fold_float_binary(ExprKind k, DType t, F a, F b) {
  switch (k) {
    case ExprKind::Add: return float_result(t, a + b);
    case ExprKind::Sub: return float_result(t, a - b);
    case ExprKind::Mul: return float_result(t, a * b);
    case ExprKind::Div: return float_result(t, a / b);
    case ExprKind::Min:
    case ExprKind::Max:
      // NaN handling of min/max differs between targets; leave it to them.
      if (std::isnan(a) || std::isnan(b)) return Expr();
      return float_result(t, k == ExprKind::Min ? std::min(a, b) : std::max(a, b));
    case ExprKind::EQ: return make_bool(a == b);
    case ExprKind::NE: return make_bool(a != b);
    case ExprKind::LT: return make_bool(a < b);
    case ExprKind::LE: return make_bool(a <= b);
    case ExprKind::GT: return make_bool(a > b);
    case ExprKind::GE: return make_bool(a >= b);
    default: return Expr();
  }
}


Expr fold_cast(DType to, const Expr& v) {
  if (auto i = int_value(v)) {
    if (is_float(to)) return float_result(to, static_cast<double>(*i));
    return int_result(to, *i);
  }
  auto f = float_value(v);
  if (!f) return Expr();
  if (is_float(to)) return float_result(to, *f);
  if (to == DType::Bool) return make_bool(*f != 0.0);
  // Truncation toward zero; out of range (or NaN) is undefined in the target.
  double limit = to == DType::Int32 ? 2147483648.0 : 9223372036854775808.0;
  if (!(std::fabs(*f) < limit)) return Expr();
  return int_result(to, static_cast<int64_t>(*f));
}

template <typename Node>
Expr fold_binary(const Expr& e) {
  const auto* op = e.as<Node>();
  DType t = op->a.dtype();
  if (auto a = int_value(op->a), b = int_value(op->b); a && b) return fold_int_binary(Node::kKind, e.dtype(), *a, *b);
  auto a = float_value(op->a), b = float_value(op->b);
  if (!a || !b) return Expr();
  if (t == DType::Float32 || t == DType::Float16)
    return fold_float_binary<float>(Node::kKind, e.dtype(), static_cast<float>(*a), static_cast<float>(*b));
  return fold_float_binary<double>(Node::kKind, e.dtype(), *a, *b);
}

}  // namespace

Expr const_fold(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
      return e;
#define TUNECTL_FOLD_BINARY(name) \
  case ExprKind::name:            \
    return fold_binary<name##Node>(e);
      TUNECTL_BINARY_NODES(TUNECTL_FOLD_BINARY)
#undef TUNECTL_FOLD_BINARY
    case ExprKind::Not: {
      auto a = int_value(e.as<NotNode>()->a);
      return a ? make_bool(*a == 0) : Expr();
    }
    case ExprKind::Select: {
      const auto* op = e.as<SelectNode>();
      auto c = int_value(op->cond);
      if (!c) return Expr();
      const Expr& chosen = *c ? op->true_value : op->false_value;
      return chosen.as<IntImmNode>() || chosen.as<FloatImmNode>() ? chosen : Expr();
    }
    case ExprKind::Cast:
      return fold_cast(e.dtype(), e.as<CastNode>()->value);
    case ExprKind::Call: {
      const auto* op = e.as<CallNode>();
      std::vector<double> args;
      for (const auto& a : op->args) {
        auto v = float_value(a);
        if (!v) return Expr();
        args.push_back(*v);
      }
      double y = args.size() > 1 ? args[1] : 0.0;
      if (e.dtype() == DType::Float32 || e.dtype() == DType::Float16)
        return float_result(e.dtype(), eval_math<float>(op->func, static_cast<float>(args[0]), static_cast<float>(y)));
      return float_result(e.dtype(), eval_math<double>(op->func, args[0], y));
    }
    default:
      return Expr();
  }
}

}  // namespace tunectl::ir
