#include "ir/functor.h"

#include "ir/error.h"

namespace tunectl::ir {

void IRVisitor::visit(const Expr& e) {
  if (!e) return;
  switch (e.kind()) {
#define TUNECTL_DISPATCH(name)                          \
  case ExprKind::name:                                  \
    visit_##name(static_cast<const name##Node*>(e.get())); \
    return;
    TUNECTL_EXPR_NODES(TUNECTL_DISPATCH)
#undef TUNECTL_DISPATCH
  }
}

void IRVisitor::visit(const Stmt& s) {
  if (!s) return;
  switch (s.kind()) {
#define TUNECTL_DISPATCH(name)                          \
  case StmtKind::name:                                  \
    visit_##name(static_cast<const name##Node*>(s.get())); \
    return;
    TUNECTL_STMT_NODES(TUNECTL_DISPATCH)
#undef TUNECTL_DISPATCH
  }
}

void IRVisitor::visit_IntImm(const IntImmNode*) {}
void IRVisitor::visit_FloatImm(const FloatImmNode*) {}
void IRVisitor::visit_Var(const VarNode*) {}
#define TUNECTL_VISIT_BINARY(name)                          \
  void IRVisitor::visit_##name(const name##Node* op) { \
    visit(op->a);                                       \
    visit(op->b);                                       \
  }
TUNECTL_BINARY_NODES(TUNECTL_VISIT_BINARY)
#undef TUNECTL_VISIT_BINARY
void IRVisitor::visit_Not(const NotNode* op) { visit(op->a); }
void IRVisitor::visit_Select(const SelectNode* op) {
  visit(op->cond);
  visit(op->true_value);
  visit(op->false_value);
}
void IRVisitor::visit_Cast(const CastNode* op) { visit(op->value); }
void IRVisitor::visit_Call(const CallNode* op) {
  for (const auto& a : op->args) visit(a);
}
void IRVisitor::visit_Load(const LoadNode* op) {
  for (const auto& i : op->indices) visit(i);
}
void IRVisitor::visit_Reduce(const ReduceNode* op) { visit(op->source); }

void IRVisitor::visit_For(const ForNode* op) {
  visit(op->min);
  visit(op->extent);
  visit(op->body);
}
void IRVisitor::visit_Store(const StoreNode* op) {
  for (const auto& i : op->indices) visit(i);
  visit(op->value);
}
void IRVisitor::visit_Allocate(const AllocateNode* op) { visit(op->body); }
void IRVisitor::visit_Seq(const SeqNode* op) {
  for (const auto& s : op->stmts) visit(s);
}
void IRVisitor::visit_IfThenElse(const IfThenElseNode* op) {
  visit(op->cond);
  visit(op->then_case);
  visit(op->else_case);
}
void IRVisitor::visit_Barrier(const BarrierNode*) {}
void IRVisitor::visit_AllReduce(const AllReduceNode* op) {
  for (const auto& i : op->indices) visit(i);
}

Expr IRMutator::mutate(const Expr& e) {
  if (!e) return e;
  switch (e.kind()) {
#define TUNECTL_DISPATCH(name) \
  case ExprKind::name:         \
    return mutate_##name(e, static_cast<const name##Node*>(e.get()));
    TUNECTL_EXPR_NODES(TUNECTL_DISPATCH)
#undef TUNECTL_DISPATCH
  }
  internal_fail("bad expr kind");
}

Stmt IRMutator::mutate(const Stmt& s) {
  if (!s) return s;
  switch (s.kind()) {
#define TUNECTL_DISPATCH(name) \
  case StmtKind::name:         \
    return mutate_##name(s, static_cast<const name##Node*>(s.get()));
    TUNECTL_STMT_NODES(TUNECTL_DISPATCH)
#undef TUNECTL_DISPATCH
  }
  internal_fail("bad stmt kind");
}

namespace {
// Mutates each element; returns true if any changed.
template <typename T>
bool mutate_all(IRMutator& m, const std::vector<T>& in, std::vector<T>& out,
                T (IRMutator::*fn)(const T&)) {
  bool changed = false;
  out.reserve(in.size());
  for (const auto& x : in) {
    out.push_back((m.*fn)(x));
    changed |= !out.back().same_as(x);
  }
  return changed;
}
}  // namespace

Expr IRMutator::mutate_IntImm(const Expr& e, const IntImmNode*) { return e; }
Expr IRMutator::mutate_FloatImm(const Expr& e, const FloatImmNode*) { return e; }
Expr IRMutator::mutate_Var(const Expr& e, const VarNode*) { return e; }
#define TUNECTL_MUTATE_BINARY(name)                                      \
  Expr IRMutator::mutate_##name(const Expr& e, const name##Node* op) {   \
    Expr a = mutate(op->a), b = mutate(op->b);                           \
    if (a.same_as(op->a) && b.same_as(op->b)) return e;                  \
    return make_binary(ExprKind::name, std::move(a), std::move(b));      \
  }
