#include "ir/const_bound.h"

#include <algorithm>

#include "ir/error.h"
#include "ir/scalar_math.h"

namespace tunectl::ir {

namespace {

constexpr int64_t kNegInf = IntBound::kNegInf;
constexpr int64_t kPosInf = IntBound::kPosInf;

bool is_inf(int64_t v) { return v == kNegInf || v == kPosInf; }

// Values outside the open int64 range become the matching infinity.
int64_t clamp(__int128 v) {
  if (v <= kNegInf) return kNegInf;
  if (v >= kPosInf) return kPosInf;
  return static_cast<int64_t>(v);
}

int64_t sat_add(int64_t a, int64_t b) {
  // Infinities absorb; opposite infinities cannot meet for the min (or max)
  // side of a sum, callers pass like sides together. If they do, the result
  // is the widest answer for the side being computed by the caller.
  if (is_inf(a)) return a;
  if (is_inf(b)) return b;
  return clamp(static_cast<__int128>(a) + b);
}

int64_t sat_neg(int64_t a) {
  if (a == kNegInf) return kPosInf;
  if (a == kPosInf) return kNegInf;
  return -a;
}

int64_t sat_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (is_inf(a) || is_inf(b)) return (a < 0) != (b < 0) ? kNegInf : kPosInf;
  return clamp(static_cast<__int128>(a) * b);
}

// floor(a / b) for a positive finite b, a possibly infinite.
int64_t sat_floordiv(int64_t a, int64_t b) {
  if (is_inf(a)) return (a < 0) != (b < 0) ? kNegInf : kPosInf;
  return floordiv_int(a, b);
}

IntBound type_range(DType t) {
  if (t == DType::Bool) return {0, 1};
  if (!is_int(t) || dtype_bytes(t) == 8) return IntBound::everything();
  const int bits = 8 * dtype_bytes(t);
  if (is_unsigned(t)) return {0, (int64_t{1} << bits) - 1};
  return {-(int64_t{1} << (bits - 1)), (int64_t{1} << (bits - 1)) - 1};
}

IntBound from_corners(std::initializer_list<int64_t> vs) {
  return {std::min(vs), std::max(vs)};
}

IntBound bound_floordiv(IntBound a, IntBound b) {
  if (b.max < 0) {
    // floor(a / b) == floor(-a / -b).
    return bound_floordiv({sat_neg(a.max), sat_neg(a.min)}, {sat_neg(b.max), sat_neg(b.min)});
  }
  if (b.min <= 0) return IntBound::everything();
  if (b.max == kPosInf) {
    // An unbounded divisor: the quotient lies between the dividend and 0 (or
    // -1 for a negative dividend).
    return {a.min >= 0 ? 0 : a.min, a.max >= 0 ? a.max : -1};
  }
  // floordiv is monotone in the dividend and, for a fixed dividend sign, in
  // the divisor, so the extremes sit at the corners.
  return from_corners({sat_floordiv(a.min, b.min), sat_floordiv(a.min, b.max), sat_floordiv(a.max, b.min),
                       sat_floordiv(a.max, b.max)});
}

IntBound bound_floormod(IntBound a, IntBound b) {
  if (b.min > 0) {
    if (b.is_point() && !is_inf(b.min) && a.is_finite() &&
        floordiv_int(a.min, b.min) == floordiv_int(a.max, b.min)) {
      // The dividend stays inside one period: the remainder is exact.
      int64_t base = floordiv_int(a.min, b.min) * b.min;
      return {a.min - base, a.max - base};
    }
    if (a.min >= 0 && a.max < b.min) return a;
    return {0, b.max == kPosInf ? kPosInf : b.max - 1};
  }
  if (b.max < 0) {
    if (a.max <= 0 && a.min > b.max) return a;
    return {b.min == kNegInf ? kNegInf : b.min + 1, 0};
  }
  return IntBound::everything();
}

class BoundEvaluator {
 public:
  explicit BoundEvaluator(const VarMap<IntBound>& vars) : vars_(vars) {}

