// Expressions of the tensor IR: the bottom of the data flow. Compute
// definitions (te), schedules, lowering and code generation all speak in these
// nodes. Nodes are immutable and shared; they are built only through the
// checking make_* functions (or the operators below, which call them), so a
// node in hand always satisfies its invariants.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace tunectl::ir {

// The closed set of expression kinds. A new kind must be handled by every
// functor before it compiles.
#define TUNECTL_EXPR_NODES(X) \
  X(IntImm)                   \
  X(FloatImm)                 \
  X(Var)                      \
  X(Add)                      \
  X(Sub)                      \
  X(Mul)                      \
  X(Div)                      \
  X(FloorDiv)                 \
  X(FloorMod)                 \
  X(Min)                      \
  X(Max)                      \
  X(EQ)                       \
  X(NE)                       \
  X(LT)                       \
  X(LE)                       \
  X(GT)                       \
  X(GE)                       \
  X(And)                      \
  X(Or)                       \
  X(Not)                      \
  X(Select)                   \
  X(Cast)                     \
  X(Call)                     \
  X(Load)                     \
  X(Reduce)

// Binary nodes share one layout (BinaryNode, BinaryOperands); this list names them.
#define TUNECTL_BINARY_NODES(X) \
  X(Add) X(Sub) X(Mul) X(Div) X(FloorDiv) X(FloorMod) X(Min) X(Max) X(EQ) X(NE) X(LT) X(LE) \
      X(GT) X(GE) X(And) X(Or)

enum class ExprKind : uint8_t {
#define TUNECTL_KIND_ENUM(name) name,
  TUNECTL_EXPR_NODES(TUNECTL_KIND_ENUM)
#undef TUNECTL_KIND_ENUM
};

const char* to_string(ExprKind k);

// Math functions a Call may name.
#define TUNECTL_MATH_FUNCS(X) \
  X(exp, 1)                   \
  X(log, 1)                   \
  X(sqrt, 1)                  \
  X(tanh, 1)                  \
  X(erf, 1)                   \
  X(abs, 1)                   \
  X(floor, 1)                 \
  X(ceil, 1)                  \
  X(round, 1)                 \
  X(sin, 1)                   \
  X(cos, 1)                   \
  X(tan, 1)                   \
  X(asin, 1)                  \
  X(acos, 1)                  \
  X(atan, 1)                  \
  X(sinh, 1)                  \
  X(cosh, 1)                  \
  X(asinh, 1)                 \
  X(acosh, 1)                 \
  X(atanh, 1)                 \
  X(pow, 2)                   \
  X(bitwise_not, 1)           \
  X(bitwise_and, 2)           \
  X(bitwise_or, 2)            \
  X(bitwise_xor, 2)           \
  X(shift_left, 2)            \
  X(shift_right, 2)

enum class MathFunc : uint8_t {
#define TUNECTL_MATH_ENUM(name, arity) name,
  TUNECTL_MATH_FUNCS(TUNECTL_MATH_ENUM)
#undef TUNECTL_MATH_ENUM
};
const char* to_string(MathFunc f);
int arity(MathFunc f);
// The functions of integers' bits (bitwise_*, shift_*), which take integers
// only; shift_right is logical (ONNX's BitShift takes unsigned types).
bool is_bit_func(MathFunc f);
// Throws UserError for an unknown name.
MathFunc math_func_from_string(const std::string& s);

// Reduction combiners; the identity follows from the combiner and the type.
#define TUNECTL_REDUCE_OPS(X) X(Sum) X(Max) X(Min) X(Prod)
enum class ReduceOp : uint8_t {
#define TUNECTL_REDUCE_ENUM(name) name,
  TUNECTL_REDUCE_OPS(TUNECTL_REDUCE_ENUM)
#undef TUNECTL_REDUCE_ENUM
};
const char* to_string(ReduceOp op);
ReduceOp reduce_op_from_string(const std::string& s);

struct ExprNode {
  ExprKind kind;
  DType dtype;
  ExprNode(ExprKind k, DType t) : kind(k), dtype(t) {}
  virtual ~ExprNode() = default;
};

// A shared handle to an immutable expression node; may be null (default).
class Expr {
 public:
  Expr() = default;
  explicit Expr(std::shared_ptr<const ExprNode> n) : node_(std::move(n)) {}
  // Integer literals are Int64 immediates; double literals Float32 (the
  // working type of every model tunectl handles).
  Expr(int v);      // NOLINT(google-explicit-constructor)
  Expr(int64_t v);  // NOLINT(google-explicit-constructor)
  Expr(double v);   // NOLINT(google-explicit-constructor)

