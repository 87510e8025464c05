#include <catch2/catch.hpp>

#include <cmath>

#include "ir/error.h"
#include "ops/elemwise.h"
#include "ops/matmul.h"
#include "ops/normalization.h"
#include "ops/reduce.h"
#include "ops/transform.h"
#include "te/evaluate.h"

using namespace tunectl;
using runtime::NDArray;

namespace {

NDArray run(const te::Tensor& out, std::vector<NDArray>& in, uint64_t seed) {
  te::ComputeDAG dag({out});
  std::mt19937_64 rng(seed);
  in = te::random_inputs(dag, rng);
  return te::evaluate(dag, in)[0];
}

}  // namespace

TEST_CASE("gemm, dense and batch matmul", "[unit][ops]") {
  std::vector<NDArray> in;
  // gemm with transposed A, alpha, beta and a row-broadcast C.
  te::Tensor a = te::placeholder("A", {5, 7});  // [K, M]
  te::Tensor b = te::placeholder("B", {5, 3});
  te::Tensor c = te::placeholder("C", {3});
  NDArray g = run(ops::gemm(a, b, c, 0.5, 2.0, true, false), in, 1);
  for (int64_t i = 0; i < 7; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < 5; ++k) acc += in[0].get(k * 7 + i) * in[1].get(k * 3 + j);
      CHECK(g.get(i * 3 + j) == Approx(0.5 * acc + 2.0 * in[2].get(j)).margin(1e-5));
    }
  // dense: x W^T + b.
  te::Tensor x = te::placeholder("x", {4, 6});
  te::Tensor w = te::placeholder("weight", {9, 6});
  te::Tensor bias = te::placeholder("bias", {9});
  NDArray d = run(ops::dense(x, w, bias), in, 2);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 9; ++j) {
      double acc = in[2].get(j);
      for (int64_t k = 0; k < 6; ++k) acc += in[0].get(i * 6 + k) * in[1].get(j * 6 + k);
      CHECK(d.get(i * 9 + j) == Approx(acc).margin(1e-5));
    }
  // batch matmul: [2, 1, 3, 4] x [5, 4, 2] broadcasts to [2, 5, 3, 2].
  te::Tensor ba = te::placeholder("A", {2, 1, 3, 4});
  te::Tensor bb = te::placeholder("B", {5, 4, 2});
  NDArray bm = run(ops::batch_matmul(ba, bb), in, 3);
  REQUIRE(bm.shape() == std::vector<int64_t>{2, 5, 3, 2});
  for (int64_t p = 0; p < 2; ++p)
    for (int64_t q = 0; q < 5; ++q)
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 2; ++j) {
          double acc = 0;
          for (int64_t k = 0; k < 4; ++k) acc += in[0].get((p * 3 + i) * 4 + k) * in[1].get((q * 4 + k) * 2 + j);
          CHECK(bm.get(((p * 5 + q) * 3 + i) * 2 + j) == Approx(acc).margin(1e-5));
        }
  CHECK_THROWS_AS(ops::matmul(te::placeholder("A", {3, 4}), te::placeholder("B", {5, 2})), UserError);
  CHECK_THROWS_AS(ops::batch_matmul(te::placeholder("A", {2, 3, 4}), te::placeholder("B", {3, 4, 2})), UserError);
}

