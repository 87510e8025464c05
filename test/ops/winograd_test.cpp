// Winograd F(4x4, 3x3) and F(2x2, 3x3): with the transformed weights, the
// five-stage DAG (B^T and A^T as formulas) computes the blocked direct
// convolution, whole tiles and partial ones, padded and not, on several
// images and blocks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "ir/error.h"
#include "ops/conv2d.h"
#include "ops/conv2d_winograd.h"
#include "te/compute_dag.h"
#include "te/evaluate.h"

using namespace tunectl;
using runtime::NDArray;

namespace {

struct Shape {
  int64_t n, c, h, w, k, bi, bo, pad;
};

// Direct and Winograd outputs of one random convolution.
std::pair<NDArray, NDArray> both(const Shape& s, int64_t m, uint64_t seed) {
  const int64_t alpha = ops::winograd_alpha(m);
  te::Tensor data = te::placeholder("data", {s.n, s.c / s.bi, s.h, s.w, s.bi});
  te::Tensor weight = te::placeholder("weight", {s.k / s.bo, s.c / s.bi, 3, 3, s.bi, s.bo}, ir::DType::Float32, true);
  te::Tensor u = te::placeholder("u", {alpha, alpha, s.k / s.bo, s.c / s.bi, s.bi, s.bo}, ir::DType::Float32, true);
  ops::Conv2dAttrs a;
  a.padding = {s.pad, s.pad, s.pad, s.pad};
  te::ComputeDAG direct({ops::conv2d_nchwc(data, weight, a)});
  te::ComputeDAG winograd({ops::conv2d_winograd_nchwc(data, u, s.pad)});

  std::mt19937_64 rng(seed);
  NDArray x(ir::DType::Float32, data->shape()), w(ir::DType::Float32, weight->shape());
  x.fill_random(rng);
  w.fill_random(rng);
  std::vector<NDArray> args;
  for (const te::Tensor& p : winograd.placeholders()) {
    if (p == data) args.push_back(x);
    if (p == u) args.push_back(ops::winograd_weights(w, m));
  }
  REQUIRE(args.size() == 2);
  const std::vector<te::Tensor> direct_inputs = direct.placeholders();
  REQUIRE(direct_inputs.size() == 2);
  NDArray want = te::evaluate(direct, direct_inputs[0] == data ? std::vector<NDArray>{x, w} : std::vector<NDArray>{w, x})[0];
  return {want, te::evaluate(winograd, args)[0]};
}

}  // namespace

TEST_CASE("Winograd F(4x4, 3x3) and F(2x2, 3x3) compute the blocked 3x3 convolution", "[cpu]") {
  const int64_t m = GENERATE(4, 2);
  const Shape shapes[] = {
      {1, 32, 10, 11, 16, 16, 16, 1},  // partial tiles on both axes (F(2x2): one axis)
      {1, 16, 8, 8, 32, 16, 16, 1},    // whole tiles, two output blocks
      {2, 8, 9, 6, 8, 4, 8, 0},        // no padding, a batch, blocks of 4 in and 8 out
      {1, 4, 3, 3, 4, 4, 4, 1},        // one tile (F(2x2): two by two, one partial) for a 3x3 image
      {1, 8, 7, 7, 8, 8, 8, 1},        // ResNet-50's last stage in small: 7x7, partial tiles
  };
  uint64_t seed = 1;
  for (const Shape& s : shapes) {
    auto [want, got] = both(s, m, seed++);
    REQUIRE(want.shape() == got.shape());
    double largest = 0, worst = 0;
    for (int64_t i = 0; i < want.num_elements(); ++i) {
      largest = std::max(largest, std::abs(want.get(i)));
      worst = std::max(worst, std::abs(want.get(i) - got.get(i)));
    }
    INFO("F(" << m << "x" << m << ") C " << s.c << " H " << s.h << " W " << s.w << ": largest " << largest << ", worst difference " << worst);
    CHECK(largest > 0.5);
    // fp32 rounding of the transforms; a wrong index is off by O(largest).
    CHECK(worst < 2e-5 * largest * std::sqrt(static_cast<double>(s.c)));
  }
}

TEST_CASE("Winograd's inputs must match: transformed weight of the data's blocks, a tile of 2 or 4", "[cpu]") {
  te::Tensor data = te::placeholder("data", {1, 2, 8, 8, 16});
  te::Tensor wrong_blocks = te::placeholder("u", {6, 6, 1, 3, 16, 16});
  CHECK_THROWS_AS(ops::conv2d_winograd_nchwc(data, wrong_blocks, 1), UserError);
  CHECK_THROWS_AS(ops::conv2d_winograd_nchwc(data, te::placeholder("u5", {5, 5, 1, 2, 16, 16}), 1), UserError);
  CHECK_THROWS_AS(ops::conv2d_winograd_nchwc(data, te::placeholder("u64", {6, 4, 1, 2, 16, 16}), 1), UserError);
  CHECK_NOTHROW(ops::conv2d_winograd_nchwc(data, te::placeholder("u", {6, 6, 1, 2, 16, 16}), 1));
  CHECK_THROWS_AS(ops::winograd_weights(NDArray(ir::DType::Float32, {1, 2, 5, 5, 16, 16}), 4), UserError);
  CHECK_THROWS_AS(ops::winograd_weights(NDArray(ir::DType::Float32, {1, 2, 3, 3, 16, 16}), 3), UserError);
}
