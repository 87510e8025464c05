// ops/index.h and the integer forms of ops/elemwise.h, evaluated with the
// reference evaluator against values worked out here.
#include <catch2/catch.hpp>

#include "ir/error.h"
#include "ops/elemwise.h"
#include "ops/index.h"
#include "te/compute_dag.h"
#include "te/evaluate.h"

using namespace tunectl;

namespace {

runtime::NDArray ints(std::vector<int64_t> shape, std::vector<int64_t> v) {
  runtime::NDArray a(ir::DType::Int64, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) a.data<int64_t>()[i] = v[i];
  return a;
}

std::vector<double> run(const te::Tensor& out, const std::vector<runtime::NDArray>& in) {
  runtime::NDArray r = te::evaluate(te::ComputeDAG({out}), in)[0];
  std::vector<double> v;
  for (int64_t i = 0; i < r.num_elements(); ++i) v.push_back(r.get(i));
  return v;
}

}  // namespace

TEST_CASE("integer div truncates toward zero", "[unit][ops]") {
  te::Tensor a = te::placeholder("a", {6}, ir::DType::Int64), b = te::placeholder("b", {6}, ir::DType::Int64);
  auto got = run(ops::div(a, b), {ints({6}, {7, -7, 7, -7, 6, -6}), ints({6}, {2, 2, -2, -2, -3, 3})});
  CHECK(got == std::vector<double>{3, -3, -3, 3, -2, -2});
}

TEST_CASE("gather wraps negative indices and clamps out-of-range ones", "[unit][ops]") {
  te::Tensor data = te::placeholder("d", {4}, ir::DType::Int64), idx = te::placeholder("i", {4}, ir::DType::Int64);
  auto got = run(ops::gather(data, idx, 0), {ints({4}, {10, 11, 12, 13}), ints({4}, {-1, 0, 9, -9})});
  CHECK(got == std::vector<double>{13, 10, 13, 10});
}

TEST_CASE("strided slice, border padding, tables and ranges", "[unit][ops]") {
  te::Tensor x = te::placeholder("x", {5}, ir::DType::Int64);
  runtime::NDArray xv = ints({5}, {0, 1, 2, 3, 4});
  CHECK(run(ops::strided_slice(x, {4}, {-2}, {3}), {xv}) == std::vector<double>{4, 2, 0});
  CHECK_THROWS_AS(ops::strided_slice(x, {4}, {-2}, {4}), UserError);
  CHECK(run(ops::pad_border(x, {2}, {1}, ops::BorderMode::Reflect), {xv}) ==
        std::vector<double>{2, 1, 0, 1, 2, 3, 4, 3});
  CHECK(run(ops::pad_border(x, {1}, {2}, ops::BorderMode::Edge), {xv}) == std::vector<double>{0, 0, 1, 2, 3, 4, 4, 4});
  // Wrap pads may exceed the extent: the axis is a ring.
  CHECK(run(ops::pad_border(x, {7}, {2}, ops::BorderMode::Wrap), {xv}) ==
        std::vector<double>{3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1});
  CHECK(run(ops::value_table(ints({2, 2}, {5, -6, 7, 8})), {}) == std::vector<double>{5, -6, 7, 8});
  CHECK(run(ops::arange(1.5, -0.5, 4, ir::DType::Float32), {}) == std::vector<double>{1.5, 1.0, 0.5, 0.0});
  CHECK(run(ops::full({2, 1}, ir::DType::Int32, 3), {}) == std::vector<double>{3, 3});
}
