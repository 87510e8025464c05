#include "ir/interval.h"

#include "ir/error.h"
#include "ir/simplify.h"
#include "ir/structural.h"
#include "ir/substitute.h"

namespace tunectl::ir {

bool Interval::is_point() const { return is_bounded() && structural_equal(min, max); }

namespace {

class IntervalEvaluator {
 public:
  IntervalEvaluator(const VarMap<Interval>& dom, const VarMap<IntBound>& bounds) : dom_(dom), bounds_(bounds) {
    for (const auto& [v, iv] : dom_) dom_vars_.insert(v);
  }

  Interval eval(const Expr& e) {
    internal_check(bool(e), "interval of a null expression");
    if (!uses_any_var(e, dom_vars_)) return Interval::point(simp(e));
    if (!is_int(e.dtype())) return {};
    switch (e.kind()) {
      case ExprKind::Var: {
        const Interval& iv = dom_.at(Var(e));
        return {simp(iv.min), simp(iv.max)};
      }
      case ExprKind::Add: {
        const auto* op = e.as<AddNode>();
        Interval a = eval(op->a), b = eval(op->b);
        return {combine(a.min, b.min, make_add), combine(a.max, b.max, make_add)};
      }
      case ExprKind::Sub: {
        const auto* op = e.as<SubNode>();
        Interval a = eval(op->a), b = eval(op->b);
        return {combine(a.min, b.max, make_sub), combine(a.max, b.min, make_sub)};
      }
      case ExprKind::Mul: {
        const auto* op = e.as<MulNode>();
        return eval_mul(e, eval(op->a), eval(op->b));
      }
      case ExprKind::FloorDiv: {
        const auto* op = e.as<FloorDivNode>();
        return eval_div(e, eval(op->a), eval(op->b));
      }
      case ExprKind::FloorMod: {
        const auto* op = e.as<FloorModNode>();
        return eval_mod(e, eval(op->a), eval(op->b));
      }
      case ExprKind::Min: {
        const auto* op = e.as<MinNode>();
        Interval a = eval(op->a), b = eval(op->b);
        return {combine(a.min, b.min, make_min), upper_or(a.max, b.max, make_min)};
      }
      case ExprKind::Max: {
        const auto* op = e.as<MaxNode>();
        Interval a = eval(op->a), b = eval(op->b);
        return {upper_or(a.min, b.min, make_max), combine(a.max, b.max, make_max)};
      }
      case ExprKind::Select: {
        const auto* op = e.as<SelectNode>();
        return union_of(eval(op->true_value), eval(op->false_value));
      }
      case ExprKind::Cast: {
        const auto* op = e.as<CastNode>();
        // Widening between integer types keeps the interval; anything else
        // may wrap or round.
        if (is_int(op->value.dtype()) && dtype_bytes(op->value.dtype()) <= dtype_bytes(e.dtype())) {
          Interval v = eval(op->value);
          auto cast = [&](const Expr& x) { return x ? simp(make_cast(e.dtype(), x)) : x; };
          return {cast(v.min), cast(v.max)};
        }
        return from_const_bound(e);
      }
      default:
        return from_const_bound(e);
    }
  }

  Interval union_of(const Interval& a, const Interval& b) {
    return {combine(a.min, b.min, make_min), combine(a.max, b.max, make_max)};
  }

 private:
  Expr simp(const Expr& e) { return simplify(e, bounds_); }

  // f(x, y) simplified; unbounded if either end is.
  Expr combine(const Expr& x, const Expr& y, Expr (*f)(Expr, Expr)) {
    if (!x || !y) return Expr();
    return simp(f(x, y));
  }
  // For the side where an unbounded operand does not matter (the upper end
  // of a min, the lower end of a max): the other operand alone bounds it.
  Expr upper_or(const Expr& x, const Expr& y, Expr (*f)(Expr, Expr)) {
    if (!x) return y;
    if (!y) return x;
    return simp(f(x, y));
  }

  static const int64_t* point_const(const Interval& iv) {
    if (!iv.is_bounded()) return nullptr;
    const int64_t* lo = as_const_int(iv.min);
    const int64_t* hi = as_const_int(iv.max);
    return lo && hi && *lo == *hi ? lo : nullptr;
  }

  Interval scale(const Interval& a, int64_t c) {
    auto mul = [&](const Expr& x) { return x ? simp(make_mul(x, make_int(c, x.dtype()))) : x; };
    if (c >= 0) return {mul(a.min), mul(a.max)};
    return {mul(a.max), mul(a.min)};
  }

  Interval eval_mul(const Expr& e, const Interval& a, const Interval& b) {
    if (const int64_t* c = point_const(b)) return scale(a, *c);
    if (const int64_t* c = point_const(a)) return scale(b, *c);
    if (a.is_point() && b.is_point()) return Interval::point(simp(make_mul(a.min, b.min)));
    return from_const_bound(e);
  }

  Interval eval_div(const Expr& e, const Interval& a, const Interval& b) {
    const int64_t* c = point_const(b);
    if (!c || *c == 0) return from_const_bound(e);
    auto div = [&](const Expr& x) { return x ? simp(make_floordiv(x, make_int(*c, x.dtype()))) : x; };
    // floordiv by a constant is monotone: increasing for c > 0.
    if (*c > 0) return {div(a.min), div(a.max)};
    return {div(a.max), div(a.min)};
  }

  Interval eval_mod(const Expr& e, const Interval& a, const Interval& b) {
    const int64_t* c = point_const(b);
    if (!c || *c == 0) return from_const_bound(e);
    DType t = e.dtype();
    if (a.is_bounded()) {
      // Both ends in one period [q*c, q*c + c - 1]: x % c is x - q*c there,
      // so it is monotone and exact.
      Expr qlo = simp(make_floordiv(a.min, make_int(*c, t)));
      Expr qhi = simp(make_floordiv(a.max, make_int(*c, t)));
      if (structural_equal(qlo, qhi)) {
        return {simp(make_floormod(a.min, make_int(*c, t))), simp(make_floormod(a.max, make_int(*c, t)))};
      }
    }
    if (*c > 0) return {make_int(0, t), make_int(*c - 1, t)};
    return {make_int(*c + 1, t), make_int(0, t)};
  }

  // The constant range of e with every dom variable bounded by the constant
  // ranges of its interval's ends: the fallback for what has no symbolic rule.
  Interval from_const_bound(const Expr& e) {
    VarMap<IntBound> vars = bounds_;
    for (const auto& [v, iv] : dom_) {
      IntBound r = IntBound::everything();
      if (iv.min) r.min = const_int_bound(iv.min, bounds_).min;
      if (iv.max) r.max = const_int_bound(iv.max, bounds_).max;
      vars[v] = r;
    }
    IntBound r = const_int_bound(e, vars);
    Interval out;
    if (r.min != IntBound::kNegInf) out.min = make_int(r.min, e.dtype());
    if (r.max != IntBound::kPosInf) out.max = make_int(r.max, e.dtype());
    return out;
  }

  const VarMap<Interval>& dom_;
  const VarMap<IntBound>& bounds_;
  VarSet dom_vars_;
};

}  // namespace

Interval eval_interval(const Expr& e, const VarMap<Interval>& dom, const VarMap<IntBound>& bounds) {
  return IntervalEvaluator(dom, bounds).eval(e);
}

Interval union_interval(const Interval& a, const Interval& b, const VarMap<IntBound>& bounds) {
  VarMap<Interval> none;
  return IntervalEvaluator(none, bounds).union_of(a, b);
}

}  // namespace tunectl::ir
