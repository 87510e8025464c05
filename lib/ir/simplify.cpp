#include "ir/simplify.h"

#include <numeric>
#include <optional>

#include "ir/const_fold.h"
#include "ir/error.h"
#include "ir/functor.h"
#include "ir/linear_sum.h"
#include "ir/printer.h"
#include "ir/structural.h"
#include "ir/substitute.h"

namespace tunectl::ir {

namespace {

constexpr int64_t kNegInf = IntBound::kNegInf;
constexpr int64_t kPosInf = IntBound::kPosInf;

bool is_empty(const Stmt& s) {
  const auto* seq = s.as<SeqNode>();
  return seq && seq->stmts.empty();
}

bool is_float_const(const Expr& e, double v) {
  const auto* f = e.as<FloatImmNode>();
  return f && f->value == v;
}

bool is_true(const Expr& e) { return e.dtype() == DType::Bool && is_const_int(e, 1); }
bool is_false(const Expr& e) { return e.dtype() == DType::Bool && is_const_int(e, 0); }

// floor(v / c) for c > 0 on a bound endpoint, keeping infinities.
int64_t bound_div(int64_t v, int64_t c) { return v == kNegInf || v == kPosInf ? v : floordiv_int(v, c); }

// Exact division of a sum all of whose parts are multiples of g.
LinearSum divide_exact(const LinearSum& s, int64_t g) {
  LinearSum q, r;
  s.divide(g, q, r);
  internal_check(r.is_const() && r.constant() == 0, "inexact division of a linear sum");
  return q;
}

// The comparison that is true exactly when k is false (integer operands).
ExprKind inverse_compare(ExprKind k) {
  switch (k) {
    case ExprKind::LT: return ExprKind::GE;
    case ExprKind::LE: return ExprKind::GT;
    case ExprKind::GT: return ExprKind::LE;
    case ExprKind::GE: return ExprKind::LT;
    case ExprKind::EQ: return ExprKind::NE;
    case ExprKind::NE: return ExprKind::EQ;
    default: internal_fail("not a comparison: ", to_string(k));
  }
}

class Simplifier : public IRMutator {
 public:
  explicit Simplifier(const VarMap<IntBound>& bounds) : bounds_(bounds) {}

 protected:
  // ---- expressions --------------------------------------------------------
  Expr mutate_Var(const Expr& e, const VarNode*) override {
    auto it = bounds_.find(Var(e));
    if (it != bounds_.end() && it->second.is_point()) return make_int(it->second.min, e.dtype());
    return e;
  }

#define TUNECTL_SIMPLIFY_BINARY(name)                                                   \
  Expr mutate_##name(const Expr& e, const name##Node* op) override {                    \
    if (is_linear(ExprKind::name) && e.dtype() == kIndexType) {                         \
      LinearSum s;                                                                      \
      gather(e, 1, s);                                                                  \
      return keep_sharing(e, s.to_expr());                                              \
    }                                                                                   \
    return keep_sharing(e, rewrite(ExprKind::name, mutate(op->a), mutate(op->b)));      \
  }
  TUNECTL_BINARY_NODES(TUNECTL_SIMPLIFY_BINARY)
#undef TUNECTL_SIMPLIFY_BINARY

  Expr mutate_Not(const Expr& e, const NotNode* op) override { return keep_sharing(e, rewrite_not(mutate(op->a))); }

  Expr mutate_Select(const Expr& e, const SelectNode* op) override {
    Expr c = mutate(op->cond), t = mutate(op->true_value), f = mutate(op->false_value);
    if (is_true(c)) return keep_sharing(e, t);
    if (is_false(c)) return keep_sharing(e, f);
    if (structural_equal(t, f)) return keep_sharing(e, t);
    return keep_sharing(e, make_select(c, t, f));
  }

  Expr mutate_Cast(const Expr& e, const CastNode* op) override {
    Expr n = make_cast(e.dtype(), mutate(op->value));
    Expr folded = const_fold(n);
    return keep_sharing(e, folded ? folded : n);
  }

  Expr mutate_Call(const Expr& e, const CallNode* op) override {
    Expr n = IRMutator::mutate_Call(e, op);
    Expr folded = const_fold(n);
    return folded ? folded : n;
  }