TEST_CASE("elementwise ops broadcast numpy-style", "[unit][ops]") {
  std::vector<NDArray> in;
  te::Tensor a = te::placeholder("a", {3, 1, 5});
  te::Tensor b = te::placeholder("b", {4, 1});
  NDArray s = run(ops::sub(a, b), in, 4);
  REQUIRE(s.shape() == std::vector<int64_t>{3, 4, 5});
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t k = 0; k < 5; ++k)
        CHECK(s.get((i * 4 + j) * 5 + k) == static_cast<float>(in[0].get(i * 5 + k)) - static_cast<float>(in[1].get(j)));
  CHECK_THROWS_AS(ops::add(te::placeholder("a", {3, 2}), te::placeholder("b", {3})), UserError);

  te::Tensor x = te::placeholder("x", {7, 13});
  struct Unary {
    te::Tensor out;
    std::function<double(double)> f;
  };
  std::vector<Unary> cases{
      {ops::relu(x), [](double v) { return std::max(v, 0.0); }},
      {ops::clip(x, -0.3, 0.4), [](double v) { return std::min(std::max(v, -0.3), 0.4); }},
      {ops::sigmoid(x), [](double v) { return 1 / (1 + std::exp(-v)); }},
      {ops::tanh(x), [](double v) { return std::tanh(v); }},
      {ops::gelu(x), [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }},
      {ops::exp(x), [](double v) { return std::exp(v); }},
      {ops::abs(x), [](double v) { return std::fabs(v); }},
      {ops::neg(x), [](double v) { return -v; }},
      {ops::leaky_relu(x, 0.1), [](double v) { return v > 0 ? v : 0.1 * v; }},
  };
  for (const auto& c : cases) {
    NDArray y = run(c.out, in, 5);
    INFO(c.out->name);
    for (int64_t i = 0; i < 91; ++i) CHECK(y.get(i) == Approx(c.f(in[0].get(i))).margin(1e-6));
  }
}

TEST_CASE("softmax rows sum to one and follow the definition", "[unit][ops]") {
  std::vector<NDArray> in;
  te::Tensor x = te::placeholder("x", {3, 7, 5});
  NDArray y = run(ops::softmax(x, 1), in, 6);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t k = 0; k < 5; ++k) {
      double total = 0, denom = 0;
      for (int64_t j = 0; j < 7; ++j) denom += std::exp(in[0].get((i * 7 + j) * 5 + k));
      for (int64_t j = 0; j < 7; ++j) {
        double v = y.get((i * 7 + j) * 5 + k);
        total += v;
        CHECK(v == Approx(std::exp(in[0].get((i * 7 + j) * 5 + k)) / denom).margin(1e-6));
      }
      CHECK(total == Approx(1.0).margin(1e-5));
    }
  te::ComputeDAG dag({ops::softmax(x)});
  CHECK(dag.ops().size() == 4);  // placeholder, max, exp-sum, normalize
}

TEST_CASE("layer norm gives mean 0 and variance 1 before the affine part", "[unit][ops]") {
  std::vector<NDArray> in;
  te::Tensor x = te::placeholder("x", {4, 3, 5});
  NDArray y = run(ops::layer_norm(x, nullptr, nullptr, -2, 1e-5), in, 7);
  for (int64_t r = 0; r < 4; ++r) {
    double m = 0, v = 0;
    for (int64_t i = 0; i < 15; ++i) m += y.get(r * 15 + i);
    m /= 15;
    for (int64_t i = 0; i < 15; ++i) v += (y.get(r * 15 + i) - m) * (y.get(r * 15 + i) - m);
    CHECK(m == Approx(0).margin(1e-5));
    CHECK(v / 15 == Approx(1).margin(1e-3));
  }
  te::Tensor g = te::placeholder("scale", {5});
  te::Tensor b = te::placeholder("bias", {5});
  NDArray z = run(ops::layer_norm(x, g, b), in, 8);
  for (int64_t r = 0; r < 12; ++r) {
    double m = 0, v = 0;
    for (int64_t i = 0; i < 5; ++i) m += in[0].get(r * 5 + i) / 5;
    for (int64_t i = 0; i < 5; ++i) v += (in[0].get(r * 5 + i) - m) * (in[0].get(r * 5 + i) - m) / 5;
    for (int64_t i = 0; i < 5; ++i) {
      double expect = (in[0].get(r * 5 + i) - m) / std::sqrt(v + 1e-5) * in[1].get(i) + in[2].get(i);
      CHECK(z.get(r * 5 + i) == Approx(expect).margin(1e-4));
    }
  }
}

