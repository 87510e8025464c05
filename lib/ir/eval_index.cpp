// Integer index evaluation (eval_index.h).
#include "ir/eval_index.h"

#include <algorithm>

#include "ir/scalar_math.h"

namespace tunectl::ir {

namespace {

// Division by zero (an index this evaluator cannot see through) gives 0.
int64_t floor_div(int64_t a, int64_t b) { return b == 0 ? 0 : floordiv_int(a, b); }
int64_t floor_mod(int64_t a, int64_t b) { return b == 0 ? 0 : floormod_int(a, b); }

}  // namespace

int64_t eval_index(const Expr& e, const IndexEnv& env) {
  if (auto* imm = e.as<IntImmNode>()) return imm->value;
  if (auto* v = e.as<VarNode>()) {
    auto it = env.find(v);
    return it == env.end() ? 0 : it->second;
  }
  if (auto* c = e.as<CastNode>()) return eval_index(c->value, env);
  if (auto* s = e.as<SelectNode>()) {
    return eval_index(s->cond, env) != 0 ? eval_index(s->true_value, env) : eval_index(s->false_value, env);
  }
  auto binary = [&](const auto* op, auto f) { return f(eval_index(op->a, env), eval_index(op->b, env)); };
  switch (e.kind()) {
    case ExprKind::Add: return binary(e.as<AddNode>(), [](int64_t a, int64_t b) { return a + b; });
    case ExprKind::Sub: return binary(e.as<SubNode>(), [](int64_t a, int64_t b) { return a - b; });
    case ExprKind::Mul: return binary(e.as<MulNode>(), [](int64_t a, int64_t b) { return a * b; });
    case ExprKind::FloorDiv: return binary(e.as<FloorDivNode>(), floor_div);
    case ExprKind::FloorMod:
      return binary(e.as<FloorModNode>(), floor_mod);
    case ExprKind::Min: return binary(e.as<MinNode>(), [](int64_t a, int64_t b) { return std::min(a, b); });
    case ExprKind::Max: return binary(e.as<MaxNode>(), [](int64_t a, int64_t b) { return std::max(a, b); });
    case ExprKind::LT: return binary(e.as<LTNode>(), [](int64_t a, int64_t b) -> int64_t { return a < b; });
    case ExprKind::LE: return binary(e.as<LENode>(), [](int64_t a, int64_t b) -> int64_t { return a <= b; });
    case ExprKind::GT: return binary(e.as<GTNode>(), [](int64_t a, int64_t b) -> int64_t { return a > b; });
    case ExprKind::GE: return binary(e.as<GENode>(), [](int64_t a, int64_t b) -> int64_t { return a >= b; });
    case ExprKind::EQ: return binary(e.as<EQNode>(), [](int64_t a, int64_t b) -> int64_t { return a == b; });
    case ExprKind::NE: return binary(e.as<NENode>(), [](int64_t a, int64_t b) -> int64_t { return a != b; });
    case ExprKind::And: return binary(e.as<AndNode>(), [](int64_t a, int64_t b) -> int64_t { return a && b; });
    case ExprKind::Or: return binary(e.as<OrNode>(), [](int64_t a, int64_t b) -> int64_t { return a || b; });
    default: return 0;
  }
}

}  // namespace tunectl::ir