  Expr mutate_Reduce(const Expr& e, const ReduceNode* op) override {
    std::vector<std::pair<Var, std::optional<IntBound>>> saved;
    for (const auto& ax : op->axes) saved.emplace_back(ax.var, push_bound(ax.var, loop_bound(0, ax.extent)));
    Expr src = mutate(op->source);
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) pop_bound(it->first, it->second);
    return src.same_as(op->source) ? e : make_reduce(op->combiner, src, op->axes);
  }

  // ---- statements ---------------------------------------------------------
  Stmt mutate_For(const Stmt& s, const ForNode* op) override {
    Expr mn = mutate(op->min), ext = mutate(op->extent);
    const int64_t* cmin = as_const_int(mn);
    const int64_t* cext = as_const_int(ext);
    if (cext && *cext <= 0) return make_seq({});
    // A loop with symbolic bounds hides any outer range of a same var.
    std::optional<IntBound> range;
    if (cmin && cext) range = loop_bound(*cmin, *cext);
    auto saved = push_bound(op->var, range);
    Stmt body = mutate(op->body);
    pop_bound(op->var, saved);
    // A single iteration is its body: the var's point range made mutate_Var
    // replace every use by the constant (one pass, not a substitution of
    // the body and a second pass over it).
    if (range && range->is_point() && op->for_kind != ForKind::ThreadBinding) return body;
    if (is_empty(body)) return body;
    if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return s;
    return make_for(op->var, mn, ext, op->for_kind, body, op->thread_tag);
  }

  Stmt mutate_IfThenElse(const Stmt& s, const IfThenElseNode* op) override {
    Expr c = mutate(op->cond);
    if (is_true(c)) return mutate(op->then_case);
    if (is_false(c)) return op->else_case ? mutate(op->else_case) : make_seq({});
    Stmt t = mutate_under(c, op->then_case);
    Stmt f = op->else_case ? mutate(op->else_case) : Stmt();
    if (f && is_empty(f)) f = Stmt();
    if (is_empty(t)) {
      if (!f) return t;
      return make_if(rewrite_not(c), f);
    }
    if (c.same_as(op->cond) && t.same_as(op->then_case) && f.same_as(op->else_case)) return s;
    return make_if(c, t, f);
  }

  Stmt mutate_Allocate(const Stmt& s, const AllocateNode* op) override {
    Stmt body = mutate(op->body);
    if (is_empty(body)) return body;
    return body.same_as(op->body) ? s : make_allocate(op->buffer, body);
  }

 private:
  // ---- bounds -------------------------------------------------------------
  IntBound bound(const Expr& e) const { return const_int_bound(e, bounds_); }

  // Sets (or, with nullopt, hides) the range of v; returns the previous one.
  std::optional<IntBound> push_bound(const Var& v, std::optional<IntBound> b) {
    std::optional<IntBound> old;
    if (auto it = bounds_.find(v); it != bounds_.end()) old = it->second;
    if (b) bounds_[v] = *b;
    else bounds_.erase(v);
    return old;
  }
  void pop_bound(const Var& v, const std::optional<IntBound>& old) {
    if (old) bounds_[v] = *old;
    else bounds_.erase(v);
  }

