// check::reference_outputs: small workloads get every element of the
// reference; big ones the elements at sampled positions (borders, then
// random ones), equal to the whole evaluation there, and compare_outputs
// catches a wrong element on a border or among the random samples.
#include <catch2/catch.hpp>

#include <set>

#include "check/reference_check.h"
#include "ops/elemwise.h"
#include "ops/matmul.h"
#include "te/evaluate.h"

using namespace tunectl;

namespace {

te::ComputeDAG matmul_dag(int64_t m, int64_t n, int64_t k) {
  return te::ComputeDAG({ops::matmul(te::placeholder("A", {m, k}), te::placeholder("B", {k, n}))});
}

// A copy with its own storage (NDArray copies share theirs).
runtime::NDArray copy_of(const runtime::NDArray& a) {
  runtime::NDArray out(a.dtype(), a.shape());
  for (int64_t i = 0; i < a.num_elements(); ++i) out.set(i, a.get(i));
  return out;
}

}  // namespace

TEST_CASE("evaluate_at computes the outputs at the positions as evaluate does", "[unit]") {
  te::ComputeDAG dag = matmul_dag(9, 7, 5);
  std::vector<runtime::NDArray> in = check::check_inputs(dag, 3);
  const runtime::NDArray whole = te::evaluate(dag, in)[0];
  const std::vector<int64_t> at = {0, 8, 62, 30, 31};
  const runtime::NDArray part = te::evaluate_at(dag, in, {at})[0];
  for (int64_t p : at) CHECK(part.get(p) == whole.get(p));
  CHECK(part.get(1) == 0);  // not asked for
}

TEST_CASE("evaluate_at computes an output another output reads whole", "[unit]") {
  te::Tensor mm = ops::matmul(te::placeholder("A", {6, 4}), te::placeholder("B", {4, 5}));
  te::ComputeDAG dag({mm, ops::relu(mm)});
  std::vector<runtime::NDArray> in = check::check_inputs(dag, 5);
  const std::vector<runtime::NDArray> whole = te::evaluate(dag, in);
  const std::vector<int64_t> at = {3, 17, 29};
  const std::vector<runtime::NDArray> part = te::evaluate_at(dag, in, {at, at});
  for (int64_t p = 0; p < 30; ++p) CHECK(part[0].get(p) == whole[0].get(p));  // read by relu: whole
  for (int64_t p : at) CHECK(part[1].get(p) == whole[1].get(p));
}

TEST_CASE("reference outputs: every element of a small workload", "[unit]") {
  te::ComputeDAG dag = matmul_dag(64, 64, 64);
  check::ReferenceOutputs r = check::reference_outputs(dag, check::check_inputs(dag, 1), 1);
  CHECK(r.positions.empty());
  CHECK(r.values.at(0).num_elements() == 64 * 64);
}

TEST_CASE("reference outputs: a big workload is sampled on its borders and at random", "[unit]") {
  const int64_t n = 2048;  // 2 x 2048^3 flops: past kSampledReferenceFlops
  te::ComputeDAG dag = matmul_dag(n, n, n);
  REQUIRE(dag.flop_count() > check::kSampledReferenceFlops);
  std::vector<runtime::NDArray> in = check::check_inputs(dag, 1);
  check::ReferenceOutputs r = check::reference_outputs(dag, in, 1);
  REQUIRE(r.positions.size() == 1);
  const std::vector<int64_t>& at = r.positions[0];
  CHECK(static_cast<int64_t>(at.size()) == 4 * n - 4 + check::kRandomSamples);
  const std::set<int64_t> sampled(at.begin(), at.end());
  for (int64_t p : {int64_t{0}, n - 1, n * n - 1, (n - 1) * n, 5 * n, 5 * n + n - 1}) CHECK(sampled.count(p) == 1);

  // Exact where sampled: an output row computed by hand agrees.
  auto element = [&](int64_t i, int64_t j) {
    float acc = 0;
    for (int64_t k = 0; k < n; ++k) acc += in[0].data<float>()[i * n + k] * in[1].data<float>()[k * n + j];
    return acc;
  };
  for (int64_t p : {at.front(), at.back(), at[at.size() / 2]})
    CHECK(r.values[0].get(p) == Approx(element(p / n, p % n)).margin(1e-3));

  // A kernel's output equal to the reference passes; one wrong element on
  // the last column, or at a random sample, fails.
  std::vector<runtime::NDArray> out = {copy_of(r.values[0])};
  CHECK(check::compare_outputs(dag, out, r).ok);
  out[0].set(7 * n + n - 1, out[0].get(7 * n + n - 1) + 1);
  CHECK_FALSE(check::compare_outputs(dag, out, r).ok);
  out[0] = copy_of(r.values[0]);
  out[0].set(at.back(), out[0].get(at.back()) + 1);
  CHECK_FALSE(check::compare_outputs(dag, out, r).ok);
}

TEST_CASE("compare_outputs: an element that cancels to near zero may keep the rounding of the output's scale",
          "[unit]") {
  te::ComputeDAG dag = matmul_dag(1, 3, 2);
  runtime::NDArray expected(ir::DType::Float32, {1, 3});
  expected.set(0, 1000.0);  // the output's scale
  expected.set(1, 0.01);    // cancelled: rounding of terms of ~1000
  expected.set(2, -3.0);
  const std::vector<runtime::NDArray> want{expected};
  runtime::NDArray actual = copy_of(expected);
  actual.set(1, 0.01 + 0.015);  // 1.5e-5 of the largest: within 2e-5 of it
  CHECK(check::compare_outputs(dag, {actual}, want, {}).ok);
  actual.set(1, 0.01 + 0.03);  // 3e-5 of it: past
  CHECK_FALSE(check::compare_outputs(dag, {actual}, want, {}).ok);
  // Without the scale term the per-element tolerance alone decides.
  actual.set(1, 0.01 + 0.015);
  CHECK_FALSE(check::compare_outputs(dag, {actual}, want, {1e-3, 1e-4, 0.0}).ok);
  // A wrong element of the same size as the others is far past either term.
  actual = copy_of(expected);
  actual.set(2, -2.5);
  CHECK_FALSE(check::compare_outputs(dag, {actual}, want, {}).ok);
}