  IntBound eval(const Expr& e) {
    internal_check(bool(e), "bound of a null expression");
    DType t = e.dtype();
    // A uint64 past INT64_MAX is a negative int64: no bound is known.
    if ((!is_int(t) && t != DType::Bool) || t == DType::UInt64) return IntBound::everything();
    IntBound r = eval_node(e);
    IntBound limit = type_range(t);
    // Past the type's range the value wraps: anything in the range.
    if (r.min < limit.min || r.max > limit.max) return limit;
    return r;
  }

 private:
  IntBound eval_node(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::IntImm:
        return IntBound::point(e.as<IntImmNode>()->value);
      case ExprKind::Var: {
        auto it = vars_.find(Var(e));
        return it == vars_.end() ? type_range(e.dtype()) : it->second;
      }
      case ExprKind::Add: {
        auto [a, b] = operands<AddNode>(e);
        return {sat_add(a.min, b.min), sat_add(a.max, b.max)};
      }
      case ExprKind::Sub: {
        auto [a, b] = operands<SubNode>(e);
        return {sat_add(a.min, sat_neg(b.max)), sat_add(a.max, sat_neg(b.min))};
      }
      case ExprKind::Mul: {
        auto [a, b] = operands<MulNode>(e);
        return from_corners({sat_mul(a.min, b.min), sat_mul(a.min, b.max), sat_mul(a.max, b.min),
                             sat_mul(a.max, b.max)});
      }
      case ExprKind::FloorDiv: {
        auto [a, b] = operands<FloorDivNode>(e);
        return bound_floordiv(a, b);
      }
      case ExprKind::FloorMod: {
        auto [a, b] = operands<FloorModNode>(e);
        return bound_floormod(a, b);
      }
      case ExprKind::Min: {
        auto [a, b] = operands<MinNode>(e);
        return {std::min(a.min, b.min), std::min(a.max, b.max)};
      }
      case ExprKind::Max: {
        auto [a, b] = operands<MaxNode>(e);
        return {std::max(a.min, b.min), std::max(a.max, b.max)};
      }
      case ExprKind::Select: {
        const auto* op = e.as<SelectNode>();
        IntBound c = eval(op->cond);
        if (c.min == c.max) return eval(c.min ? op->true_value : op->false_value);
        IntBound a = eval(op->true_value), b = eval(op->false_value);
        return {std::min(a.min, b.min), std::max(a.max, b.max)};
      }
      case ExprKind::Cast: {
        const auto* op = e.as<CastNode>();
        DType from = op->value.dtype();
        if (e.dtype() == DType::Bool) return {0, 1};
        if (is_int(from) || from == DType::Bool) {
          IntBound v = eval(op->value);
          IntBound limit = type_range(e.dtype());
          // Narrowing wraps; only a value that fits keeps its bounds.
          if (v.min >= limit.min && v.max <= limit.max) return v;
        }
        return type_range(e.dtype());
      }
      case ExprKind::EQ:
      case ExprKind::NE:
      case ExprKind::LT:
      case ExprKind::LE:
      case ExprKind::GT:
      case ExprKind::GE:
      case ExprKind::And:
      case ExprKind::Or:
      case ExprKind::Not:
        return {0, 1};
      default:
        return type_range(e.dtype());
    }
  }

  template <typename Node>
  std::pair<IntBound, IntBound> operands(const Expr& e) {
    const auto* op = e.as<Node>();
    return {eval(op->a), eval(op->b)};
  }

  const VarMap<IntBound>& vars_;
};

}  // namespace

IntBound const_int_bound(const Expr& e, const VarMap<IntBound>& vars) { return BoundEvaluator(vars).eval(e); }

IntBound loop_bound(int64_t min, int64_t extent) {
  internal_check(extent >= 0, "loop of extent ", extent);
  // A loop of extent 0 (over an empty tensor) never binds its variable: any bound holds.
  return {min, sat_add(min, std::max<int64_t>(extent, 1) - 1)};
}

}  // namespace tunectl::ir