  const ExprNode* get() const { return node_.get(); }
  const ExprNode* operator->() const { return node_.get(); }
  explicit operator bool() const { return node_ != nullptr; }
  bool same_as(const Expr& o) const { return node_ == o.node_; }
  ExprKind kind() const { return node_->kind; }
  DType dtype() const { return node_->dtype; }

  // The node as type T if its kind matches, else nullptr.
  template <typename T>
  const T* as() const {
    return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
  }
  const std::shared_ptr<const ExprNode>& ptr() const { return node_; }

 private:
  std::shared_ptr<const ExprNode> node_;
};

struct IntImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::IntImm;
  int64_t value;
  IntImmNode(DType t, int64_t v) : ExprNode(kKind, t), value(v) {}
};

struct FloatImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::FloatImm;
  double value;
  FloatImmNode(DType t, double v) : ExprNode(kKind, t), value(v) {}
};

// A variable is identified by its node, never by its name.
struct VarNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Var;
  std::string name;
  VarNode(DType t, std::string n) : ExprNode(kKind, t), name(std::move(n)) {}
};

class Var : public Expr {
 public:
  Var() = default;
  explicit Var(std::string name, DType t = kIndexType);
  // Wraps an expression known to be a Var.
  explicit Var(const Expr& e);
  const VarNode* node() const { return as<VarNode>(); }
  const std::string& name() const { return node()->name; }
};

struct VarHash {
  size_t operator()(const Var& v) const { return std::hash<const void*>()(v.get()); }
};
struct VarEqual {
  bool operator()(const Var& a, const Var& b) const { return a.same_as(b); }
};

// The operands of every binary node: code that treats all binary kinds
// alike (an interpreter, a printer) casts to this common base.
struct BinaryOperands : ExprNode {
  Expr a, b;
  BinaryOperands(ExprKind k, DType t, Expr x, Expr y) : ExprNode(k, t), a(std::move(x)), b(std::move(y)) {}
};

template <ExprKind K>
struct BinaryNode : BinaryOperands {
  static constexpr ExprKind kKind = K;
  BinaryNode(DType t, Expr x, Expr y) : BinaryOperands(K, t, std::move(x), std::move(y)) {}
};
#define TUNECTL_BINARY_ALIAS(name) using name##Node = BinaryNode<ExprKind::name>;
TUNECTL_BINARY_NODES(TUNECTL_BINARY_ALIAS)
#undef TUNECTL_BINARY_ALIAS

struct NotNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Not;
  Expr a;
  explicit NotNode(Expr x) : ExprNode(kKind, DType::Bool), a(std::move(x)) {}
};

struct SelectNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Select;
  Expr cond, true_value, false_value;
  SelectNode(Expr c, Expr t, Expr f)
      : ExprNode(kKind, t.dtype()), cond(std::move(c)), true_value(std::move(t)), false_value(std::move(f)) {}
};

struct CastNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Cast;
  Expr value;
  CastNode(DType t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
};

struct CallNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Call;
  MathFunc func;
  std::vector<Expr> args;
  CallNode(DType t, MathFunc f, std::vector<Expr> a) : ExprNode(kKind, t), func(f), args(std::move(a)) {}
};

// Memory scopes of buffers; GPU scopes exist from the start (DESIGN.md).
#define TUNECTL_MEM_SCOPES(X) X(Global, "global") X(Shared, "shared") X(Local, "local")
enum class MemScope : uint8_t {
#define TUNECTL_SCOPE_ENUM(name, text) name,
  TUNECTL_MEM_SCOPES(TUNECTL_SCOPE_ENUM)
#undef TUNECTL_SCOPE_ENUM
};
const char* to_string(MemScope s);
MemScope mem_scope_from_string(const std::string& s);

// A dense array, row-major unless axis_order says otherwise. Identified by
// its node. Tensors of te own one; lowering creates more (cache stages,
// attached intermediates).
struct BufferNode {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  MemScope scope;
  // The axes in memory order, outermost first (a permutation of the shape's
  // axes; empty: row-major). A stage's storage order (schedule::StorageOrderStep).
  std::vector<int> axis_order;
  int64_t num_elements() const;
  int64_t num_bytes() const { return num_elements() * dtype_bytes(dtype); }
};

