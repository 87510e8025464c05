// Visitor and mutator infrastructure over expressions and statements. The
// dispatch is generated from the node lists in expr.h/stmt.h, so every pass
// sees every kind. IRMutator returns the very same node when nothing below it
// changed, so "did anything change" is a same_as() compare.
#pragma once

#include <functional>

#include "ir/expr.h"
#include "ir/stmt.h"

namespace tunectl::ir {

// Read-only traversal; the defaults visit all children.
class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  void visit(const Expr& e);
  void visit(const Stmt& s);

 protected:
#define TUNECTL_VISIT_DECL(name) virtual void visit_##name(const name##Node* op);
  TUNECTL_EXPR_NODES(TUNECTL_VISIT_DECL)
  TUNECTL_STMT_NODES(TUNECTL_VISIT_DECL)
#undef TUNECTL_VISIT_DECL
};

// Rewriting traversal; the defaults rebuild a node only if a child changed.
class IRMutator {
 public:
  virtual ~IRMutator() = default;
  Expr mutate(const Expr& e);
  Stmt mutate(const Stmt& s);

 protected:
#define TUNECTL_MUTATE_DECL(name) virtual Expr mutate_##name(const Expr& e, const name##Node* op);
  TUNECTL_EXPR_NODES(TUNECTL_MUTATE_DECL)
#undef TUNECTL_MUTATE_DECL
#define TUNECTL_MUTATE_DECL(name) virtual Stmt mutate_##name(const Stmt& s, const name##Node* op);
  TUNECTL_STMT_NODES(TUNECTL_MUTATE_DECL)
#undef TUNECTL_MUTATE_DECL
};

// Calls f on every expression node below and including e, children first.
void post_order_visit(const Expr& e, const std::function<void(const Expr&)>& f);

}  // namespace tunectl::ir
