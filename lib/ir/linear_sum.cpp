#include "ir/linear_sum.h"

#include <algorithm>
#include <numeric>

#include "ir/error.h"
#include "ir/printer.h"
#include "ir/structural.h"

namespace tunectl::ir {

int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

namespace {

// Divisor c of a floordiv/floormod node with a positive constant divisor.
template <typename Node>
const Node* by_positive_const(const Expr& e, int64_t& c) {
  const auto* op = e.as<Node>();
  if (!op) return nullptr;
  const int64_t* v = as_const_int(op->b);
  if (!v || *v <= 0) return nullptr;
  c = *v;
  return op;
}

Expr scaled(const Expr& term, int64_t coeff) { return coeff == 1 ? term : make_mul(term, make_int(coeff)); }

}  // namespace

LinearSum LinearSum::from_expr(const Expr& e) {
  internal_check(e.dtype() == kIndexType, "linear sum of ", to_string(e.dtype()));
  if (const int64_t* v = as_const_int(e)) return LinearSum(*v);
  LinearSum s;
  if (const auto* op = e.as<AddNode>()) {
    s = from_expr(op->a);
    s.add(from_expr(op->b));
  } else if (const auto* op = e.as<SubNode>()) {
    s = from_expr(op->a);
    s.add(from_expr(op->b), -1);
  } else if (const auto* op = e.as<MulNode>(); op && as_const_int(op->b)) {
    s = from_expr(op->a);
    s.scale(*as_const_int(op->b));
  } else if (op && as_const_int(op->a)) {
    s = from_expr(op->b);
    s.scale(*as_const_int(op->a));
  } else {
    s.add_term(e, 1);
  }
  return s;
}

void LinearSum::add(const LinearSum& o, int64_t scale) {
  for (const auto& t : o.terms_) terms_.push_back({t.term, wrap_mul(t.coeff, scale), t.key});
  constant_ = wrap_add(constant_, wrap_mul(o.constant_, scale));
}

void LinearSum::add_term(const Expr& term, int64_t coeff) { terms_.push_back({term, coeff, shared_text(term)}); }

void LinearSum::add_const(int64_t c) { constant_ = wrap_add(constant_, c); }

void LinearSum::scale(int64_t k) {
  for (auto& t : terms_) t.coeff = wrap_mul(t.coeff, k);
  constant_ = wrap_mul(constant_, k);
}

void LinearSum::normalize() {
  do {
    std::vector<LinearTerm> merged;
    for (auto& t : terms_) {
      auto it = std::find_if(merged.begin(), merged.end(),
                             [&](const LinearTerm& m) { return *m.key == *t.key && structural_equal(m.term, t.term); });
      if (it == merged.end()) merged.push_back(std::move(t));
      else it->coeff = wrap_add(it->coeff, t.coeff);
    }
    std::erase_if(merged, [](const LinearTerm& t) { return t.coeff == 0; });
    terms_ = std::move(merged);
  } while (fold_div_mod_pair());
  // Larger strides first (io * 8 + ii), then by printed form; stable, so
  // terms that print alike keep their construction order.
  std::stable_sort(terms_.begin(), terms_.end(), [](const LinearTerm& x, const LinearTerm& y) {
    uint64_t ax = x.coeff < 0 ? 0 - static_cast<uint64_t>(x.coeff) : x.coeff;
    uint64_t ay = y.coeff < 0 ? 0 - static_cast<uint64_t>(y.coeff) : y.coeff;
    if (ax != ay) return ax > ay;
    return *x.key < *y.key;
  });
}

// Folds one pair `Y // b * (k*b) + Y % b * k` into `Y * k`, where the floordiv
// may also appear in its merged form `X // (a*b)` when Y is `X // a` (what
// fusing three or more loops leaves). Returns whether a pair was folded.
bool LinearSum::fold_div_mod_pair() {
  for (size_t m = 0; m < terms_.size(); ++m) {
    int64_t b = 0;
    const auto* mod = by_positive_const<FloorModNode>(terms_[m].term, b);
    if (!mod) continue;
    const Expr& y = mod->a;
    int64_t a = 0;
    const auto* inner = by_positive_const<FloorDivNode>(y, a);
    int64_t k = terms_[m].coeff;
    for (size_t d = 0; d < terms_.size(); ++d) {
      int64_t c = 0;
      const auto* div = by_positive_const<FloorDivNode>(terms_[d].term, c);
      if (!div || terms_[d].coeff != wrap_mul(k, b)) continue;
      bool direct = c == b && structural_equal(div->a, y);
      bool merged = inner && c == wrap_mul(a, b) && c / a == b && structural_equal(div->a, inner->a);
      if (!direct && !merged) continue;
      Expr folded = y;
      terms_.erase(terms_.begin() + static_cast<std::ptrdiff_t>(std::max(m, d)));
      terms_.erase(terms_.begin() + static_cast<std::ptrdiff_t>(std::min(m, d)));
      add(from_expr(folded), k);
      return true;
    }
  }
  return false;
}

Expr LinearSum::to_expr() const {
  LinearSum s = *this;
  s.normalize();
  Expr out;
  // Positive terms are added, negative ones subtracted; a sum with only
  // negative terms starts from a positive constant if it has one.
  for (const auto& t : s.terms_) {
    if (t.coeff <= 0) continue;
    out = out ? make_add(out, scaled(t.term, t.coeff)) : scaled(t.term, t.coeff);
  }
  int64_t rest = s.constant_;
  if (!out && rest > 0) {
    out = make_int(rest);
    rest = 0;
  }
  for (const auto& t : s.terms_) {
    if (t.coeff >= 0) continue;
    if (!out) {
      out = make_mul(t.term, make_int(t.coeff));
    } else {
      out = make_sub(out, scaled(t.term, wrap_mul(t.coeff, -1)));
    }
  }
  if (!out) return make_int(rest);
  if (rest > 0) out = make_add(out, make_int(rest));
  // -INT64_MIN wraps to itself, so that constant is added as it is.
  if (rest < 0) out = rest == INT64_MIN ? make_add(out, make_int(rest)) : make_sub(out, make_int(-rest));
  return out;
}

void LinearSum::divide(int64_t c, LinearSum& quotient, LinearSum& remainder) const {
  internal_check(c > 0, "divide by ", c);
  quotient = LinearSum(floordiv_int(constant_, c));
  remainder = LinearSum(floormod_int(constant_, c));
  // Coefficients split toward zero (9 = 8 + 1, -9 = -8 - 1): any split with
  // coeff == c*q + r is exact, and this one keeps the signs of the terms.
  for (const auto& t : terms_) {
    if (t.coeff / c != 0) quotient.terms_.push_back({t.term, t.coeff / c, t.key});
    if (t.coeff % c != 0) remainder.terms_.push_back({t.term, t.coeff % c, t.key});
  }
}

int64_t LinearSum::content() const {
  uint64_t g = constant_ < 0 ? 0 - static_cast<uint64_t>(constant_) : constant_;
  for (const auto& t : terms_) {
    uint64_t a = t.coeff < 0 ? 0 - static_cast<uint64_t>(t.coeff) : t.coeff;
    g = std::gcd(g, a);
  }
  // 2^63 does not fit; it only divides sums made of INT64_MIN multiples.
  return g > static_cast<uint64_t>(INT64_MAX) ? 1 : static_cast<int64_t>(g);
}

}  // namespace tunectl::ir
