#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/error.h"
#include "ops/conv2d.h"
#include "ops/elemwise.h"
#include "ops/pool.h"
#include "te/evaluate.h"

using namespace tunectl;
using runtime::NDArray;

namespace {

// Direct convolution with explicit bounds checks instead of a pad stage.
NDArray conv_reference(const NDArray& x, const NDArray& w, const ops::Conv2dAttrs& a) {
  int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], wd = x.shape()[3];
  int64_t k = w.shape()[0], cg = w.shape()[1], r = w.shape()[2], s = w.shape()[3];
  int64_t oh = (h + a.padding[0] + a.padding[2] - a.dilation[0] * (r - 1) - 1) / a.stride[0] + 1;
  int64_t ow = (wd + a.padding[1] + a.padding[3] - a.dilation[1] * (s - 1) - 1) / a.stride[1] + 1;
  NDArray out(ir::DType::Float32, {n, k, oh, ow});
  int64_t kg = k / a.groups;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t f = 0; f < k; ++f)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t z = 0; z < ow; ++z) {
          float acc = 0;
          for (int64_t q = 0; q < cg; ++q)
            for (int64_t u = 0; u < r; ++u)
              for (int64_t v = 0; v < s; ++v) {
                int64_t iy = y * a.stride[0] + u * a.dilation[0] - a.padding[0];
                int64_t ix = z * a.stride[1] + v * a.dilation[1] - a.padding[1];
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                int64_t ch = (f / kg) * cg + q;
                acc += x.data<float>()[((b * c + ch) * h + iy) * wd + ix] *
                       w.data<float>()[((f * cg + q) * r + u) * s + v];
              }
          out.data<float>()[((b * k + f) * oh + y) * ow + z] = acc;
        }
  return out;
}

void check_close(const NDArray& actual, const NDArray& expected, double tol = 1e-5) {
  auto r = runtime::all_close(actual, expected, tol, tol);
  INFO(r.message);
  CHECK(r.ok);
}

struct ConvCase {
  std::vector<int64_t> data, weight;
  ops::Conv2dAttrs attrs;
};

}  // namespace

TEST_CASE("conv2d matches a direct loop nest", "[unit][ops]") {
  std::vector<ConvCase> cases;
  cases.push_back({{1, 3, 7, 7}, {4, 3, 3, 3}, {}});
  cases.push_back({{2, 4, 13, 11}, {6, 4, 3, 3}, {{2, 2}, {1, 1, 1, 1}, {1, 1}, 1}});
  cases.push_back({{1, 4, 15, 13}, {4, 2, 3, 3}, {{1, 2}, {0, 2, 1, 0}, {2, 1}, 2}});
  // Depthwise: groups = channels, one input channel per filter.
  cases.push_back({{1, 6, 9, 9}, {6, 1, 3, 3}, {{2, 2}, {1, 1, 1, 1}, {1, 1}, 6}});
  // Depthwise with a channel multiplier of 2.
  cases.push_back({{1, 3, 8, 7}, {6, 1, 5, 5}, {{1, 1}, {2, 2, 2, 2}, {1, 1}, 3}});
  std::mt19937_64 rng(11);
  for (const auto& c : cases) {
    te::Tensor x = te::placeholder("data", c.data);
    te::Tensor w = te::placeholder("weight", c.weight);
    te::ComputeDAG dag({ops::conv2d_nchw(x, w, c.attrs)});
    auto in = te::random_inputs(dag, rng);
    check_close(te::evaluate(dag, in)[0], conv_reference(in[0], in[1], c.attrs));
  }
}

TEST_CASE("conv2d with bias and relu is one DAG", "[unit][ops]") {
  te::Tensor x = te::placeholder("data", {1, 2, 5, 5});
  te::Tensor w = te::placeholder("weight", {3, 2, 3, 3});
  te::Tensor b = te::placeholder("bias", {3});
  ops::Conv2dAttrs a;
  a.padding = {1, 1, 1, 1};
  te::ComputeDAG dag({ops::relu(ops::bias_add_nchw(ops::conv2d_nchw(x, w, a), b))});
  CHECK(dag.ops().size() == 7);  // 3 placeholders, pad, conv, bias, relu
  std::mt19937_64 rng(12);
  auto in = te::random_inputs(dag, rng);
  NDArray expect = conv_reference(in[0], in[1], a);
  for (int64_t i = 0; i < expect.num_elements(); ++i)
    expect.set(i, std::max(0.0f, static_cast<float>(expect.get(i)) + static_cast<float>(in[2].get(i / 25))));
  check_close(te::evaluate(dag, in)[0], expect);
}

