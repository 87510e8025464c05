#include "ir/substitute.h"

#include "ir/error.h"
#include "ir/functor.h"

namespace tunectl::ir {

namespace {

class Substituter : public IRMutator {
 public:
  explicit Substituter(const VarMap<Expr>& map) : map_(map) {}

 protected:
  Expr mutate_Var(const Expr& e, const VarNode*) override {
    auto it = map_.find(Var(e));
    if (it == map_.end()) return e;
    internal_check(it->second.dtype() == e.dtype(), "substituting ", to_string(it->second.dtype()), " for ",
                   to_string(e.dtype()), " variable");
    return it->second;
  }

 private:
  const VarMap<Expr>& map_;
};

}  // namespace

Expr substitute(const Expr& e, const VarMap<Expr>& map) {
  if (map.empty()) return e;
  return Substituter(map).mutate(e);
}

Stmt substitute(const Stmt& s, const VarMap<Expr>& map) {
  if (map.empty()) return s;
  return Substituter(map).mutate(s);
}

bool uses_var(const Expr& e, const Var& v) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) { found = found || x.same_as(v); });
  return found;
}

bool uses_var(const Stmt& s, const Var& v) {
  struct Finder : IRVisitor {
    const VarNode* target;
    bool found = false;
    void visit_Var(const VarNode* op) override { found = found || op == target; }
  } finder;
  finder.target = v.node();
  finder.visit(s);
  return finder.found;
}

bool uses_any_var(const Expr& e, const VarSet& vars) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) {
    if (!found && x.as<VarNode>()) found = vars.count(Var(x)) > 0;
  });
  return found;
}

std::vector<Var> free_vars(const Expr& e) {
  std::vector<Var> out;
  VarSet seen, bound;
  post_order_visit(e, [&](const Expr& x) {
    if (const auto* r = x.as<ReduceNode>()) {
      for (const auto& ax : r->axes) bound.insert(ax.var);
    }
    if (x.as<VarNode>() && seen.insert(Var(x)).second) out.push_back(Var(x));
  });
  if (bound.empty()) return out;
  std::vector<Var> free;
  for (const auto& v : out) {
    if (!bound.count(v)) free.push_back(v);
  }
  return free;
}

}  // namespace tunectl::ir
