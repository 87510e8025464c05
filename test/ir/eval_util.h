// A reference evaluator for integer and bool expressions, used by the
// property tests of the simplifier and of interval analysis: it shares no
// code with them, so they are checked against floor division written out.
#pragma once

#include <cstdint>
#include <random>

#include "ir/error.h"
#include "ir/expr.h"
#include "ir/var_map.h"

namespace tunectl::ir::testing {

inline int64_t ref_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline int64_t ref_floormod(int64_t a, int64_t b) { return a - ref_floordiv(a, b) * b; }

inline int64_t eval_int(const Expr& e, const VarMap<int64_t>& env) {
  auto bin = [&](const auto* op) { return std::pair{eval_int(op->a, env), eval_int(op->b, env)}; };
  switch (e.kind()) {
    case ExprKind::IntImm: return e.as<IntImmNode>()->value;
    case ExprKind::Var: return env.at(Var(e));
    case ExprKind::Add: { auto [a, b] = bin(e.as<AddNode>()); return a + b; }
    case ExprKind::Sub: { auto [a, b] = bin(e.as<SubNode>()); return a - b; }
    case ExprKind::Mul: { auto [a, b] = bin(e.as<MulNode>()); return a * b; }
    case ExprKind::FloorDiv: { auto [a, b] = bin(e.as<FloorDivNode>()); return ref_floordiv(a, b); }
    case ExprKind::FloorMod: { auto [a, b] = bin(e.as<FloorModNode>()); return ref_floormod(a, b); }
    case ExprKind::Min: { auto [a, b] = bin(e.as<MinNode>()); return std::min(a, b); }
    case ExprKind::Max: { auto [a, b] = bin(e.as<MaxNode>()); return std::max(a, b); }
    case ExprKind::EQ: { auto [a, b] = bin(e.as<EQNode>()); return a == b; }
    case ExprKind::NE: { auto [a, b] = bin(e.as<NENode>()); return a != b; }
    case ExprKind::LT: { auto [a, b] = bin(e.as<LTNode>()); return a < b; }
    case ExprKind::LE: { auto [a, b] = bin(e.as<LENode>()); return a <= b; }
    case ExprKind::GT: { auto [a, b] = bin(e.as<GTNode>()); return a > b; }
    case ExprKind::GE: { auto [a, b] = bin(e.as<GENode>()); return a >= b; }
    case ExprKind::And: { auto [a, b] = bin(e.as<AndNode>()); return a && b; }
    case ExprKind::Or: { auto [a, b] = bin(e.as<OrNode>()); return a || b; }
    case ExprKind::Not: return !eval_int(e.as<NotNode>()->a, env);
    case ExprKind::Select: {
      const auto* op = e.as<SelectNode>();
      return eval_int(op->cond, env) ? eval_int(op->true_value, env) : eval_int(op->false_value, env);
    }
    default: internal_fail("eval_int: unsupported ", to_string(e.kind()));
  }
}

// Random Int64 expressions over vars, rich in the shapes schedules produce:
// affine sums, div/mod by constants, div/mod pairs that fold back, min/max
// and selects.
class ExprGen {
 public:
  ExprGen(std::vector<Var> vars, uint32_t seed) : vars_(std::move(vars)), rng_(seed) {}

  Expr gen(int depth) {
    if (depth == 0 || pick(5) == 0) return pick(3) == 0 ? make_int(pick(17) - 8) : vars_[pick(vars_.size())];
    switch (pick(11)) {
      case 0: return gen(depth - 1) + gen(depth - 1);
      case 1: return gen(depth - 1) - gen(depth - 1);
      case 2: return gen(depth - 1) * make_int(pick(9) - 4);
      case 3: return gen(depth - 1) * gen(depth - 1);
      case 4: return gen(depth - 1) / divisor();
      case 5: return gen(depth - 1) % divisor();
      case 6: {
        Expr x = gen(depth - 1);
        int64_t c = pick(8) + 1;
        return x / c * c + x % c;
      }
      case 7: return make_min(gen(depth - 1), gen(depth - 1));
      case 8: return make_max(gen(depth - 1), gen(depth - 1));
      case 9: return make_select(cond(depth - 1), gen(depth - 1), gen(depth - 1));
      default: {
        Expr x = gen(depth - 1);
        int64_t a = pick(4) + 1, b = pick(4) + 1;
        return pick(2) ? x / a / b : x % (a * b) / a;
      }
    }
  }

  Expr cond(int depth) {
    Expr a = gen(depth), b = gen(depth);
    switch (pick(8)) {
      case 0: return a < b;
      case 1: return a <= b;
      case 2: return a > b;
      case 3: return a >= b;
      case 4: return make_eq(a, b);
      case 5: return make_ne(a, b);
      case 6: return make_and(a < b, make_not(make_eq(a, b)));
      default: return make_or(a < b, cond(0));
    }
  }

  int64_t pick(size_t n) { return static_cast<int64_t>(std::uniform_int_distribution<size_t>(0, n - 1)(rng_)); }
  int64_t in(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }

 private:
  Expr divisor() { return make_int(pick(4) == 0 ? -(pick(4) + 1) : pick(16) + 1); }

  std::vector<Var> vars_;
  std::mt19937 rng_;
};

}  // namespace tunectl::ir::testing