TEST_CASE("conv2d rejects bad shapes", "[unit][error][ops]") {
  te::Tensor x = te::placeholder("data", {1, 4, 5, 5});
  ops::Conv2dAttrs a;
  a.groups = 3;
  CHECK_THROWS_AS(ops::conv2d_nchw(x, te::placeholder("w", {3, 1, 3, 3}), a), UserError);
  CHECK_THROWS_AS(ops::conv2d_nchw(x, te::placeholder("w", {4, 3, 3, 3}), ops::Conv2dAttrs{}), UserError);
  CHECK_THROWS_AS(ops::conv2d_nchw(x, te::placeholder("w", {4, 4, 7, 7}), ops::Conv2dAttrs{}), UserError);
}

namespace {

// Pooling by explicit windows; avg divides by the count rule of PyTorch.
NDArray pool_reference(const NDArray& x, const ops::PoolAttrs& a, bool is_max, int64_t oh, int64_t ow) {
  int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
  NDArray out(ir::DType::Float32, {n, c, oh, ow});
  for (int64_t b = 0; b < n * c; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t z = 0; z < ow; ++z) {
        int64_t y0 = y * a.stride[0] - a.pad_begin[0], x0 = z * a.stride[1] - a.pad_begin[1];
        float acc = is_max ? -std::numeric_limits<float>::infinity() : 0.0f;
        int64_t real = 0;
        for (int64_t u = y0; u < y0 + a.kernel[0]; ++u)
          for (int64_t v = x0; v < x0 + a.kernel[1]; ++v) {
            if (u < 0 || u >= h || v < 0 || v >= w) continue;
            float e = x.data<float>()[(b * h + u) * w + v];
            acc = is_max ? std::max(acc, e) : acc + e;
            ++real;
          }
        if (!is_max) {
          int64_t ye = std::min(y0 + a.kernel[0], h + a.pad_end[0]);
          int64_t xe = std::min(x0 + a.kernel[1], w + a.pad_end[1]);
          int64_t count = a.count_include_pad ? (ye - y0) * (xe - x0) : real;
          acc /= static_cast<float>(count);
        }
        out.data<float>()[(b * oh + y) * ow + z] = acc;
      }
  return out;
}

}  // namespace

TEST_CASE("pooling matches explicit windows", "[unit][ops]") {
  struct Case {
    std::vector<int64_t> shape;
    ops::PoolAttrs attrs;
    int64_t oh, ow;
  };
  std::vector<Case> cases;
  cases.push_back({{1, 2, 8, 8}, {{2, 2}, {2, 2}, {}, {0, 0}, {0, 0}}, 4, 4});
  cases.push_back({{2, 3, 13, 15}, {{3, 3}, {2, 2}, {}, {1, 1}, {1, 1}, false, false}, 7, 8});
  cases.push_back({{1, 2, 13, 15}, {{3, 3}, {2, 2}, {}, {1, 1}, {1, 1}, false, true}, 7, 8});
  // ceil mode: (7 - 3) / 2 rounds up past the floor result only when it has a remainder.
  cases.push_back({{1, 2, 8, 7}, {{3, 3}, {2, 2}, {}, {0, 0}, {0, 0}, true, false}, 4, 3});
  cases.push_back({{1, 2, 7, 9}, {{3, 3}, {2, 2}, {}, {1, 1}, {1, 1}, true, true}, 4, 5});
  cases.push_back({{1, 1, 6, 9}, {{2, 3}, {1, 3}, {}, {0, 1}, {1, 2}, false, false}, 6, 4});
  std::mt19937_64 rng(13);
  for (const auto& c : cases)
    for (bool is_max : {true, false}) {
      te::Tensor x = te::placeholder("data", c.shape);
      te::Tensor y = is_max ? ops::max_pool(x, c.attrs) : ops::avg_pool(x, c.attrs);
      REQUIRE(y->shape()[2] == c.oh);
      REQUIRE(y->shape()[3] == c.ow);
      te::ComputeDAG dag({y});
      auto in = te::random_inputs(dag, rng);
      INFO("max " << is_max << " shape " << c.shape[2] << "x" << c.shape[3]);
      check_close(te::evaluate(dag, in)[0], pool_reference(in[0], c.attrs, is_max, c.oh, c.ow));
    }
}