TEST_CASE("reductions over axes with keepdims", "[unit][ops]") {
  std::vector<NDArray> in;
  te::Tensor x = te::placeholder("x", {3, 4, 5});
  NDArray s = run(ops::reduce_sum(x, {0, -1}, true), in, 9);
  REQUIRE(s.shape() == std::vector<int64_t>{1, 4, 1});
  for (int64_t j = 0; j < 4; ++j) {
    double acc = 0;
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t k = 0; k < 5; ++k) acc += in[0].get((i * 4 + j) * 5 + k);
    CHECK(s.get(j) == Approx(acc).margin(1e-5));
  }
  NDArray m = run(ops::reduce_max(x, {1}), in, 10);
  REQUIRE(m.shape() == std::vector<int64_t>{3, 5});
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t k = 0; k < 5; ++k) {
      double best = -1e9;
      for (int64_t j = 0; j < 4; ++j) best = std::max(best, in[0].get((i * 4 + j) * 5 + k));
      CHECK(m.get(i * 5 + k) == best);
    }
  NDArray mean = run(ops::reduce_mean(x, {}), in, 11);
  REQUIRE(mean.shape() == std::vector<int64_t>{1});
  double total = 0;
  for (int64_t i = 0; i < 60; ++i) total += in[0].get(i);
  CHECK(mean.get(0) == Approx(total / 60).margin(1e-5));
  CHECK_THROWS_AS(ops::reduce_sum(x, {3}), UserError);
}

TEST_CASE("transpose, pad, concat, reshape, flatten", "[unit][ops]") {
  std::vector<NDArray> in;
  te::Tensor x = te::placeholder("x", {2, 3, 4});
  NDArray t = run(ops::transpose(x, {2, 0, 1}), in, 12);
  REQUIRE(t.shape() == std::vector<int64_t>{4, 2, 3});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k) CHECK(t.get((k * 2 + i) * 3 + j) == in[0].get((i * 3 + j) * 4 + k));

  NDArray p = run(ops::pad(x, {0, 1, 2}, {1, 0, 1}, 7.0), in, 13);
  REQUIRE(p.shape() == std::vector<int64_t>{3, 4, 7});
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t k = 0; k < 7; ++k) {
        bool inside = i < 2 && j >= 1 && k >= 2 && k < 6;
        double expect = inside ? in[0].get((i * 3 + j - 1) * 4 + k - 2) : 7.0;
        CHECK(p.get((i * 4 + j) * 7 + k) == expect);
      }

  te::Tensor a = te::placeholder("a", {2, 2}), b = te::placeholder("b", {2, 3}), c = te::placeholder("c", {2, 1});
  te::ComputeDAG cat({ops::concat({a, b, c}, -1)});
  std::mt19937_64 rng(14);
  auto cin = te::random_inputs(cat, rng);
  NDArray cy = te::evaluate(cat, cin)[0];
  REQUIRE(cy.shape() == std::vector<int64_t>{2, 6});
  for (int64_t i = 0; i < 2; ++i) {
    CHECK(cy.get(i * 6 + 0) == cin[0].get(i * 2 + 0));
    CHECK(cy.get(i * 6 + 1) == cin[0].get(i * 2 + 1));
    for (int64_t j = 0; j < 3; ++j) CHECK(cy.get(i * 6 + 2 + j) == cin[1].get(i * 3 + j));
    CHECK(cy.get(i * 6 + 5) == cin[2].get(i));
  }

  for (const te::Tensor& r : {ops::reshape(x, {0, -1, 3}), ops::flatten(x, 2), ops::reshape(x, {24})}) {
    NDArray y = run(r, in, 15);
    CHECK(y.num_elements() == 24);
    for (int64_t i = 0; i < 24; ++i) CHECK(y.get(i) == in[0].get(i));
  }
  CHECK(ops::reshape(x, {0, -1, 3})->shape() == std::vector<int64_t>{2, 4, 3});
  CHECK(ops::flatten(x, 2)->shape() == std::vector<int64_t>{6, 4});
  CHECK_THROWS_AS(ops::reshape(x, {5, -1}), UserError);
  CHECK_THROWS_AS(ops::transpose(x, {0, 0, 1}), UserError);
  CHECK_THROWS_AS(ops::concat({a, te::placeholder("d", {3, 1})}, 1), UserError);
}
