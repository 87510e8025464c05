#include "ir/expr.h"

#include <cmath>
#include <limits>

#include "ir/error.h"

namespace tunectl::ir {

std::string_view to_string(DType t) {
  switch (t) {
#define TUNECTL_DTYPE_CASE(name, text, bytes) \
  case DType::name:                           \
    return text;
    TUNECTL_DTYPES(TUNECTL_DTYPE_CASE)
#undef TUNECTL_DTYPE_CASE
  }
  internal_fail("bad dtype");
}

DType dtype_from_string(std::string_view s) {
#define TUNECTL_DTYPE_PARSE(name, text, bytes) \
  if (s == text) return DType::name;
  TUNECTL_DTYPES(TUNECTL_DTYPE_PARSE)
#undef TUNECTL_DTYPE_PARSE
  user_fail("unknown dtype '", s, "'");
}

int dtype_bytes(DType t) {
  switch (t) {
#define TUNECTL_DTYPE_CASE(name, text, bytes) \
  case DType::name:                           \
    return bytes;
    TUNECTL_DTYPES(TUNECTL_DTYPE_CASE)
#undef TUNECTL_DTYPE_CASE
  }
  internal_fail("bad dtype");
}

const char* to_string(ExprKind k) {
  switch (k) {
#define TUNECTL_KIND_CASE(name) \
  case ExprKind::name:          \
    return #name;
    TUNECTL_EXPR_NODES(TUNECTL_KIND_CASE)
#undef TUNECTL_KIND_CASE
  }
  internal_fail("bad expr kind");
}

const char* to_string(MathFunc f) {
  switch (f) {
#define TUNECTL_MATH_CASE(name, arity) \
  case MathFunc::name:                 \
    return #name;
    TUNECTL_MATH_FUNCS(TUNECTL_MATH_CASE)
#undef TUNECTL_MATH_CASE
  }
  internal_fail("bad math func");
}

int arity(MathFunc f) {
  switch (f) {
#define TUNECTL_MATH_CASE(name, n) \
  case MathFunc::name:             \
    return n;
    TUNECTL_MATH_FUNCS(TUNECTL_MATH_CASE)
#undef TUNECTL_MATH_CASE
  }
  internal_fail("bad math func");
}

MathFunc math_func_from_string(const std::string& s) {
#define TUNECTL_MATH_PARSE(name, n) \
  if (s == #name) return MathFunc::name;
  TUNECTL_MATH_FUNCS(TUNECTL_MATH_PARSE)
#undef TUNECTL_MATH_PARSE
  user_fail("unknown math function '", s, "'");
}

const char* to_string(ReduceOp op) {
  switch (op) {
#define TUNECTL_REDUCE_CASE(name) \
  case ReduceOp::name:            \
    return #name;
    TUNECTL_REDUCE_OPS(TUNECTL_REDUCE_CASE)
#undef TUNECTL_REDUCE_CASE
  }
  internal_fail("bad reduce op");
}

ReduceOp reduce_op_from_string(const std::string& s) {
#define TUNECTL_REDUCE_PARSE(name) \
  if (s == #name) return ReduceOp::name;
  TUNECTL_REDUCE_OPS(TUNECTL_REDUCE_PARSE)
#undef TUNECTL_REDUCE_PARSE
  user_fail("unknown reduction '", s, "'");
}

const char* to_string(MemScope s) {
  switch (s) {
#define TUNECTL_SCOPE_CASE(name, text) \
  case MemScope::name:                 \
    return text;
    TUNECTL_MEM_SCOPES(TUNECTL_SCOPE_CASE)
#undef TUNECTL_SCOPE_CASE
  }
  internal_fail("bad scope");
}

MemScope mem_scope_from_string(const std::string& s) {
#define TUNECTL_SCOPE_PARSE(name, text) \
  if (s == text) return MemScope::name;
  TUNECTL_MEM_SCOPES(TUNECTL_SCOPE_PARSE)
#undef TUNECTL_SCOPE_PARSE
  user_fail("unknown memory scope '", s, "'");
}

const char* to_string(IterKind k) { return k == IterKind::Spatial ? "spatial" : "reduce"; }

Expr::Expr(int v) : Expr(make_int(v)) {}
Expr::Expr(int64_t v) : Expr(make_int(v)) {}
Expr::Expr(double v) : Expr(make_float(v)) {}

Var::Var(std::string name, DType t) : Expr(std::make_shared<VarNode>(t, std::move(name))) {}
Var::Var(const Expr& e) : Expr(e) { internal_check(e.as<VarNode>() != nullptr, "Var from non-var ", to_string(e.kind())); }

int64_t BufferNode::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Buffer::Buffer(std::string name, DType dtype, std::vector<int64_t> shape, MemScope scope, std::vector<int> axis_order) {
  // Empty buffers (a dimension of 0) exist for the reference evaluator and
  // constant folding; the executor compiles no kernel that reads one.
  for (int64_t d : shape) user_check(d >= 0, "buffer '", name, "' has negative dimension ", d);
  internal_check(axis_order.empty() || axis_order.size() == shape.size(), "buffer '", name, "': an axis order of ",
                 axis_order.size(), " axes for ", shape.size(), " dimensions");
  node_ = std::make_shared<BufferNode>(BufferNode{std::move(name), dtype, std::move(shape), scope, std::move(axis_order)});
}

Expr make_int(int64_t v, DType t) {
  internal_check(is_int(t) || t == DType::Bool, "make_int of ", to_string(t));
  return Expr(std::make_shared<IntImmNode>(t, wrap_to(t, v)));
}

Expr make_float(double v, DType t) {
  internal_check(is_float(t), "make_float of ", to_string(t));
  return Expr(std::make_shared<FloatImmNode>(t, v));
}

Expr make_bool(bool v) { return make_int(v ? 1 : 0, DType::Bool); }

Expr make_const(DType t, double v) {
  if (is_float(t)) return make_float(v, t);
  return make_int(static_cast<int64_t>(v), t);
}

Expr make_zero(DType t) { return make_const(t, 0); }

Expr reduce_identity(ReduceOp op, DType t) {
  switch (op) {
    case ReduceOp::Sum:
      return make_zero(t);
    case ReduceOp::Prod:
      return make_const(t, 1);
    case ReduceOp::Max:
      if (t == DType::Bool) return make_bool(false);
      if (is_float(t)) return make_float(-std::numeric_limits<double>::infinity(), t);
      if (is_unsigned(t)) return make_int(0, t);
      // The smallest value of the width: the sign bit alone.
      return make_int(int64_t{-1} << (8 * dtype_bytes(t) - 1), t);
    case ReduceOp::Min:
      if (t == DType::Bool) return make_bool(true);
      if (is_float(t)) return make_float(std::numeric_limits<double>::infinity(), t);
      if (is_unsigned(t)) return make_int(-1, t);  // all ones
      return make_int(static_cast<int64_t>((uint64_t{1} << (8 * dtype_bytes(t) - 1)) - 1), t);
  }
  internal_fail("bad reduce op");
}

namespace {

// Converts an immediate to type t; other expressions must already have it.
Expr coerce_immediate(const Expr& e, DType t) {
  if (e.dtype() == t) return e;
  if (const auto* i = e.as<IntImmNode>()) return make_const(t, static_cast<double>(i->value));
  if (const auto* f = e.as<FloatImmNode>()) {
    if (is_float(t)) return make_float(f->value, t);
  }
  return e;
}

// Brings a and b to one type (converting immediates) and checks they agree.
DType unify(Expr& a, Expr& b, const char* what) {
  internal_check(a && b, "null operand of ", what);
  if (a.dtype() != b.dtype()) {
    if (a.as<IntImmNode>() || a.as<FloatImmNode>()) a = coerce_immediate(a, b.dtype());
    else if (b.as<IntImmNode>() || b.as<FloatImmNode>()) b = coerce_immediate(b, a.dtype());
  }
  internal_check(a.dtype() == b.dtype(), "operand types of ", what, " differ: ", to_string(a.dtype()), " vs ",
                 to_string(b.dtype()));
  return a.dtype();
}

template <ExprKind K>
Expr make_arith(Expr a, Expr b) {
  DType t = unify(a, b, to_string(K));
  return Expr(std::make_shared<BinaryNode<K>>(t, std::move(a), std::move(b)));
}

template <ExprKind K>
Expr make_compare(Expr a, Expr b) {
  unify(a, b, to_string(K));
  return Expr(std::make_shared<BinaryNode<K>>(DType::Bool, std::move(a), std::move(b)));
}

template <ExprKind K>
Expr make_logic(Expr a, Expr b) {
  internal_check(a.dtype() == DType::Bool && b.dtype() == DType::Bool, to_string(K), " needs bool operands");
  return Expr(std::make_shared<BinaryNode<K>>(DType::Bool, std::move(a), std::move(b)));
}

}  // namespace

Expr make_add(Expr a, Expr b) { return make_arith<ExprKind::Add>(std::move(a), std::move(b)); }
Expr make_sub(Expr a, Expr b) { return make_arith<ExprKind::Sub>(std::move(a), std::move(b)); }
Expr make_mul(Expr a, Expr b) { return make_arith<ExprKind::Mul>(std::move(a), std::move(b)); }
Expr make_div(Expr a, Expr b) {
  Expr e = make_arith<ExprKind::Div>(std::move(a), std::move(b));
  internal_check(is_float(e.dtype()), "Div is for floats; use floordiv for integers");
  return e;
}
Expr make_floordiv(Expr a, Expr b) {
  Expr e = make_arith<ExprKind::FloorDiv>(std::move(a), std::move(b));
  internal_check(is_int(e.dtype()), "FloorDiv is for integers");
  return e;
}
Expr make_floormod(Expr a, Expr b) {
  Expr e = make_arith<ExprKind::FloorMod>(std::move(a), std::move(b));
  internal_check(is_int(e.dtype()), "FloorMod is for integers");
  return e;
}
Expr make_min(Expr a, Expr b) { return make_arith<ExprKind::Min>(std::move(a), std::move(b)); }
Expr make_max(Expr a, Expr b) { return make_arith<ExprKind::Max>(std::move(a), std::move(b)); }
Expr make_eq(Expr a, Expr b) { return make_compare<ExprKind::EQ>(std::move(a), std::move(b)); }
Expr make_ne(Expr a, Expr b) { return make_compare<ExprKind::NE>(std::move(a), std::move(b)); }
Expr make_lt(Expr a, Expr b) { return make_compare<ExprKind::LT>(std::move(a), std::move(b)); }
Expr make_le(Expr a, Expr b) { return make_compare<ExprKind::LE>(std::move(a), std::move(b)); }
Expr make_gt(Expr a, Expr b) { return make_compare<ExprKind::GT>(std::move(a), std::move(b)); }
Expr make_ge(Expr a, Expr b) { return make_compare<ExprKind::GE>(std::move(a), std::move(b)); }
Expr make_and(Expr a, Expr b) { return make_logic<ExprKind::And>(std::move(a), std::move(b)); }
Expr make_or(Expr a, Expr b) { return make_logic<ExprKind::Or>(std::move(a), std::move(b)); }

Expr make_binary(ExprKind k, Expr a, Expr b) {
  switch (k) {
    case ExprKind::Add: return make_add(std::move(a), std::move(b));
    case ExprKind::Sub: return make_sub(std::move(a), std::move(b));
    case ExprKind::Mul: return make_mul(std::move(a), std::move(b));
    case ExprKind::Div: return make_div(std::move(a), std::move(b));
    case ExprKind::FloorDiv: return make_floordiv(std::move(a), std::move(b));
    case ExprKind::FloorMod: return make_floormod(std::move(a), std::move(b));
    case ExprKind::Min: return make_min(std::move(a), std::move(b));
    case ExprKind::Max: return make_max(std::move(a), std::move(b));
    case ExprKind::EQ: return make_eq(std::move(a), std::move(b));
    case ExprKind::NE: return make_ne(std::move(a), std::move(b));
    case ExprKind::LT: return make_lt(std::move(a), std::move(b));
    case ExprKind::LE: return make_le(std::move(a), std::move(b));
    case ExprKind::GT: return make_gt(std::move(a), std::move(b));
    case ExprKind::GE: return make_ge(std::move(a), std::move(b));
    case ExprKind::And: return make_and(std::move(a), std::move(b));
    case ExprKind::Or: return make_or(std::move(a), std::move(b));
    default: internal_fail("make_binary of non-binary kind ", to_string(k));
  }
}

Expr make_not(Expr a) {
  internal_check(a.dtype() == DType::Bool, "Not needs a bool operand");
  return Expr(std::make_shared<NotNode>(std::move(a)));
}

Expr make_select(Expr cond, Expr t, Expr f) {
  internal_check(cond.dtype() == DType::Bool, "Select condition must be bool");
  unify(t, f, "Select");
  return Expr(std::make_shared<SelectNode>(std::move(cond), std::move(t), std::move(f)));
}

Expr make_cast(DType t, Expr v) {
  internal_check(bool(v), "cast of null");
  if (v.dtype() == t) return v;
  return Expr(std::make_shared<CastNode>(t, std::move(v)));
}

bool is_bit_func(MathFunc f) {
  return f == MathFunc::bitwise_not || f == MathFunc::bitwise_and || f == MathFunc::bitwise_or ||
         f == MathFunc::bitwise_xor || f == MathFunc::shift_left || f == MathFunc::shift_right;
}

Expr make_call(MathFunc f, std::vector<Expr> args) {
  internal_check(static_cast<int>(args.size()) == arity(f), to_string(f), " takes ", arity(f), " arguments");
  const bool exact_on_ints = f == MathFunc::abs || f == MathFunc::floor || f == MathFunc::ceil || f == MathFunc::round;
  if (is_bit_func(f)) {
    internal_check(is_int(args[0].dtype()), to_string(f), " needs an integer argument");
  } else {
    internal_check(is_float(args[0].dtype()) || (exact_on_ints && is_int(args[0].dtype())), to_string(f),
                   " needs a float argument");
  }
  DType t = args[0].dtype();
  for (auto& a : args) {
    a = coerce_immediate(a, t);
    internal_check(a.dtype() == t, to_string(f), " arguments differ in type");
  }
  return Expr(std::make_shared<CallNode>(t, f, std::move(args)));
}

Expr make_load(Buffer b, std::vector<Expr> indices) {
  internal_check(bool(b), "load of null buffer");
  internal_check(indices.size() == b->shape.size() || indices.size() == 1, "load of ", b->name, " with ",
                 indices.size(), " indices for ", b->shape.size(), " dimensions");
  for (auto& i : indices) {
    i = coerce_immediate(i, kIndexType);
    internal_check(i.dtype() == kIndexType, "index of ", b->name, " is not int64");
  }
  return Expr(std::make_shared<LoadNode>(std::move(b), std::move(indices)));
}

Expr make_reduce(ReduceOp op, Expr source, std::vector<IterVar> axes) {
  internal_check(bool(source), "reduce of null");
  internal_check(!axes.empty(), "reduce without axes");
  for (const auto& a : axes) internal_check(a.kind == IterKind::Reduce && a.extent >= 0, "bad reduce axis");
  return Expr(std::make_shared<ReduceNode>(op, std::move(source), std::move(axes)));
}

Expr operator+(Expr a, Expr b) { return make_add(std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return make_sub(std::move(a), std::move(b)); }
Expr operator-(Expr a) {
  DType t = a.dtype();  // read before the move below
  return make_sub(make_zero(t), std::move(a));
}
Expr operator*(Expr a, Expr b) { return make_mul(std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) {
  unify(a, b, "/");
  return is_float(a.dtype()) ? make_div(std::move(a), std::move(b)) : make_floordiv(std::move(a), std::move(b));
}
Expr operator%(Expr a, Expr b) { return make_floormod(std::move(a), std::move(b)); }
Expr operator<(Expr a, Expr b) { return make_lt(std::move(a), std::move(b)); }
Expr operator<=(Expr a, Expr b) { return make_le(std::move(a), std::move(b)); }
Expr operator>(Expr a, Expr b) { return make_gt(std::move(a), std::move(b)); }
Expr operator>=(Expr a, Expr b) { return make_ge(std::move(a), std::move(b)); }

const int64_t* as_const_int(const Expr& e) {
  const auto* i = e.as<IntImmNode>();
  return i ? &i->value : nullptr;
}

bool is_const_int(const Expr& e, int64_t v) {
  const int64_t* c = as_const_int(e);
  return c && *c == v;
}

}  // namespace tunectl::ir
