#include "lower/partition_loops.h"

#include <optional>
#include <vector>

#include "ir/functor.h"
#include "ir/linear_sum.h"
#include "ir/simplify.h"
#include "ir/substitute.h"

namespace tunectl::lower {

namespace {

using namespace ir;

// Whether v occurs in e only as a term of a linear sum (so that the set of
// v where a comparison holds is an interval, and a range of v on which it is
// decided is decided at each of its points).
bool linear_in(const Expr& e, const Var& v) {
  if (!uses_var(e, v)) return true;
  if (const auto* n = e.as<NotNode>()) return linear_in(n->a, v);
  switch (e.kind()) {
    case ExprKind::And:
    case ExprKind::Or:
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE: break;
    default: return false;
  }
  const auto* b = static_cast<const BinaryOperands*>(e.get());
  if (e.kind() == ExprKind::And || e.kind() == ExprKind::Or) return linear_in(b->a, v) && linear_in(b->b, v);
  for (const Expr& side : {b->a, b->b}) {
    if (side.dtype() != kIndexType) return false;
    const LinearSum sum = LinearSum::from_expr(side);
    for (const LinearTerm& t : sum.terms())
      if (!t.term.same_as(v) && uses_var(t.term, v)) return false;
  }
  return true;
}

// A guard below a loop: its condition and the ranges of the loops between
// the two (those with constant bounds).
struct Guard {
  Expr cond;
  VarMap<IntBound> inner;
};

class GuardCollector : public IRVisitor {
 public:
  explicit GuardCollector(const Var& v) : var_(v) {}
  std::vector<Guard> guards;

 protected:
  void visit_For(const ForNode* op) override {
    const int64_t* mn = as_const_int(op->min);
    const int64_t* ext = as_const_int(op->extent);
    // Symbolic bounds leave the variable unbounded, which decides nothing.
    if (mn && ext) inner_[op->var] = loop_bound(*mn, *ext);
    IRVisitor::visit_For(op);
    inner_.erase(op->var);
  }
  void visit_IfThenElse(const IfThenElseNode* op) override {
    if (uses_var(op->cond, var_) && linear_in(op->cond, var_)) guards.push_back({op->cond, inner_});
    IRVisitor::visit_IfThenElse(op);
  }

 private:
  Var var_;
  VarMap<IntBound> inner_;
};

class LoopPartitioner : public IRMutator {
 protected:
  Stmt mutate_For(const Stmt& s, const ForNode* op) override {
    const int64_t* mn = as_const_int(op->min);
    const int64_t* ext = as_const_int(op->extent);
    // A loop with symbolic bounds leaves its variable unbounded below it.
    if (!mn || !ext) return rebuild(s, op, mutate_with(op->var, std::nullopt, op->body));
    const bool cuttable =
        op->for_kind == ForKind::Serial || op->for_kind == ForKind::Unrolled || op->for_kind == ForKind::Parallel;
    if (cuttable && cuts_ < kMaxLoopCuts && *ext > 1) {
      if (std::vector<int64_t> cuts = cut_points(op, *mn, *ext); !cuts.empty()) {
        ++cuts_;
        cuts.insert(cuts.begin(), *mn);
        cuts.push_back(*mn + *ext);
        std::vector<Stmt> parts;
        for (size_t k = 0; k + 1 < cuts.size(); ++k) {
          const int64_t begin = cuts[k], end = cuts[k + 1];
          if (op->for_kind == ForKind::Parallel) {
            // One dispatch still: each iteration branches to its segment's body.
            Expr in_segment;
            if (begin > *mn) in_segment = op->var >= make_int(begin);
            if (end < *mn + *ext) in_segment = in_segment ? make_and(in_segment, op->var < make_int(end))
                                                          : op->var < make_int(end);
            parts.push_back(make_if(in_segment, mutate_with(op->var, IntBound{begin, end - 1}, op->body)));
          } else {
            Var fresh(op->var.name(), op->var.dtype());
            parts.push_back(mutate(make_for(fresh, make_int(begin), make_int(end - begin), op->for_kind,
                                            substitute(op->body, {{op->var, fresh}}), op->thread_tag)));
          }
        }
        if (op->for_kind == ForKind::Parallel)
          return make_for(op->var, op->min, op->extent, op->for_kind, make_seq(std::move(parts)), op->thread_tag);
        return make_seq(std::move(parts));
      }
    }
    return rebuild(s, op, mutate_with(op->var, loop_bound(*mn, *ext), op->body));
  }

 private:
  // body mutated with v in range (unbounded when nullopt).
  Stmt mutate_with(const Var& v, std::optional<IntBound> range, const Stmt& body) {
    std::optional<IntBound> saved;
    if (auto it = bounds_.find(v); it != bounds_.end()) saved = it->second;
    if (range) bounds_[v] = *range;
    else bounds_.erase(v);
    Stmt out = mutate(body);
    if (saved) bounds_[v] = *saved;
    else bounds_.erase(v);
    return out;
  }

  static Stmt rebuild(const Stmt& s, const ForNode* op, const Stmt& body) {
    return body.same_as(op->body) ? s : make_for(op->var, op->min, op->extent, op->for_kind, body, op->thread_tag);
  }

  // Whether g's condition is provably true for every v in [lo, hi] and
  // every inner iteration, or provably false for all of them.
  bool decided(const Guard& g, const Var& v, int64_t lo, int64_t hi) const {
    VarMap<IntBound> vars = bounds_;
    for (const auto& [inner, range] : g.inner) vars[inner] = range;
    vars[v] = {lo, hi};
    return as_const_int(simplify(g.cond, vars)) != nullptr;
  }

  // The longest run of v from one end of [mn, mn + ext) on which g is
  // decided (0 when none). Decided on a run means decided on every shorter
  // one from the same end, so a binary search finds it.
  int64_t decided_run(const Guard& g, const Var& v, int64_t mn, int64_t ext, bool from_start) const {
    int64_t lo = 0, hi = ext;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      const bool ok = from_start ? decided(g, v, mn, mn + mid - 1) : decided(g, v, mn + ext - mid, mn + ext - 1);
      if (ok) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  // Where to cut the loop (the starts of its second and later segments),
  // from the first guard that is decided on a prefix or a suffix of the
  // loop but not on all of it.
  std::vector<int64_t> cut_points(const ForNode* op, int64_t mn, int64_t ext) const {
    GuardCollector collector(op->var);
    collector.visit(op->body);
    for (const Guard& g : collector.guards) {
      const int64_t prefix = decided_run(g, op->var, mn, ext, true);
      if (prefix == ext) continue;  // decided throughout: the simplifier drops it
      const int64_t suffix = decided_run(g, op->var, mn, ext, false);
      std::vector<int64_t> cuts;
      if (prefix > 0) cuts.push_back(mn + prefix);
      // The runs meet or overlap where the guard flips between two
      // iterations, or is decided everywhere but not by one bound.
      if (suffix > 0 && ext - suffix > prefix) cuts.push_back(mn + ext - suffix);
      if (!cuts.empty()) return cuts;
    }
    return {};
  }

  VarMap<IntBound> bounds_;
  int cuts_ = 0;
};

}  // namespace

LoweredFunc partition_loops(LoweredFunc func) {
  Stmt cut = LoopPartitioner().mutate(func.body);
  if (!cut.same_as(func.body)) func.body = simplify(cut);
  return func;
}

}  // namespace tunectl::lower
