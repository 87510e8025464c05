#include "lower/loop_interpreter.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/error.h"
#include "ir/printer.h"
#include "ir/scalar_math.h"

namespace tunectl::lower {

namespace {

using namespace ir;

// Rounds a float result to its type, so Float32 math matches float hardware.
double round_to(DType t, double v) { return round_to_float(t, v); }


double math_call(MathFunc f, DType t, const std::vector<double>& a) {
  double y = a.size() > 1 ? a[1] : 0.0;
  if (t == DType::Float32 || t == DType::Float16)
    return round_to(t, eval_math<float>(f, static_cast<float>(a[0]), static_cast<float>(y)));
  return eval_math<double>(f, a[0], y);
}

// Out of line: the message prints e, which must not happen per evaluation.
[[noreturn]] void division_by_zero(const Expr& e) { internal_fail("interpreter: division by zero in ", to_string(e)); }

// Pops what a scope pushed onto a binding stack, however the scope ends.
template <typename Stack>
struct ScopedBinding {
  Stack& stack;
  size_t size = stack.size();
  ~ScopedBinding() { stack.resize(size); }
};

template <typename Stack, typename Key>
auto find_binding(Stack& stack, const Key* key) {
  auto it = stack.rbegin();
  while (it != stack.rend() && it->first != key) ++it;
  return it;
}

}  // namespace

void LoopInterpreter::exec(const Stmt& s) {
  switch (s.kind()) {
    case StmtKind::For: {
      const auto* op = s.as<ForNode>();
      if (op->for_kind == ForKind::ThreadBinding) {
        run_bound_loop(op);
      } else {
        run_loop(op);
      }
      return;
    }
    case StmtKind::Store: {
      const auto* op = s.as<StoreNode>();
      runtime::NDArray* a = lookup(op->buffer);
      int64_t idx = checked_offset(op->buffer, op->indices);
      Value v = eval(op->value);
      const bool fp = is_float(op->buffer->dtype);
      access(op->buffer, idx, /*is_write=*/true, fp ? v.f : static_cast<double>(v.i));
      fp ? a->set(idx, v.f) : a->set_int(idx, v.i);
      return;
    }
    case StmtKind::Allocate:
      allocate(s.as<AllocateNode>());
      return;
    case StmtKind::Seq:
      for (const Stmt& c : s.as<SeqNode>()->stmts) exec(c);
      return;
    case StmtKind::IfThenElse: {
      const auto* op = s.as<IfThenElseNode>();
      if (eval(op->cond).i) exec(op->then_case);
      else if (op->else_case) exec(op->else_case);
      return;
    }
    case StmtKind::Barrier:
      barrier();
      return;
    case StmtKind::AllReduce: {
      const auto* op = s.as<AllReduceNode>();
      all_reduce(op, *lookup(op->buffer), checked_offset(op->buffer, op->indices));
      return;
    }
  }
  internal_fail("interpreter: unknown statement kind");
}

void LoopInterpreter::run_loop(const ForNode* op) {
  const int64_t lo = eval(op->min).i, n = eval(op->extent).i;
  ScopedBinding<decltype(vars_)> scope{vars_};
  const size_t slot = vars_.size();  // an index: the body's bindings may move the stack
  vars_.emplace_back(op->var.get(), lo);
  for (int64_t v = lo; v < lo + n; ++v) {
    vars_[slot].second = v;
    exec(op->body);
  }
}

void LoopInterpreter::run_with(const Var& var, int64_t value, const Stmt& body) {
  ScopedBinding<decltype(vars_)> scope{vars_};
  vars_.emplace_back(var.get(), value);
  exec(body);
}

runtime::NDArray LoopInterpreter::poisoned_scratch(const Buffer& b) {
  runtime::NDArray scratch(b->dtype, b->shape);
  const double poison = is_float(b->dtype)       ? std::numeric_limits<double>::quiet_NaN()
                        : b->dtype == DType::Bool ? 1.0
                                                  : static_cast<double>(std::numeric_limits<int32_t>::max());
  for (int64_t i = 0; i < scratch.num_elements(); ++i) scratch.set(i, poison);
  return scratch;
}

void LoopInterpreter::allocate(const AllocateNode* op) {
  runtime::NDArray scratch = poisoned_scratch(op->buffer);
  run_with_buffer(op->buffer, &scratch, op->body);
}

void LoopInterpreter::run_with_buffer(const Buffer& b, runtime::NDArray* a, const Stmt& body) {
  internal_check(find_binding(buffers_, b.get()) == buffers_.rend(), "interpreter: buffer ", b->name,
                 " allocated twice");
  ScopedBinding<decltype(buffers_)> scope{buffers_};
  buffers_.emplace_back(b.get(), a);
  exec(body);
}

void LoopInterpreter::out_of_bounds(const Buffer& b, int64_t index, const Expr& index_expr) {
  internal_fail("interpreter: index ", index, " out of range of buffer ", b->name, " (", b->num_elements(),
                " elements), in ", to_string(index_expr));
}

runtime::NDArray* LoopInterpreter::lookup(const Buffer& b) {
  auto it = find_binding(buffers_, b.get());
  internal_check(it != buffers_.rend(), "interpreter: buffer ", b->name, " is neither an argument nor allocated");
  return it->second;
}

int64_t LoopInterpreter::checked_offset(const Buffer& b, const std::vector<Expr>& indices) {
  internal_check(indices.size() == 1, "interpreter: access to ", b->name, " is not flattened");
  int64_t idx = eval(indices[0]).i;
  if (idx < 0 || idx >= b->num_elements()) out_of_bounds(b, idx, indices[0]);
  return idx;
}

LoopInterpreter::Value LoopInterpreter::eval(const Expr& e) {
  DType t = e.dtype();
  switch (e.kind()) {
    case ExprKind::IntImm: return {e.as<IntImmNode>()->value, 0};
    case ExprKind::FloatImm: return {0, round_to(t, e.as<FloatImmNode>()->value)};
    case ExprKind::Var: {
      auto it = find_binding(vars_, e.get());
      internal_check(it != vars_.rend(), "interpreter: unbound variable ", e.as<VarNode>()->name);
      return {it->second, 0};
    }
    case ExprKind::And: {
      const auto* op = e.as<AndNode>();
      return {eval(op->a).i && eval(op->b).i, 0};
    }
    case ExprKind::Or: {
      const auto* op = e.as<OrNode>();
      return {eval(op->a).i || eval(op->b).i, 0};
    }
    case ExprKind::Not: return {!eval(e.as<NotNode>()->a).i, 0};
    case ExprKind::Select: {
      // Only the chosen branch runs: padding selects guard out-of-range loads.
      const auto* op = e.as<SelectNode>();
      return eval(op->cond).i ? eval(op->true_value) : eval(op->false_value);
    }
    case ExprKind::Cast: {
      const auto* op = e.as<CastNode>();
      Value v = eval(op->value);
      bool from_float = is_float(op->value.dtype());
      if (is_float(t)) {
        const bool from_u64 = op->value.dtype() == DType::UInt64;
        return {0, round_to(t, from_float ? v.f : from_u64 ? static_cast<double>(static_cast<uint64_t>(v.i)) : static_cast<double>(v.i))};
      }
      if (t == DType::Bool) return {from_float ? v.f != 0 : v.i != 0, 0};
      return {wrap_to(t, from_float ? static_cast<int64_t>(v.f) : v.i), 0};
    }
    case ExprKind::Call: {
      const auto* op = e.as<CallNode>();
      if (is_int(t)) {
        const int64_t y = op->args.size() > 1 ? eval(op->args[1]).i : 0;
        return {wrap_to(t, eval_math_int(op->func, eval(op->args[0]).i, y, 8 * dtype_bytes(t))), 0};
      }
      std::vector<double> args;
      for (const Expr& a : op->args) args.push_back(eval(a).f);
      return {0, round_to(t, math_call(op->func, t, args))};
    }
    case ExprKind::Load: {
      const auto* op = e.as<LoadNode>();
      runtime::NDArray* a = lookup(op->buffer);
      const int64_t idx = checked_offset(op->buffer, op->indices);
      access(op->buffer, idx, /*is_write=*/false, 0);
      return is_float(t) ? Value{0, a->get(idx)} : Value{a->get_int(idx), 0};
    }
    case ExprKind::Reduce:
      internal_fail("interpreter: Reduce left in lowered IR");
    default:
      return eval_binary(e);
  }
}

double LoopInterpreter::combine_floats(ReduceOp op, DType t, double a, double b) {
  switch (op) {
    case ReduceOp::Sum: return round_to(t, a + b);
    case ReduceOp::Prod: return round_to(t, a * b);
    case ReduceOp::Max: return std::max(a, b);
    case ReduceOp::Min: return std::min(a, b);
  }
  internal_fail("interpreter: unknown reduce op");
}

int64_t LoopInterpreter::combine_ints(ReduceOp op, DType t, int64_t a, int64_t b) {
  internal_check(t != DType::UInt64, "interpreter: combining uint64 values");  // unsigned order
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);  // wrapping arithmetic
  switch (op) {
    case ReduceOp::Sum: return wrap_to(t, static_cast<int64_t>(ua + ub));
    case ReduceOp::Prod: return wrap_to(t, static_cast<int64_t>(ua * ub));
    case ReduceOp::Max: return std::max(a, b);
    case ReduceOp::Min: return std::min(a, b);
  }
  internal_fail("interpreter: unknown reduce op");
}

