#include "ir/stmt.h"

#include "ir/error.h"

namespace tunectl::ir {

const char* to_string(StmtKind k) {
  switch (k) {
#define TUNECTL_KIND_CASE(name) \
  case StmtKind::name:          \
    return #name;
    TUNECTL_STMT_NODES(TUNECTL_KIND_CASE)
#undef TUNECTL_KIND_CASE
  }
  internal_fail("bad stmt kind");
}

const char* to_string(ForKind k) {
  switch (k) {
#define TUNECTL_FOR_CASE(name, text) \
  case ForKind::name:                \
    return text;
    TUNECTL_FOR_KINDS(TUNECTL_FOR_CASE)
#undef TUNECTL_FOR_CASE
  }
  internal_fail("bad for kind");
}

Stmt make_for(Var var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag) {
  internal_check(bool(var) && min && extent && body, "incomplete for loop");
  internal_check(min.dtype() == kIndexType && extent.dtype() == kIndexType, "loop bounds must be int64");
  internal_check((kind == ForKind::ThreadBinding) == !thread_tag.empty(), "thread tag only on bound loops");
  return Stmt(std::make_shared<ForNode>(std::move(var), std::move(min), std::move(extent), kind,
                                        std::move(thread_tag), std::move(body)));
}

Stmt make_store(Buffer buffer, std::vector<Expr> indices, Expr value) {
  internal_check(bool(buffer) && value, "incomplete store");
  internal_check(indices.size() == buffer->shape.size() || indices.size() == 1, "store to ", buffer->name, " with ",
                 indices.size(), " indices for ", buffer->shape.size(), " dimensions");
  internal_check(value.dtype() == buffer->dtype, "store of ", to_string(value.dtype()), " into ", buffer->name, " of ",
                 to_string(buffer->dtype));
  for (const auto& i : indices) internal_check(i.dtype() == kIndexType, "index of ", buffer->name, " is not int64");
  return Stmt(std::make_shared<StoreNode>(std::move(buffer), std::move(indices), std::move(value)));
}

Stmt make_allocate(Buffer buffer, Stmt body) {
  internal_check(bool(buffer) && body, "incomplete allocate");
  return Stmt(std::make_shared<AllocateNode>(std::move(buffer), std::move(body)));
}

Stmt make_seq(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (auto& s : stmts) {
    if (!s) continue;
    if (const auto* seq = s.as<SeqNode>()) {
      flat.insert(flat.end(), seq->stmts.begin(), seq->stmts.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  return Stmt(std::make_shared<SeqNode>(std::move(flat)));
}

Stmt make_if(Expr cond, Stmt then_case, Stmt else_case) {
  internal_check(cond && cond.dtype() == DType::Bool && then_case, "bad if");
  return Stmt(std::make_shared<IfThenElseNode>(std::move(cond), std::move(then_case), std::move(else_case)));
}

Stmt make_barrier() { return Stmt(std::make_shared<BarrierNode>()); }

Stmt make_all_reduce(ReduceOp combiner, Buffer buffer, std::vector<Expr> indices) {
  internal_check(bool(buffer) && buffer->scope == MemScope::Local, "all-reduce of a buffer that is not Local");
  internal_check(indices.size() == buffer->shape.size() || indices.size() == 1, "all-reduce of ", buffer->name,
                 " with ", indices.size(), " indices for ", buffer->shape.size(), " dimensions");
  for (const auto& i : indices) internal_check(i.dtype() == kIndexType, "index of ", buffer->name, " is not int64");
  return Stmt(std::make_shared<AllReduceNode>(combiner, std::move(buffer), std::move(indices)));
}

}  // namespace tunectl::ir