TUNECTL_BINARY_NODES(TUNECTL_MUTATE_BINARY)
#undef TUNECTL_MUTATE_BINARY
Expr IRMutator::mutate_Not(const Expr& e, const NotNode* op) {
  Expr a = mutate(op->a);
  return a.same_as(op->a) ? e : make_not(std::move(a));
}
Expr IRMutator::mutate_Select(const Expr& e, const SelectNode* op) {
  Expr c = mutate(op->cond), t = mutate(op->true_value), f = mutate(op->false_value);
  if (c.same_as(op->cond) && t.same_as(op->true_value) && f.same_as(op->false_value)) return e;
  return make_select(std::move(c), std::move(t), std::move(f));
}
Expr IRMutator::mutate_Cast(const Expr& e, const CastNode* op) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? e : make_cast(op->dtype, std::move(v));
}
Expr IRMutator::mutate_Call(const Expr& e, const CallNode* op) {
  std::vector<Expr> args;
  if (!mutate_all<Expr>(*this, op->args, args, &IRMutator::mutate)) return e;
  return make_call(op->func, std::move(args));
}
Expr IRMutator::mutate_Load(const Expr& e, const LoadNode* op) {
  std::vector<Expr> idx;
  if (!mutate_all<Expr>(*this, op->indices, idx, &IRMutator::mutate)) return e;
  return make_load(op->buffer, std::move(idx));
}
Expr IRMutator::mutate_Reduce(const Expr& e, const ReduceNode* op) {
  Expr s = mutate(op->source);
  return s.same_as(op->source) ? e : make_reduce(op->combiner, std::move(s), op->axes);
}

Stmt IRMutator::mutate_For(const Stmt& s, const ForNode* op) {
  Expr mn = mutate(op->min), ext = mutate(op->extent);
  Stmt body = mutate(op->body);
  if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return s;
  return make_for(op->var, std::move(mn), std::move(ext), op->for_kind, std::move(body), op->thread_tag);
}
Stmt IRMutator::mutate_Store(const Stmt& s, const StoreNode* op) {
  std::vector<Expr> idx;
  bool changed = mutate_all<Expr>(*this, op->indices, idx, &IRMutator::mutate);
  Expr v = mutate(op->value);
  if (!changed && v.same_as(op->value)) return s;
  return make_store(op->buffer, std::move(idx), std::move(v));
}
Stmt IRMutator::mutate_Allocate(const Stmt& s, const AllocateNode* op) {
  Stmt body = mutate(op->body);
  return body.same_as(op->body) ? s : make_allocate(op->buffer, std::move(body));
}
Stmt IRMutator::mutate_Seq(const Stmt& s, const SeqNode* op) {
  std::vector<Stmt> out;
  if (!mutate_all<Stmt>(*this, op->stmts, out, &IRMutator::mutate)) return s;
  return make_seq(std::move(out));
}
Stmt IRMutator::mutate_IfThenElse(const Stmt& s, const IfThenElseNode* op) {
  Expr c = mutate(op->cond);
  Stmt t = mutate(op->then_case), f = mutate(op->else_case);
  if (c.same_as(op->cond) && t.same_as(op->then_case) && f.same_as(op->else_case)) return s;
  return make_if(std::move(c), std::move(t), std::move(f));
}
Stmt IRMutator::mutate_Barrier(const Stmt& s, const BarrierNode*) { return s; }
Stmt IRMutator::mutate_AllReduce(const Stmt& s, const AllReduceNode* op) {
  std::vector<Expr> idx;
  if (!mutate_all<Expr>(*this, op->indices, idx, &IRMutator::mutate)) return s;
  return make_all_reduce(op->combiner, op->buffer, std::move(idx));
}

void post_order_visit(const Expr& e, const std::function<void(const Expr&)>& f) {
  if (!e) return;
  switch (e.kind()) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::Var:
      break;
#define TUNECTL_POV_BINARY(name)                                 \
  case ExprKind::name: {                                         \
    const auto* op = static_cast<const name##Node*>(e.get());    \
    post_order_visit(op->a, f);                                  \
    post_order_visit(op->b, f);                                  \
    break;                                                       \
  }
      TUNECTL_BINARY_NODES(TUNECTL_POV_BINARY)
#undef TUNECTL_POV_BINARY
    case ExprKind::Not:
      post_order_visit(e.as<NotNode>()->a, f);
      break;
    case ExprKind::Select: {
      const auto* op = e.as<SelectNode>();
      post_order_visit(op->cond, f);
      post_order_visit(op->true_value, f);
      post_order_visit(op->false_value, f);
      break;
    }
    case ExprKind::Cast:
      post_order_visit(e.as<CastNode>()->value, f);
      break;
    case ExprKind::Call:
      for (const auto& a : e.as<CallNode>()->args) post_order_visit(a, f);
      break;
    case ExprKind::Load:
      for (const auto& i : e.as<LoadNode>()->indices) post_order_visit(i, f);
      break;
    case ExprKind::Reduce:
      post_order_visit(e.as<ReduceNode>()->source, f);
      break;
  }
  f(e);
}

}  // namespace tunectl::ir
