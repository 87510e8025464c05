// The canonical form of Int64 index arithmetic inside the simplifier: a sum
// of coefficient * term plus a constant, where a term is anything that is not
// itself an addition, subtraction or multiplication by a constant (a
// variable, a floordiv, a load, a product of two variables, ...). Like terms
// are combined structurally, split-then-fuse pairs `x // c * c + x % c` are
// folded back into x, and terms are ordered by a printed key, so equal sums
// always print the same whatever order they were built in.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "ir/scalar_math.h"

namespace tunectl::ir {

struct LinearTerm {
  Expr term;
  int64_t coeff;
  std::shared_ptr<const std::string> key;  // printed term: the deterministic ordering key
};

// Coefficient arithmetic wraps like the int64 machine arithmetic it models
// (add and mul are exact modulo 2^64, so reassociation stays valid).
class LinearSum {
 public:
  LinearSum() = default;
  explicit LinearSum(int64_t c) : constant_(c) {}

  // Decomposes e (Int64) through Add, Sub, Mul by a constant and immediates.
  static LinearSum from_expr(const Expr& e);

  void add(const LinearSum& o, int64_t scale = 1);
  void add_term(const Expr& term, int64_t coeff);
  void add_const(int64_t c);
  void scale(int64_t k);

  // Combines like terms, drops zero terms, folds div/mod pairs and sorts.
  void normalize();
  // The canonical expression (normalizes a copy).
  Expr to_expr() const;

  bool is_const() const { return terms_.empty(); }
  int64_t constant() const { return constant_; }
  const std::vector<LinearTerm>& terms() const { return terms_; }
  // Splits *this == quotient * c + remainder for c > 0, where every
  // remainder coefficient has |coeff| < c and 0 <= remainder.constant() < c.
  void divide(int64_t c, LinearSum& quotient, LinearSum& remainder) const;
  // The gcd of all coefficients and the constant (0 for the zero sum).
  int64_t content() const;

 private:
  bool fold_div_mod_pair();

  std::vector<LinearTerm> terms_;
  int64_t constant_ = 0;
};

int64_t wrap_add(int64_t a, int64_t b);
int64_t wrap_mul(int64_t a, int64_t b);

}  // namespace tunectl::ir
