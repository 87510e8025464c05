#include <catch2/catch.hpp>

#include "ir/const_bound.h"

using namespace tunectl::ir;

namespace {
IntBound range(int64_t lo, int64_t hi) { return {lo, hi}; }
}  // namespace

TEST_CASE("const_bound: arithmetic over bounded vars", "[unit]") {
  Var i("i"), j("j"), n("n");
  VarMap<IntBound> vars{{i, range(0, 63)}, {j, range(-4, 3)}};
  CHECK(const_int_bound(make_int(5), vars) == range(5, 5));
  CHECK(const_int_bound(i, vars) == range(0, 63));
  CHECK(const_int_bound(i + j, vars) == range(-4, 66));
  CHECK(const_int_bound(i - j, vars) == range(-3, 67));
  CHECK(const_int_bound(i * -2, vars) == range(-126, 0));
  CHECK(const_int_bound(i * j, vars) == range(-252, 189));
  CHECK(const_int_bound(i / 8, vars) == range(0, 7));
  CHECK(const_int_bound(j / 8, vars) == range(-1, 0));
  CHECK(const_int_bound(i % 8, vars) == range(0, 7));
  CHECK(const_int_bound(j % 8, vars) == range(0, 7));
  CHECK(const_int_bound((i / 8) % 16, vars) == range(0, 7));
  CHECK(const_int_bound(make_min(i, j), vars) == range(-4, 3));
  CHECK(const_int_bound(make_max(i, j), vars) == range(0, 63));
  CHECK(const_int_bound(make_select(i < 3, j, i), vars) == range(-4, 63));
  CHECK(const_int_bound(i < j, vars) == range(0, 1));
  CHECK(const_int_bound(make_cast(DType::Int32, i), vars) == range(0, 63));
}

TEST_CASE("const_bound: floormod inside one period is exact", "[unit]") {
  Var i("i");
  VarMap<IntBound> vars{{i, range(0, 3)}};
  CHECK(const_int_bound((i + 17) % 16, vars) == range(1, 4));
  CHECK(const_int_bound((i + 14) % 16, vars) == range(0, 15));
  CHECK(const_int_bound((i - 8) / -4, vars) == range(1, 2));
}

TEST_CASE("const_bound: unknown vars and saturation", "[unit]") {
  Var i("i"), n("n"), w("w", DType::Int32);
  VarMap<IntBound> vars{{i, range(0, 9)}};
  CHECK(const_int_bound(n, vars) == IntBound::everything());
  CHECK(const_int_bound(i + n, vars) == IntBound::everything());
  CHECK(const_int_bound(n * 0, vars) == range(0, 0));
  CHECK(const_int_bound(n % 8, vars) == range(0, 7));
  CHECK(const_int_bound(n / 8, vars) == IntBound::everything());
  CHECK(const_int_bound(i / n, vars) == IntBound::everything());
  IntBound wb = const_int_bound(w, vars);
  CHECK(wb.min == INT32_MIN);
  CHECK(wb.max == INT32_MAX);
  // A product overflowing int64 saturates instead of wrapping.
  IntBound big = const_int_bound(make_int(INT64_MAX / 2) * (i + 3), vars);
  CHECK(big.min > 0);
  CHECK(big.max == IntBound::kPosInf);
  CHECK(loop_bound(4, 8) == range(4, 11));
  CHECK_FALSE(const_int_bound(Expr(1.5), vars).is_finite());
}
