#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>

#include "ir/error.h"
#include "ops/matmul.h"
#include "ops/transform.h"
#include "te/evaluate.h"

using namespace tunectl;
using runtime::NDArray;

TEST_CASE("evaluate computes a matmul like plain loops", "[unit]") {
  const int64_t m = 7, n = 13, k = 15;
  te::Tensor a = te::placeholder("A", {m, k});
  te::Tensor b = te::placeholder("B", {k, n});
  te::ComputeDAG dag({ops::matmul(a, b)});
  std::mt19937_64 rng(1);
  auto in = te::random_inputs(dag, rng);
  NDArray out = te::evaluate(dag, in)[0];
  REQUIRE(out.shape() == std::vector<int64_t>{m, n});
  NDArray expect(ir::DType::Float32, {m, n});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (int64_t r = 0; r < k; ++r) acc += in[0].data<float>()[i * k + r] * in[1].data<float>()[r * n + j];
      expect.data<float>()[i * n + j] = acc;
    }
  auto cmp = runtime::all_close(out, expect, 1e-6, 1e-6);
  CHECK(cmp.ok);
  INFO(cmp.message);
}

TEST_CASE("evaluate handles integer math, casts and lazy selects", "[unit]") {
  te::Tensor x = te::placeholder("x", {5}, ir::DType::Int32);
  // floor division and modulo of negatives, and a guarded read past the end.
  te::Tensor y = te::compute(
      "y", {6},
      [&](const std::vector<ir::Var>& i) {
        ir::Expr j = i[0];
        ir::Expr v = ir::make_select(j < 5, ir::make_cast(ir::DType::Int64, te::read(x, {j})), ir::Expr(100));
        return v / 3 + v % 3 * 1000;
      },
      "", ir::DType::Int64);
  te::ComputeDAG dag({y});
  NDArray in(ir::DType::Int32, {5});
  const int64_t vals[5] = {-7, -1, 0, 5, 9};
  for (int i = 0; i < 5; ++i) in.set(i, static_cast<double>(vals[i]));
  NDArray out = te::evaluate(dag, {in})[0];
  auto fdiv = [](int64_t a, int64_t b) { return static_cast<int64_t>(std::floor(static_cast<double>(a) / b)); };
  for (int i = 0; i < 6; ++i) {
    int64_t v = i < 5 ? vals[i] : 100;
    int64_t q = fdiv(v, 3), r = v - 3 * q;
    CHECK(out.data<int64_t>()[i] == q + r * 1000);
  }
}

TEST_CASE("evaluate validates its inputs", "[unit][error]") {
  te::ComputeDAG dag({ops::matmul(te::placeholder("A", {4, 3}), te::placeholder("B", {3, 2}))});
  NDArray a(ir::DType::Float32, {4, 3}), b(ir::DType::Float32, {3, 2});
  CHECK_NOTHROW(te::evaluate(dag, {a, b}));
  CHECK_THROWS_AS(te::evaluate(dag, {a}), UserError);
  CHECK_THROWS_AS(te::evaluate(dag, {a, NDArray(ir::DType::Float32, {2, 3})}), UserError);
  CHECK_THROWS_AS(te::evaluate(dag, {a, NDArray(ir::DType::Float64, {3, 2})}), UserError);
}

TEST_CASE("evaluate runs every op of a multi-stage DAG", "[unit]") {
  te::Tensor x = te::placeholder("x", {3, 4});
  te::Tensor p = ops::pad(x, {1, 0}, {0, 2}, -2.0);
  te::Tensor t = ops::transpose(p, {1, 0});
  te::ComputeDAG dag({t});
  std::mt19937_64 rng(3);
  auto in = te::random_inputs(dag, rng);
  NDArray out = te::evaluate(dag, in)[0];
  REQUIRE(out.shape() == std::vector<int64_t>{6, 4});
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      // out[i][j] = pad[j][i]; pad row 0 and columns 4, 5 are the value.
      double expect = (j == 0 || i >= 4) ? -2.0 : in[0].get((j - 1) * 4 + i);
      CHECK(out.get(i * 4 + j) == expect);
    }
}

TEST_CASE("evaluate is fast enough for a million multiply-adds", "[unit]") {
  te::ComputeDAG dag({ops::matmul(te::placeholder("A", {100, 100}), te::placeholder("B", {100, 100}))});
  std::mt19937_64 rng(5);
  auto in = te::random_inputs(dag, rng);
  auto start = std::chrono::steady_clock::now();
  te::evaluate(dag, in);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(s < 1.0);
}

TEST_CASE("evaluate reports a read out of range from any worker thread", "[unit][error]") {
  // The last element reads x[64]: it falls in the last chunk, which a pool
  // worker (not the calling thread) computes when there are two threads.
  te::Tensor x = te::placeholder("x", {64});
  te::Tensor y = te::compute("y", {64}, [&](const std::vector<ir::Var>& i) { return te::read(x, {i[0] + 1}); });
  te::ComputeDAG dag({y});
  std::mt19937_64 rng(7);
  CHECK_THROWS_AS(te::evaluate(dag, te::random_inputs(dag, rng)), InternalError);
}

TEST_CASE("evaluate reads affine indices with negative and repeated terms like plain loops", "[unit]") {
  // Reads provably in range take one precomputed offset: reversed rows, a
  // stride, a variable that appears twice and a reduction variable.
  te::Tensor x = te::placeholder("x", {6, 8});
  ir::IterVar k = te::reduce_axis(2, "k");
  te::Tensor y = te::compute("y", {6, 3}, [&](const std::vector<ir::Var>& i) {
    ir::Expr row = ir::Expr(5) - i[0], col = i[1] * 2 + k.var + i[1] - i[1];
    return te::sum(te::read(x, {row, col}) * te::read(x, {i[0], ir::Expr(6) - i[1] * 3 + k.var}), {k});
  });
  te::ComputeDAG dag({y});
  std::mt19937_64 rng(9);
  auto in = te::random_inputs(dag, rng);
  NDArray out = te::evaluate(dag, in)[0];
  const float* a = in[0].data<float>();
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      float acc = 0;
      for (int64_t r = 0; r < 2; ++r) acc += a[(5 - i) * 8 + j * 2 + r] * a[i * 8 + 6 - j * 3 + r];
      INFO(i << ", " << j);
      CHECK(out.data<float>()[i * 3 + j] == Approx(acc).epsilon(1e-6));
    }
}
