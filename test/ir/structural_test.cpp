#include <catch2/catch.hpp>

#include "ir/structural.h"

using namespace tunectl::ir;

TEST_CASE("structural: equal by value, vars and buffers by identity", "[unit]") {
  Var i("i"), j("j"), other_i("i");
  Buffer a("A", DType::Float32, {8}), other_a("A", DType::Float32, {8});
  CHECK(structural_equal(i * 2 + j, i * 2 + j));
  CHECK(structural_hash(i * 2 + j) == structural_hash(i * 2 + j));
  CHECK_FALSE(structural_equal(i * 2 + j, other_i * 2 + j));
  CHECK_FALSE(structural_equal(i * 2 + j, i * 3 + j));
  CHECK_FALSE(structural_equal(i + j, j + i));
  CHECK_FALSE(structural_equal(i - j, i + j));
  CHECK_FALSE(structural_equal(make_int(1), make_int(1, DType::Int32)));
  CHECK(structural_equal(make_load(a, {i}), make_load(a, {i})));
  CHECK_FALSE(structural_equal(make_load(a, {i}), make_load(other_a, {i})));
  CHECK(structural_equal(Expr(0.5), Expr(0.5)));
  CHECK_FALSE(structural_equal(Expr(0.5), make_float(0.5, DType::Float64)));
  CHECK_FALSE(structural_equal(Expr(0.0), Expr(-0.0)));
  CHECK(structural_equal(make_call(MathFunc::exp, {make_load(a, {i})}), make_call(MathFunc::exp, {make_load(a, {i})})));
  CHECK_FALSE(
      structural_equal(make_call(MathFunc::exp, {make_load(a, {i})}), make_call(MathFunc::log, {make_load(a, {i})})));
  CHECK(structural_equal(make_select(i < j, i, j), make_select(i < j, i, j)));
  CHECK_FALSE(structural_equal(make_select(i < j, i, j), make_select(i <= j, i, j)));
}

TEST_CASE("structural: reductions compare combiner and axes", "[unit]") {
  Var i("i"), k("k"), k2("k");
  Buffer a("A", DType::Float32, {8, 8});
  auto red = [&](ReduceOp op, const Var& ax, int64_t ext) {
    return make_reduce(op, make_load(a, {i, ax}), {IterVar{ax, ext, IterKind::Reduce}});
  };
  CHECK(structural_equal(red(ReduceOp::Sum, k, 8), red(ReduceOp::Sum, k, 8)));
  CHECK(structural_hash(red(ReduceOp::Sum, k, 8)) == structural_hash(red(ReduceOp::Sum, k, 8)));
  CHECK_FALSE(structural_equal(red(ReduceOp::Sum, k, 8), red(ReduceOp::Max, k, 8)));
  CHECK_FALSE(structural_equal(red(ReduceOp::Sum, k, 8), red(ReduceOp::Sum, k, 4)));
  CHECK_FALSE(structural_equal(red(ReduceOp::Sum, k, 8), red(ReduceOp::Sum, k2, 8)));
}
