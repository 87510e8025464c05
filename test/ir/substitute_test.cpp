#include <catch2/catch.hpp>

#include "ir/printer.h"
#include "ir/substitute.h"

using namespace tunectl::ir;

TEST_CASE("substitute: replaces variables and keeps sharing", "[unit]") {
  Var i("i"), j("j"), io("io"), ii("ii");
  Buffer a("A", DType::Float32, {64, 64});
  Expr untouched = make_load(a, {j, j});
  Expr e = make_load(a, {i, j}) + untouched;
  VarMap<Expr> map{{i, io * 8 + ii}};
  Expr s = substitute(e, map);
  CHECK(to_string(s) == "A[io * 8 + ii, j] + A[j, j]");
  CHECK(s.as<AddNode>()->b.same_as(untouched));
  CHECK(substitute(e, VarMap<Expr>{{ii, i}}).same_as(e));
}

TEST_CASE("substitute: replacements are not substituted again", "[unit]") {
  Var i("i"), j("j");
  Expr s = substitute(i + j, VarMap<Expr>{{i, j}, {j, i}});
  CHECK(to_string(s) == "j + i");
}

TEST_CASE("substitute: inside reductions and statements", "[unit]") {
  Var i("i"), k("k"), n("n");
  Buffer a("A", DType::Float32, {64, 64});
  Buffer c("C", DType::Float32, {64});
  Expr r = make_reduce(ReduceOp::Max, make_load(a, {i, k}), {IterVar{k, 64, IterKind::Reduce}});
  CHECK(to_string(substitute(r, VarMap<Expr>{{i, n + 1}})) == "max(A[n + 1, k], axis=[k:0..64])");
  Stmt s = make_for(i, 0, n, ForKind::Serial, make_store(c, {i}, make_load(a, {i, n})));
  CHECK(to_string(substitute(s, VarMap<Expr>{{n, make_int(64)}})) == "for i (0, 64) {\n  C[i] = A[i, 64]\n}\n");
}

TEST_CASE("substitute: uses_var and free_vars", "[unit]") {
  Var i("i"), j("j"), k("k");
  Buffer a("A", DType::Float32, {64, 64});
  Expr e = i * 2 + j - i;
  CHECK(uses_var(e, i));
  CHECK_FALSE(uses_var(e, k));
  CHECK(uses_any_var(e, VarSet{k, j}));
  CHECK_FALSE(uses_any_var(e, VarSet{k}));
  auto fv = free_vars(e);
  REQUIRE(fv.size() == 2);
  CHECK(fv[0].same_as(i));
  CHECK(fv[1].same_as(j));
  Expr r = make_reduce(ReduceOp::Sum, make_load(a, {i, k}), {IterVar{k, 64, IterKind::Reduce}});
  auto rv = free_vars(r);
  REQUIRE(rv.size() == 1);
  CHECK(rv[0].same_as(i));
}