class Buffer {
 public:
  Buffer() = default;
  Buffer(std::string name, DType dtype, std::vector<int64_t> shape, MemScope scope = MemScope::Global,
         std::vector<int> axis_order = {});
  const BufferNode* get() const { return node_.get(); }
  const BufferNode* operator->() const { return node_.get(); }
  explicit operator bool() const { return node_ != nullptr; }
  bool same_as(const Buffer& o) const { return node_ == o.node_; }

 private:
  std::shared_ptr<const BufferNode> node_;
};

struct BufferHash {
  size_t operator()(const Buffer& b) const { return std::hash<const void*>()(b.get()); }
};
struct BufferEqual {
  bool operator()(const Buffer& a, const Buffer& b) const { return a.same_as(b); }
};

// Reads buffer[indices...]: one index per dimension before flattening, a
// single element offset after (lower/flatten).
struct LoadNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Load;
  Buffer buffer;
  std::vector<Expr> indices;
  LoadNode(Buffer b, std::vector<Expr> i) : ExprNode(kKind, b->dtype), buffer(std::move(b)), indices(std::move(i)) {}
};

enum class IterKind : uint8_t { Spatial, Reduce };
const char* to_string(IterKind k);

// A loop axis of a compute definition: var ranges over [0, extent).
struct IterVar {
  Var var;
  int64_t extent = 0;
  IterKind kind = IterKind::Spatial;
};

// combiner over source for every point of axes. Only allowed as the whole
// body of a compute op (te enforces it).
struct ReduceNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Reduce;
  ReduceOp combiner;
  Expr source;
  std::vector<IterVar> axes;
  ReduceNode(ReduceOp c, Expr s, std::vector<IterVar> ax)
      : ExprNode(kKind, s.dtype()), combiner(c), source(std::move(s)), axes(std::move(ax)) {}
};

// ---- Checked constructors -------------------------------------------------
Expr make_int(int64_t v, DType t = kIndexType);
Expr make_float(double v, DType t = DType::Float32);
Expr make_bool(bool v);
// A constant of type t holding v (int or float as t requires).
Expr make_const(DType t, double v);
Expr make_zero(DType t);
// The identity element of a combiner (0, -inf, +inf, 1).
Expr reduce_identity(ReduceOp op, DType t);

// Binary constructors. Operands must have one type, except that an immediate
// is converted to the other operand's type. Arithmetic nodes have the operand
// type, comparisons and logic have Bool.
#define TUNECTL_BINARY_MAKE_DECL(name) Expr make_##name(Expr a, Expr b);
TUNECTL_BINARY_MAKE_DECL(add)
TUNECTL_BINARY_MAKE_DECL(sub)
TUNECTL_BINARY_MAKE_DECL(mul)
TUNECTL_BINARY_MAKE_DECL(div)  // floats only
TUNECTL_BINARY_MAKE_DECL(floordiv)  // integers only
TUNECTL_BINARY_MAKE_DECL(floormod)  // integers only
TUNECTL_BINARY_MAKE_DECL(min)
TUNECTL_BINARY_MAKE_DECL(max)
TUNECTL_BINARY_MAKE_DECL(eq)
TUNECTL_BINARY_MAKE_DECL(ne)
TUNECTL_BINARY_MAKE_DECL(lt)
TUNECTL_BINARY_MAKE_DECL(le)
TUNECTL_BINARY_MAKE_DECL(gt)
TUNECTL_BINARY_MAKE_DECL(ge)
TUNECTL_BINARY_MAKE_DECL(and)
TUNECTL_BINARY_MAKE_DECL(or)
#undef TUNECTL_BINARY_MAKE_DECL
// Generic form used by mutators: rebuilds a binary node of kind k.
Expr make_binary(ExprKind k, Expr a, Expr b);
Expr make_not(Expr a);
Expr make_select(Expr cond, Expr t, Expr f);
Expr make_cast(DType t, Expr v);
Expr make_call(MathFunc f, std::vector<Expr> args);
Expr make_load(Buffer b, std::vector<Expr> indices);
Expr make_reduce(ReduceOp op, Expr source, std::vector<IterVar> axes);

// Operators for writing compute definitions. On integers `/` is floordiv and
// `%` is floormod (the only integer division the IR knows). Logic has no
// operators (make_and/make_or/make_not): with the implicit literal
// constructors, && and || on Expr would capture plain bool expressions.
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator-(Expr a);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);
Expr operator%(Expr a, Expr b);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);

// Value of an integer immediate, if e is one.
const int64_t* as_const_int(const Expr& e);
bool is_const_int(const Expr& e, int64_t v);

}  // namespace tunectl::ir