TEST_CASE("global pooling", "[unit][ops]") {
  te::Tensor x = te::placeholder("data", {2, 3, 5, 7});
  te::ComputeDAG avg({ops::global_avg_pool2d(x)}), mx({ops::global_max_pool2d(x)});
  std::mt19937_64 rng(14);
  auto in = te::random_inputs(avg, rng);
  NDArray a = te::evaluate(avg, in)[0], m = te::evaluate(mx, in)[0];
  REQUIRE(a.shape() == std::vector<int64_t>{2, 3, 1, 1});
  for (int64_t p = 0; p < 6; ++p) {
    double s = 0, best = -1e30;
    for (int64_t i = 0; i < 35; ++i) {
      s += in[0].get(p * 35 + i);
      best = std::max(best, in[0].get(p * 35 + i));
    }
    CHECK(a.get(p) == Approx(s / 35).epsilon(1e-5));
    CHECK(m.get(p) == best);
  }
}

TEST_CASE("max pool indices, 1-D and 3-D windows and dilations", "[unit][ops]") {
  // x[h][w] = 10 h + w on 1x1x3x4: the maximum of each 2x2 window is its bottom-right element.
  te::Tensor x = te::placeholder("data", {1, 1, 3, 4});
  NDArray xv(ir::DType::Float32, {1, 1, 3, 4});
  for (int64_t h = 0; h < 3; ++h)
    for (int64_t w = 0; w < 4; ++w) xv.set(h * 4 + w, 10.0 * h + w);
  ops::PoolAttrs a{{2, 2}, {1, 2}, {}, {0, 0}, {0, 0}};
  for (bool column_major : {false, true}) {
    te::ComputeDAG dag({ops::max_pool_indices(x, a, column_major)});
    NDArray got = te::evaluate(dag, {xv})[0];
    REQUIRE(got.shape() == std::vector<int64_t>{1, 1, 2, 2});
    for (int64_t oh = 0; oh < 2; ++oh)
      for (int64_t ow = 0; ow < 2; ++ow) {
        const int64_t h = oh + 1, w = 2 * ow + 1;
        CHECK(got.get_int(oh * 2 + ow) == (column_major ? h + w * 3 : h * 4 + w));
      }
  }
  // 1-D, dilation 2, pads 1: windows of taps {-1, 1, 3} and {1, 3, 5}, averaged over the real ones.
  te::Tensor y = te::placeholder("data", {1, 1, 6});
  NDArray yv(ir::DType::Float32, {1, 1, 6});
  for (int64_t i = 0; i < 6; ++i) yv.set(i, static_cast<double>(i));
  te::ComputeDAG avg({ops::avg_pool(y, ops::PoolAttrs{{3}, {2}, {2}, {1}, {1}})});
  NDArray got = te::evaluate(avg, {yv})[0];
  REQUIRE(got.shape() == std::vector<int64_t>{1, 1, 2});
  CHECK(got.get(0) == Approx((1.0 + 3.0) / 2));
  CHECK(got.get(1) == Approx((1.0 + 3.0 + 5.0) / 3));
  // 3-D max over 2x2x2 windows of an increasing volume: each window's last element.
  te::Tensor v = te::placeholder("data", {1, 1, 2, 4, 4});
  NDArray vv(ir::DType::Float32, {1, 1, 2, 4, 4});
  for (int64_t i = 0; i < 32; ++i) vv.set(i, static_cast<double>(i));
  te::ComputeDAG mx({ops::max_pool(v, ops::PoolAttrs{{2, 2, 2}, {2, 2, 2}})});
  NDArray m = te::evaluate(mx, {vv})[0];
  REQUIRE(m.shape() == std::vector<int64_t>{1, 1, 1, 2, 2});
  CHECK(m.get(0) == 16 + 4 + 1);
  CHECK(m.get(3) == 16 + 12 + 3);
}
