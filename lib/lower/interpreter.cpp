#include "lower/interpreter.h"

#include <cmath>
#include <limits>
#include <memory>
#include <unordered_map>

#include "ir/error.h"
#include "ir/printer.h"
#include "ir/scalar_math.h"

namespace tunectl::lower {

namespace {

using namespace ir;

// A scalar: floats live in f, integers and booleans in i; the expression's
// dtype says which.
struct Value {
  int64_t i = 0;
  double f = 0;
};

// Rounds a float result to its type, so Float32 math matches float hardware.
double round_to(DType t, double v) { return t == DType::Float32 ? static_cast<double>(static_cast<float>(v)) : v; }

int64_t wrap_int(DType t, int64_t v) { return t == DType::Int32 ? static_cast<int32_t>(v) : v; }

double math_call(MathFunc f, DType t, const std::vector<double>& a) {
  double y = a.size() > 1 ? a[1] : 0.0;
  if (t == DType::Float32) return eval_math<float>(f, static_cast<float>(a[0]), static_cast<float>(y));
  return eval_math<double>(f, a[0], y);
}

class Interpreter {
 public:
  void bind(const Buffer& b, runtime::NDArray* a) { buffers_[b.get()] = a; }

  void exec(const Stmt& s) {
    switch (s.kind()) {
      case StmtKind::For: {
        const auto* op = s.as<ForNode>();
        int64_t lo = eval(op->min).i, n = eval(op->extent).i;
        int64_t& slot = vars_[op->var.get()];
        for (int64_t v = lo; v < lo + n; ++v) {
          slot = v;
          exec(op->body);
        }
        vars_.erase(op->var.get());
        return;
      }
      case StmtKind::Store: {
        const auto* op = s.as<StoreNode>();
        runtime::NDArray* a = lookup(op->buffer);
        int64_t idx = checked_offset(op->buffer, op->indices);
        Value v = eval(op->value);
        a->set(idx, is_float(op->buffer->dtype) ? v.f : static_cast<double>(v.i));
        return;
      }
      case StmtKind::Allocate: {
        const auto* op = s.as<AllocateNode>();
        runtime::NDArray scratch(op->buffer->dtype, op->buffer->shape);
        double poison = is_float(op->buffer->dtype) ? std::numeric_limits<double>::quiet_NaN()
                        : op->buffer->dtype == DType::Bool ? 1.0
                                                            : static_cast<double>(std::numeric_limits<int32_t>::max());
        for (int64_t i = 0; i < scratch.num_elements(); ++i) scratch.set(i, poison);
        auto prev = buffers_.find(op->buffer.get());
        internal_check(prev == buffers_.end(), "interpreter: buffer ", op->buffer->name, " allocated twice");
        buffers_[op->buffer.get()] = &scratch;
        exec(op->body);
        buffers_.erase(op->buffer.get());
        return;
      }
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
        return;
    }
    internal_fail("interpreter: unknown statement kind");
  }

 private:
  runtime::NDArray* lookup(const Buffer& b) {
    auto it = buffers_.find(b.get());
    internal_check(it != buffers_.end(), "interpreter: buffer ", b->name, " is neither an argument nor allocated");
    return it->second;
  }

  int64_t checked_offset(const Buffer& b, const std::vector<Expr>& indices) {
    internal_check(indices.size() == 1, "interpreter: access to ", b->name, " is not flattened");
    int64_t idx = eval(indices[0]).i;
    internal_check(idx >= 0 && idx < b->num_elements(), "interpreter: index ", idx, " out of range of buffer ",
                   b->name, " (", b->num_elements(), " elements), in ", to_string(indices[0]));
    return idx;
  }

  Value eval(const Expr& e) {
    DType t = e.dtype();
    switch (e.kind()) {
      case ExprKind::IntImm: return {e.as<IntImmNode>()->value, 0};
      case ExprKind::FloatImm: return {0, round_to(t, e.as<FloatImmNode>()->value)};
      case ExprKind::Var: {
        auto it = vars_.find(e.get());
        internal_check(it != vars_.end(), "interpreter: unbound variable ", e.as<VarNode>()->name);
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
        if (is_float(t)) return {0, round_to(t, from_float ? v.f : static_cast<double>(v.i))};
        if (t == DType::Bool) return {from_float ? v.f != 0 : v.i != 0, 0};
        return {wrap_int(t, from_float ? static_cast<int64_t>(v.f) : v.i), 0};
      }
      case ExprKind::Call: {
        const auto* op = e.as<CallNode>();
        std::vector<double> args;
        for (const Expr& a : op->args) args.push_back(eval(a).f);
        return {0, round_to(t, math_call(op->func, t, args))};
      }
      case ExprKind::Load: {
        const auto* op = e.as<LoadNode>();
        runtime::NDArray* a = lookup(op->buffer);
        double v = a->get(checked_offset(op->buffer, op->indices));
        return is_float(t) ? Value{0, v} : Value{static_cast<int64_t>(v), 0};
      }
      case ExprKind::Reduce:
        internal_fail("interpreter: Reduce left in lowered IR");
      default:
        return eval_binary(e);
    }
  }

  Value eval_binary(const Expr& e) {
    // Every remaining kind is a BinaryNode; they share one layout.
    const auto* op = static_cast<const AddNode*>(e.get());
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
      switch (e.kind()) {
        case ExprKind::Add: return {wrap_int(ot, x + y), 0};
        case ExprKind::Sub: return {wrap_int(ot, x - y), 0};
        case ExprKind::Mul: return {wrap_int(ot, x * y), 0};
        case ExprKind::FloorDiv:
          internal_check(y != 0, "interpreter: division by zero in ", to_string(e));
          return {floordiv_int(x, y), 0};
        case ExprKind::FloorMod:
          internal_check(y != 0, "interpreter: division by zero in ", to_string(e));
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

  std::unordered_map<const ExprNode*, int64_t> vars_;
  std::unordered_map<const BufferNode*, runtime::NDArray*> buffers_;
};

}  // namespace

void interpret(const LoweredFunc& func, const std::vector<runtime::NDArray*>& args) {
  internal_check(args.size() == func.args.size(), "interpret ", func.name, ": ", args.size(), " arrays for ",
                 func.args.size(), " arguments");
  Interpreter in;
  for (size_t i = 0; i < args.size(); ++i) {
    const Buffer& b = func.args[i];
    internal_check(args[i]->dtype() == b->dtype && args[i]->shape() == b->shape, "interpret ", func.name,
                   ": array ", i, " does not match argument ", b->name);
    in.bind(b, args[i]);
  }
  in.exec(func.body);
}

void interpret_with_packing(const LoweredFunc& func, std::vector<runtime::NDArray*> args) {
  std::vector<runtime::NDArray> packed;
  packed.reserve(func.packings.size());
  for (const InputPacking& p : func.packings) {
    const ir::Buffer& b = func.args.at(p.arg);
    packed.emplace_back(b->dtype, b->shape);
    interpret(p.func, {args.at(p.arg), &packed.back()});
    args[p.arg] = &packed.back();
  }
  interpret(func, args);
}

}  // namespace tunectl::lower