LoopInterpreter::Value LoopInterpreter::eval_binary(const Expr& e) {
  // Every remaining kind is a BinaryNode.
  const auto* op = static_cast<const ir::BinaryOperands*>(e.get());
  DType ot = op->a.dtype();
  Value a = eval(op->a), b = eval(op->b);
  if (is_float(ot)) {
    double x = a.f, y = b.f;
    switch (e.kind()) {
      case ExprKind::Add: return {0, round_to(ot, x + y)};
      case ExprKind::Sub: return {0, round_to(ot, x - y)};
      case ExprKind::Mul: return {0, round_to(ot, x * y)};
      case ExprKind::Div: return {0, round_to(ot, x / y)};
      // std::min/std::max operand order, as the evaluator and codegen use.
      case ExprKind::Min: return {0, std::min(x, y)};
      case ExprKind::Max: return {0, std::max(x, y)};
      case ExprKind::EQ: return {x == y, 0};
      case ExprKind::NE: return {x != y, 0};
      case ExprKind::LT: return {x < y, 0};
      case ExprKind::LE: return {x <= y, 0};
      case ExprKind::GT: return {x > y, 0};
      case ExprKind::GE: return {x >= y, 0};
      default: break;
    }
  } else {
    int64_t x = a.i, y = b.i;
    if (ot == DType::UInt64) {
      // Held as int64 bits: order and division are unsigned.
      const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
      switch (e.kind()) {
        case ExprKind::FloorDiv:
          if (uy == 0) division_by_zero(e);
          return {static_cast<int64_t>(ux / uy), 0};
        case ExprKind::FloorMod:
          if (uy == 0) division_by_zero(e);
          return {static_cast<int64_t>(ux % uy), 0};
        case ExprKind::Min: return {static_cast<int64_t>(std::min(ux, uy)), 0};
        case ExprKind::Max: return {static_cast<int64_t>(std::max(ux, uy)), 0};
        case ExprKind::LT: return {ux < uy, 0};
        case ExprKind::LE: return {ux <= uy, 0};
        case ExprKind::GT: return {ux > uy, 0};
        case ExprKind::GE: return {ux >= uy, 0};
        default: break;  // the same bits as signed
      }
    }
    const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);  // wrapping arithmetic
    switch (e.kind()) {
      case ExprKind::Add: return {wrap_to(ot, static_cast<int64_t>(ux + uy)), 0};
      case ExprKind::Sub: return {wrap_to(ot, static_cast<int64_t>(ux - uy)), 0};
      case ExprKind::Mul: return {wrap_to(ot, static_cast<int64_t>(ux * uy)), 0};
      case ExprKind::FloorDiv:
        if (y == 0) division_by_zero(e);
        return {floordiv_int(x, y), 0};
      case ExprKind::FloorMod:
        if (y == 0) division_by_zero(e);
        return {floormod_int(x, y), 0};
      case ExprKind::Min: return {std::min(x, y), 0};
      case ExprKind::Max: return {std::max(x, y), 0};
      case ExprKind::EQ: return {x == y, 0};
      case ExprKind::NE: return {x != y, 0};
      case ExprKind::LT: return {x < y, 0};
      case ExprKind::LE: return {x <= y, 0};
      case ExprKind::GT: return {x > y, 0};
      case ExprKind::GE: return {x >= y, 0};
      default: break;
    }
  }
  internal_fail("interpreter: cannot evaluate ", to_string(e));
}


}  // namespace tunectl::lower