  // Simplifies s knowing that c holds: conjuncts `var op constant` narrow the
  // variable's range.
  Stmt mutate_under(const Expr& c, const Stmt& s) {
    std::vector<std::pair<Var, std::optional<IntBound>>> saved;
    narrow(c, saved);
    Stmt out = mutate(s);
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) pop_bound(it->first, it->second);
    return out;
  }

  void narrow(const Expr& c, std::vector<std::pair<Var, std::optional<IntBound>>>& saved) {
    if (const auto* op = c.as<AndNode>()) {
      narrow(op->a, saved);
      narrow(op->b, saved);
      return;
    }
    ExprKind k = c.kind();
    if (k != ExprKind::LT && k != ExprKind::LE && k != ExprKind::GT && k != ExprKind::GE) return;
    Expr a, b;
    switch (k) {
      case ExprKind::LT: a = c.as<LTNode>()->a, b = c.as<LTNode>()->b; break;
      case ExprKind::LE: a = c.as<LENode>()->a, b = c.as<LENode>()->b; break;
      case ExprKind::GT: a = c.as<GTNode>()->a, b = c.as<GTNode>()->b; break;
      default: a = c.as<GENode>()->a, b = c.as<GENode>()->b; break;
    }
    const int64_t* cv = as_const_int(b);
    if (!a.as<VarNode>() || !is_int(a.dtype()) || !cv || *cv == kNegInf || *cv == kPosInf) return;
    Var v(a);
    IntBound r = bound(v);
    if (k == ExprKind::LT) r.max = std::min(r.max, *cv - 1);
    if (k == ExprKind::LE) r.max = std::min(r.max, *cv);
    if (k == ExprKind::GT) r.min = std::max(r.min, *cv + 1);
    if (k == ExprKind::GE) r.min = std::max(r.min, *cv);
    if (r.min > r.max) return;  // the branch is dead; leave it alone
    saved.emplace_back(v, push_bound(v, r));
  }

  // The node as it was when the rewrite only rebuilt it.
  static Expr keep_sharing(const Expr& orig, const Expr& rewritten) {
    return structural_equal(orig, rewritten) ? orig : rewritten;
  }

  // ---- index arithmetic ---------------------------------------------------
  static bool is_linear(ExprKind k) { return k == ExprKind::Add || k == ExprKind::Sub || k == ExprKind::Mul; }

  // Adds scale * e to s for an index expression e: a nest of sums and
  // products by constants is taken apart here and normalized once at its
  // root, not rebuilt at every level; any other node is a term, simplified
  // first (what it becomes may be a sum too).
  void gather(const Expr& e, int64_t scale, LinearSum& s) {
    if (const auto* op = e.as<AddNode>()) {
      gather(op->a, scale, s);
      gather(op->b, scale, s);
    } else if (const auto* op = e.as<SubNode>()) {
      gather(op->a, scale, s);
      gather(op->b, wrap_mul(scale, -1), s);
    } else if (const auto* op = e.as<MulNode>(); op && as_const_int(op->b)) {
      gather(op->a, wrap_mul(scale, *as_const_int(op->b)), s);
    } else if (op && as_const_int(op->a)) {
      gather(op->b, wrap_mul(scale, *as_const_int(op->a)), s);
    } else if (op) {
      s.add(LinearSum::from_expr(mul_index(mutate(op->a), mutate(op->b))), scale);
    } else {
      s.add(LinearSum::from_expr(mutate(e)), scale);
    }
  }

  // ---- rewrite rules (operands already simplified) ------------------------
  // Index Add, Sub and Mul went through gather.
  Expr rewrite(ExprKind k, const Expr& a, const Expr& b) {
    Expr n = make_binary(k, a, b);
    if (Expr folded = const_fold(n)) return folded;
    switch (k) {
      case ExprKind::Add:
        return arith_identity(n, a, b);
      case ExprKind::Sub:
        if (is_int(a.dtype()) && structural_equal(a, b)) return make_zero(a.dtype());
        return arith_identity(n, a, b);
      case ExprKind::Mul:
        return arith_identity(n, a, b);
      case ExprKind::Div:
        return is_float_const(b, 1.0) ? a : n;
      case ExprKind::FloorDiv:
      case ExprKind::FloorMod:
        return rewrite_div_mod(n, k, a, b, a.dtype() == kIndexType);
      case ExprKind::Min:
      case ExprKind::Max:
        return rewrite_min_max(n, k, a, b);
      case ExprKind::And:
      case ExprKind::Or:
        return rewrite_logic(n, k, a, b);
      default:
        return rewrite_compare(n, k, a, b);
    }
  }

  // Identities that hold exactly for every type: x + 0, x - 0, x * 1, and for
  // integers x * 0. (Float x + 0.0 only loses the sign of a negative zero.)
  static Expr arith_identity(const Expr& n, const Expr& a, const Expr& b) {
    auto is_zero = [](const Expr& e) { return is_const_int(e, 0) || is_float_const(e, 0.0); };
    auto is_one = [](const Expr& e) { return is_const_int(e, 1) || is_float_const(e, 1.0); };
    switch (n.kind()) {
      case ExprKind::Add:
        if (is_zero(b)) return a;
        if (is_zero(a)) return b;
        return n;
      case ExprKind::Sub:
        return is_zero(b) ? a : n;
      case ExprKind::Mul:
        if (is_one(b)) return a;
        if (is_one(a)) return b;
        if (is_int(n.dtype()) && (is_const_int(a, 0) || is_const_int(b, 0))) return make_zero(n.dtype());
        return n;
      default:
        return n;
    }
  }

  // Products of index expressions: constants scale the sum; a product of two
  // single terms keeps their coefficients outside (x*2 * y -> x*y*2).
  static Expr mul_index(const Expr& a, const Expr& b) {
    LinearSum la = LinearSum::from_expr(a), lb = LinearSum::from_expr(b);
    if (la.is_const() || lb.is_const()) {
      LinearSum s = la.is_const() ? lb : la;
      s.scale(la.is_const() ? la.constant() : lb.constant());
      return s.to_expr();
    }
    auto single = [](const LinearSum& s) { return s.terms().size() == 1 && s.constant() == 0; };
    Expr x = a, y = b;
    int64_t coeff = 1;
    if (single(la) && single(lb)) {
      x = la.terms()[0].term;
      y = lb.terms()[0].term;
      coeff = wrap_mul(la.terms()[0].coeff, lb.terms()[0].coeff);
    }
    // Commutative operands in printed order, so x*y and y*x agree.
    if (*shared_text(y) < *shared_text(x)) std::swap(x, y);
    LinearSum s;
    s.add_term(make_mul(x, y), coeff);
    return s.to_expr();
  }

  Expr rewrite_div_mod(const Expr& n, ExprKind k, const Expr& a, const Expr& b, bool index) {
    const int64_t* c = as_const_int(b);
    if (!c || *c <= 0) return n;
    if (index) {
      LinearSum s = LinearSum::from_expr(a);
      return k == ExprKind::FloorDiv ? floordiv_sum(s, *c) : floormod_sum(s, *c);
    }
    // Other integer types: only what bounds decide.
    IntBound r = bound(a);
    if (r.min >= 0 && r.max < *c) return k == ExprKind::FloorDiv ? make_zero(a.dtype()) : a;
    return n;
  }

  // x // c for c > 0: x = q*c + r gives q + r // c, then r // c is decided by
  // r's bounds or by the nested rules (x // a) // c -> x // (a*c) and
  // (x % (m*c)) // c -> (x // c) % m.
  Expr floordiv_sum(const LinearSum& x, int64_t c) {
    if (c == 1) return x.to_expr();
    LinearSum q, r;
    x.divide(c, q, r);
    q.add(LinearSum::from_expr(floordiv_remainder(r, c)));
    return q.to_expr();
  }

  Expr floordiv_remainder(LinearSum r, int64_t c) {
    int64_t g = std::gcd(r.content(), c);
    if (g > 1) {
      r = divide_exact(r, g);
      c /= g;
    }
    if (c == 1) return r.to_expr();
    if (r.is_const()) return make_int(floordiv_int(r.constant(), c));
    Expr re = r.to_expr();
    IntBound rb = bound(re);
    int64_t lo = bound_div(rb.min, c), hi = bound_div(rb.max, c);
    if (lo == hi && lo != kNegInf && lo != kPosInf) return make_int(lo);
    if (r.terms().size() == 1 && r.terms()[0].coeff == 1 && r.constant() == 0) {
      const Expr& t = r.terms()[0].term;
      if (const auto* div = t.as<FloorDivNode>()) {
        const int64_t* a = as_const_int(div->b);
        if (a && *a > 0 && wrap_mul(*a, c) / c == *a) return floordiv_sum(LinearSum::from_expr(div->a), *a * c);
      }
      if (const auto* mod = t.as<FloorModNode>()) {
        const int64_t* m = as_const_int(mod->b);
        if (m && *m > 0 && *m % c == 0) {
          Expr inner = floordiv_sum(LinearSum::from_expr(mod->a), c);
          return floormod_sum(LinearSum::from_expr(inner), *m / c);
        }
      }
    }
    if (std::optional<AlignedSplit> split = split_aligned(r, c))
      return floordiv_sum(split->multiple, c / split->d);
    return make_floordiv(re, make_int(c));
  }

  // r == d * multiple + rest with d > 1 dividing c and 0 <= rest < d, so
  // that r // c == multiple // (c/d) and r % c == d * (multiple % (c/d)) +
  // rest: the index of a fused loop split by a divisor of an axis extent,
  // (4*t + lane) // 8 -> t // 2 with lane in [0, 4). The largest such d.
  struct AlignedSplit {
    int64_t d;
    LinearSum multiple, rest;
  };
  std::optional<AlignedSplit> split_aligned(const LinearSum& r, int64_t c) const {
    std::optional<AlignedSplit> best;
    for (const LinearTerm& candidate : r.terms()) {
      const int64_t d = std::gcd(candidate.coeff, c);
      if (d <= 1 || d == c || (best && best->d >= d)) continue;
      AlignedSplit split{d, LinearSum(floordiv_int(r.constant(), d)), LinearSum(floormod_int(r.constant(), d))};
      for (const LinearTerm& t : r.terms()) {
        if (t.coeff % d == 0) {
          split.multiple.add_term(t.term, t.coeff / d);
        } else {
          split.rest.add_term(t.term, t.coeff);
        }
      }
      const Expr rest = split.rest.to_expr();
      IntBound rb = bound(rest);
      if (rb.min >= 0 && rb.max < d) best = std::move(split);
    }
    return best;
  }

  // x % c for c > 0: multiples of c drop out, a common factor g of the rest
  // gives g * ((r/g) % (c/g)), a remainder within one period is exact, and
  // (x % (m*c)) % c -> x % c.
  Expr floormod_sum(const LinearSum& x, int64_t c) {
    if (c == 1) return make_int(0);
    LinearSum q, r;
    x.divide(c, q, r);
    int64_t g = std::gcd(r.content(), c);
    if (g > 1) {
      LinearSum s = LinearSum::from_expr(floormod_remainder(divide_exact(r, g), c / g));
      s.scale(g);
      return s.to_expr();
    }
    return floormod_remainder(r, c);
  }

  Expr floormod_remainder(const LinearSum& r, int64_t c) {
    if (c == 1) return make_int(0);
    if (r.is_const()) return make_int(floormod_int(r.constant(), c));
    Expr re = r.to_expr();
    IntBound rb = bound(re);
    int64_t lo = bound_div(rb.min, c), hi = bound_div(rb.max, c);
    if (lo == hi && lo != kNegInf && lo != kPosInf) {
      LinearSum s = r;
      s.add_const(wrap_mul(lo, -c));
      return s.to_expr();
    }
    if (r.terms().size() == 1 && r.terms()[0].coeff == 1 && r.constant() == 0) {
      if (const auto* mod = r.terms()[0].term.as<FloorModNode>()) {
        const int64_t* m = as_const_int(mod->b);
        if (m && *m > 0 && *m % c == 0) return floormod_sum(LinearSum::from_expr(mod->a), c);
      }
    }
    if (std::optional<AlignedSplit> split = split_aligned(r, c)) {
      LinearSum s = LinearSum::from_expr(floormod_sum(split->multiple, c / split->d));
      s.scale(split->d);
      s.add(split->rest);
      return s.to_expr();
    }
    return make_floormod(re, make_int(c));
  }

  // Bounds of a - b for integer operands.
  IntBound difference_bound(const Expr& a, const Expr& b) const {
    if (a.dtype() == kIndexType) {
      LinearSum s = LinearSum::from_expr(a);
      s.add(LinearSum::from_expr(b), -1);
      Expr d = s.to_expr();
      return bound(d);
    }
    // A uint64 has no bounds (const_int_bound); narrower types: the
    // difference of the bounds fits in int64.
    if (a.dtype() == DType::UInt64) return IntBound::everything();
    IntBound x = bound(a), y = bound(b);
    return {x.min - y.max, x.max - y.min};
  }

  Expr rewrite_min_max(const Expr& n, ExprKind k, const Expr& a, const Expr& b) {
    if (structural_equal(a, b)) return a;
    // Constants go second, so min(0, x) and min(x, 0) agree.
    Expr canonical = as_const_int(a) || a.as<FloatImmNode>() ? make_binary(k, b, a) : n;
    if (!is_int(a.dtype())) return canonical;
    IntBound d = difference_bound(a, b);
    bool a_le_b = d.max <= 0, a_ge_b = d.min >= 0;
    if (k == ExprKind::Min) return a_le_b ? a : a_ge_b ? b : canonical;
    return a_ge_b ? a : a_le_b ? b : canonical;
  }

  Expr rewrite_compare(const Expr& n, ExprKind k, const Expr& a, const Expr& b) {
    if (!is_int(a.dtype()) && a.dtype() != DType::Bool) return n;
    IntBound d = difference_bound(a, b);
    std::optional<bool> v;
    switch (k) {
      case ExprKind::LT: v = d.max < 0 ? std::optional(true) : d.min >= 0 ? std::optional(false) : std::nullopt; break;
      case ExprKind::LE: v = d.max <= 0 ? std::optional(true) : d.min > 0 ? std::optional(false) : std::nullopt; break;
      case ExprKind::GT: v = d.min > 0 ? std::optional(true) : d.max <= 0 ? std::optional(false) : std::nullopt; break;
      case ExprKind::GE: v = d.min >= 0 ? std::optional(true) : d.max < 0 ? std::optional(false) : std::nullopt; break;
      case ExprKind::EQ:
      case ExprKind::NE: {
        bool eq = d.min == 0 && d.max == 0, ne = d.min > 0 || d.max < 0;
        if (eq || ne) v = (k == ExprKind::EQ) == eq;
        break;
      }
      default: internal_fail("not a comparison: ", to_string(k));
    }
    return v ? make_bool(*v) : n;
  }

  Expr rewrite_logic(const Expr& n, ExprKind k, const Expr& a, const Expr& b) {
    bool is_and = k == ExprKind::And;
    // The absorbing element decides; the neutral one vanishes.
    auto absorbing = [&](const Expr& e) { return is_and ? is_false(e) : is_true(e); };
    auto neutral = [&](const Expr& e) { return is_and ? is_true(e) : is_false(e); };
    if (absorbing(a) || absorbing(b)) return make_bool(!is_and);
    if (neutral(a)) return b;
    if (neutral(b)) return a;
    if (structural_equal(a, b)) return a;
    // x is !y, or (integers) the inverted comparison of y.
    auto negates = [this](const Expr& x, const Expr& y) {
      if (const auto* op = x.as<NotNode>()) return structural_equal(op->a, y);
      Expr inverted = rewrite_not(y);
      return !inverted.as<NotNode>() && structural_equal(inverted, x);
    };
    if (negates(a, b) || negates(b, a)) return make_bool(!is_and);
    return n;
  }

  Expr rewrite_not(const Expr& a) {
    Expr n = make_not(a);
    if (Expr folded = const_fold(n)) return folded;
    if (const auto* op = a.as<NotNode>()) return op->a;
    // Inverting a float comparison is wrong for NaN, so integers only.
    switch (a.kind()) {
#define TUNECTL_INVERT(name)                                                               \
  case ExprKind::name: {                                                                   \
    const auto* op = a.as<name##Node>();                                                   \
    if (is_int(op->a.dtype())) return make_binary(inverse_compare(ExprKind::name), op->a, op->b); \
    return n;                                                                              \
  }
      TUNECTL_INVERT(LT) TUNECTL_INVERT(LE) TUNECTL_INVERT(GT) TUNECTL_INVERT(GE) TUNECTL_INVERT(EQ) TUNECTL_INVERT(NE)
#undef TUNECTL_INVERT
      default:
        return n;
    }
  }

  VarMap<IntBound> bounds_;
};

}  // namespace

Expr simplify(const Expr& e, const VarMap<IntBound>& bounds) {
  if (!e) return e;
  return Simplifier(bounds).mutate(e);
}

Stmt simplify(const Stmt& s) {
  if (!s) return s;
  return Simplifier({}).mutate(s);
}

bool can_prove(const Expr& e, const VarMap<IntBound>& bounds) {
  internal_check(e.dtype() == DType::Bool, "can_prove of a non-bool expression");
  return is_true(simplify(e, bounds));
}

std::optional<int64_t> linear_coefficient(const Expr& e, const Var& v) {
  if (!uses_var(e, v)) return 0;
  // The stride of e in v is e[v := v + 1] - e when that simplifies to a
  // constant; anything else (floordiv/floormod of v, v inside a load's index)
  // has no single stride.
  const Expr step = simplify(substitute(e, {{v, v + 1}}) - e);
  if (const int64_t* c = as_const_int(step)) return *c;
  return std::nullopt;
}

}  // namespace tunectl::ir
