// The ONNX converters on hand-built graphs, against values computed here:
// opset-dependent forms, attribute corner cases and error messages.
#include <catch2/catch.hpp>

#include <cmath>

#include "convert_test_util.h"
#include "ir/error.h"

using namespace tunectl;
using namespace tunectl::graph;
using namespace tunectl::graph::testing;
using Shape = std::vector<int64_t>;

namespace {

std::vector<double> values(const runtime::NDArray& a) {
  std::vector<double> v;
  for (int64_t i = 0; i < a.num_elements(); ++i) v.push_back(a.get(i));
  return v;
}

void check_close(const runtime::NDArray& a, const std::vector<double>& expected) {
  REQUIRE(a.num_elements() == static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("element " << i);
    CHECK(a.get(static_cast<int64_t>(i)) == Approx(expected[i]).epsilon(1e-5).margin(1e-5));
  }
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Direct NCHW convolution with [t, l, b, r] padding.
std::vector<double> conv_ref(const runtime::NDArray& x, const runtime::NDArray& w, int64_t stride,
                             std::array<int64_t, 4> pad, int64_t groups) {
  const Shape& s = x.shape();
  const Shape& ws = w.shape();
  int64_t n = s[0], c = s[1], h = s[2], wd = s[3], k = ws[0], r = ws[2], q = ws[3], cg = c / groups;
  int64_t oh = (h + pad[0] + pad[2] - r) / stride + 1, ow = (wd + pad[1] + pad[3] - q) / stride + 1;
  std::vector<double> out;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < k; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx) {
          double acc = 0;
          int64_t g = o / (k / groups);
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t dy = 0; dy < r; ++dy)
              for (int64_t dx = 0; dx < q; ++dx) {
                int64_t iy = y * stride + dy - pad[0], ix = xx * stride + dx - pad[1];
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                acc += x.get(((b * c + g * cg + ci) * h + iy) * wd + ix) * w.get(((o * cg + ci) * r + dy) * q + dx);
              }
          out.push_back(acc);
        }
  return out;
}

}  // namespace

TEST_CASE("Conv with auto_pad SAME_UPPER/SAME_LOWER, strides and groups", "[unit][graph][convert]") {
  for (std::string mode : {"SAME_UPPER", "SAME_LOWER"}) {
    INFO(mode);
    GraphBuilder b(13);
    runtime::NDArray x = iota({1, 4, 6, 5}, 0.1, -1.0), w = iota({6, 2, 3, 2}, 0.05, -0.7);
    b.input("x", x);
    b.constant("w", w);
    auto out = b.node("Conv", {"x", "w"}, {"y"},
                      {{"auto_pad", mode}, {"strides", std::vector<int64_t>{2, 2}}, {"group", int64_t{2}}});
    CHECK(out[0]->shape() == Shape{1, 6, 3, 3});
    // Total padding 1 on each axis: at the end for SAME_UPPER, the start for SAME_LOWER.
    std::array<int64_t, 4> pad = mode == "SAME_UPPER" ? std::array<int64_t, 4>{0, 0, 1, 1}
                                                      : std::array<int64_t, 4>{1, 1, 0, 0};
    check_close(b.eval("y"), conv_ref(x, w, 2, pad, 2));
  }
}

TEST_CASE("1-D Conv is the 2-D one of unit height", "[unit][graph][convert]") {
  GraphBuilder b(13);
  runtime::NDArray x = iota({2, 4, 9}, 0.1, -1.0), w = iota({6, 2, 3}, 0.05, -0.4), bias = iota({6}, 0.2, -0.5);
  b.input("x", x);
  b.constant("w", w);
  b.constant("bias", bias);
  auto out = b.node("Conv", {"x", "w", "bias"}, {"y"},
                    {{"pads", std::vector<int64_t>{1, 2}}, {"strides", std::vector<int64_t>{2}}, {"group", int64_t{2}}});
  REQUIRE(out[0]->shape() == Shape{2, 6, 5});  // (9 + 3 - 3) / 2 + 1
  // The reference as a 2-D convolution of height 1.
  std::vector<double> expected = conv_ref(runtime::with_shape(x, {2, 4, 1, 9}), runtime::with_shape(w, {6, 2, 1, 3}), 2,
                                          {0, 1, 0, 2}, 2);
  for (size_t i = 0; i < expected.size(); ++i) expected[i] += bias.get(static_cast<int64_t>(i / 5 % 6));
  check_close(b.eval("y"), expected);
  std::string msg = error_of([&] { b.node("Conv", {"x", "w"}, {"z"}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}); });
  CHECK(contains(msg, "'pads' needs 2 values for a 1-D operator"));
}

TEST_CASE("ConvTranspose equals the scatter definition", "[unit][graph][convert]") {
  GraphBuilder b(11);
  runtime::NDArray x = iota({1, 2, 3, 3}, 0.3, -1.2), w = iota({2, 2, 3, 3}, 0.1, -0.8);  // C=2, K/g=2, g=1
  b.input("x", x);
  b.constant("w", w);
  b.node("ConvTranspose", {"x", "w"}, {"y"},
         {{"strides", std::vector<int64_t>{2, 2}}, {"pads", std::vector<int64_t>{1, 0, 1, 1}},
          {"output_padding", std::vector<int64_t>{1, 0}}});
  // Full output (3-1)*2+3 = 7 per axis (+1 output padding on rows), cropped by pads.
  int64_t full_h = 8, full_w = 7;
  std::vector<double> full(2 * full_h * full_w, 0.0);
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t k = 0; k < 2; ++k)
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 3; ++j)
          for (int64_t r = 0; r < 3; ++r)
            for (int64_t s = 0; s < 3; ++s)
              full[(k * full_h + i * 2 + r) * full_w + j * 2 + s] +=
                  x.get((c * 3 + i) * 3 + j) * w.get(((c * 2 + k) * 3 + r) * 3 + s);
  std::vector<double> expected;
  for (int64_t k = 0; k < 2; ++k)
    for (int64_t y = 1; y < full_h - 1; ++y)
      for (int64_t xx = 0; xx < full_w - 1; ++xx) expected.push_back(full[(k * full_h + y) * full_w + xx]);
  CHECK(b.tensor("y")->shape() == Shape{1, 2, 6, 6});
  check_close(b.eval("y"), expected);
}

TEST_CASE("MatMul with a 1-D operand and batch broadcasting", "[unit][graph][convert]") {
  GraphBuilder b(13);
  runtime::NDArray a = iota({3}, 1.0, 1.0), m = iota({2, 3, 4}, 0.5);
  b.input("a", a);
  b.input("m", m);
  b.node("MatMul", {"a", "m"}, {"y"});
  CHECK(b.tensor("y")->shape() == Shape{2, 4});
  std::vector<double> expected;
  for (int64_t bt = 0; bt < 2; ++bt)
    for (int64_t n = 0; n < 4; ++n) {
      double acc = 0;
      for (int64_t k = 0; k < 3; ++k) acc += a.get(k) * m.get((bt * 3 + k) * 4 + n);
      expected.push_back(acc);
    }
  check_close(b.eval("y"), expected);
}

TEST_CASE("Softmax coerces to 2-D before opset 13 and uses one axis after", "[unit][graph][convert]") {
  runtime::NDArray x = iota({2, 2, 3}, 0.25, -0.5);
  auto softmax_groups = [&](int64_t group) {
    std::vector<double> out;
    for (int64_t g = 0; g < x.num_elements() / group; ++g) {
      double sum = 0;
      for (int64_t i = 0; i < group; ++i) sum += std::exp(x.get(g * group + i));
      for (int64_t i = 0; i < group; ++i) out.push_back(std::exp(x.get(g * group + i)) / sum);
    }
    return out;
  };
  GraphBuilder old(11);
  old.input("x", x);
  old.node("Softmax", {"x"}, {"y"}, {{"axis", int64_t{1}}});
  check_close(old.eval("y"), softmax_groups(6));  // rows of 2*3 elements
  GraphBuilder now(13);
  now.input("x", x);
  now.node("Softmax", {"x"}, {"y"}, {{"axis", int64_t{2}}});
  check_close(now.eval("y"), softmax_groups(3));
}

TEST_CASE("Slice with negative steps, clamping and opset forms", "[unit][graph][convert]") {
  runtime::NDArray x = iota({4, 5});
  GraphBuilder b(13);
  b.input("x", x);
  b.constant("starts", ints({-1, 100}));
  b.constant("ends", ints({INT64_MIN, 0}));
  b.constant("axes", ints({1, 0}));
  b.constant("steps", ints({-2, -3}));
  b.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  // Rows 3, 0; columns 4, 2, 0.
  CHECK(b.tensor("y")->shape() == Shape{1, 3});
  check_close(b.eval("y"), {19, 17, 15});
  GraphBuilder old(9);
  old.input("x", x);
  old.node("Slice", {"x"}, {"y"},
           {{"starts", std::vector<int64_t>{1}}, {"ends", std::vector<int64_t>{-1}}, {"axes", std::vector<int64_t>{1}}});
  CHECK(old.tensor("y")->shape() == Shape{4, 3});
  check_close(old.eval("y"), {1, 2, 3, 6, 7, 8, 11, 12, 13, 16, 17, 18});
}

TEST_CASE("Gather with a negative scalar index drops the axis", "[unit][graph][convert]") {
  GraphBuilder b(13);
  b.input("x", iota({3, 4}));
  runtime::NDArray idx(ir::DType::Int64, {});
  idx.data<int64_t>()[0] = -1;
  b.input("i", idx);
  b.node("Gather", {"x", "i"}, {"y"}, {{"axis", int64_t{1}}});
  CHECK(b.tensor("y")->shape() == Shape{3});
  check_close(b.eval("y"), {3, 7, 11});
  b.input("j", ints({2, -3}));
  b.node("Gather", {"x", "j"}, {"z"});
  CHECK(b.tensor("z")->shape() == Shape{2, 4});
  check_close(b.eval("z"), {8, 9, 10, 11, 0, 1, 2, 3});
}

TEST_CASE("Reshape, Squeeze and Unsqueeze across opsets, scalars as shape 1", "[unit][graph][convert]") {
  GraphBuilder b(13);
  b.input("x", iota({2, 3, 4}));
  b.constant("shape", ints({0, -1}));
  b.node("Reshape", {"x", "shape"}, {"r"});
  CHECK(b.tensor("r")->shape() == Shape{2, 12});
  b.input("one", iota({1, 1}, 1.0, 5.0));
  b.node("Squeeze", {"one"}, {"s"});
  CHECK(b.tensor("s")->shape() == Shape{1});  // rank 0 in ONNX
  b.constant("axes", ints({0, -1}));
  b.graph.values["s"] = ValueInfo{ir::DType::Float32, {}};
  b.node("Unsqueeze", {"s", "axes"}, {"u"});
  CHECK(b.tensor("u")->shape() == Shape{1, 1});
  check_close(b.eval("u"), {5});
  GraphBuilder old(11);
  old.input("x", iota({3, 2}));
  old.node("Unsqueeze", {"x"}, {"u"}, {{"axes", std::vector<int64_t>{1, -1}}});
  CHECK(old.tensor("u")->shape() == Shape{3, 1, 2, 1});
}

TEST_CASE("Split sizes from attribute, input or num_outputs", "[unit][graph][convert]") {
  GraphBuilder old(11);
  old.input("x", iota({2, 5}));
  old.node("Split", {"x"}, {"a", "b"}, {{"axis", int64_t{1}}, {"split", std::vector<int64_t>{2, 3}}});
  check_close(old.eval("b"), {2, 3, 4, 7, 8, 9});
  GraphBuilder mid(13);
  mid.input("x", iota({2, 5}));
  mid.constant("sizes", ints({4, 1}));
  mid.node("Split", {"x", "sizes"}, {"a", "b"}, {{"axis", int64_t{-1}}});
  check_close(mid.eval("b"), {4, 9});
  GraphBuilder now(18);
  now.input("x", iota({5}));
  now.node("Split", {"x"}, {"a", "b"}, {{"num_outputs", int64_t{2}}});
  check_close(now.eval("a"), {0, 1, 2});
  check_close(now.eval("b"), {3, 4});
  // A num_outputs that disagrees with the outputs (0 was a division by zero, found by fuzzing).
  GraphBuilder zero(18);
  zero.input("x", iota({5}));
  REQUIRE_THROWS_WITH(zero.node("Split", {"x"}, {"a", "b"}, {{"num_outputs", int64_t{0}}}),
                      Catch::Contains("attribute 'num_outputs' = 0, but the node has 2 outputs"));
}

TEST_CASE("Clip bounds: attributes before opset 11, inputs after", "[unit][graph][convert]") {
  GraphBuilder old(6);
  old.input("x", iota({5}, 1.0, -2.0));
  old.node("Clip", {"x"}, {"y"}, {{"min", -1.0}, {"max", 1.5}});
  check_close(old.eval("y"), {-1, -1, 0, 1, 1.5});
  GraphBuilder now(13);
  now.input("x", iota({5}, 1.0, -2.0));
  now.constant("hi", array(ir::DType::Float32, {}, {0.5}));
  now.node("Clip", {"x", "", "hi"}, {"y"});
  check_close(now.eval("y"), {-2, -1, 0, 0.5, 0.5});
}

TEST_CASE("Reductions: axes attribute or input, keepdims, noop_with_empty_axes", "[unit][graph][convert]") {
  GraphBuilder b(13);
  b.input("x", iota({2, 3}));
  b.constant("axes", ints({-1}));
  b.node("ReduceSum", {"x", "axes"}, {"s"}, {{"keepdims", int64_t{0}}});
  CHECK(b.tensor("s")->shape() == Shape{2});
  check_close(b.eval("s"), {3, 12});
  b.node("ReduceSum", {"x"}, {"n"}, {{"noop_with_empty_axes", int64_t{1}}});
  check_close(b.eval("n"), values(b.eval("x")));
  b.node("ReduceMean", {"x"}, {"m"}, {{"axes", std::vector<int64_t>{0}}});
  CHECK(b.tensor("m")->shape() == Shape{1, 3});
  check_close(b.eval("m"), {1.5, 2.5, 3.5});
  b.node("ReduceMax", {"x"}, {"all"}, {{"keepdims", int64_t{0}}});
  check_close(b.eval("all"), {5});
}

TEST_CASE("ReduceMax of bools (opset 20) is a logical or", "[unit][graph][convert]") {
  GraphBuilder b(20);
  b.input("flags", array(ir::DType::Bool, {2, 3}, {0, 1, 0, 0, 0, 0}));
  b.constant("axes", ints({1}));
  b.node("ReduceMax", {"flags", "axes"}, {"any"}, {{"keepdims", int64_t{0}}});
  CHECK(b.tensor("any")->dtype() == ir::DType::Bool);
  check_close(b.eval("any"), {1, 0});
}

TEST_CASE("Opset 6 arithmetic broadcasts only as its broadcast and axis attributes say", "[unit][graph][convert]") {
  GraphBuilder b(6);
  runtime::NDArray a = iota({2, 3, 2});
  b.input("a", a);
  b.input("mid", array(ir::DType::Float32, {3}, {10, 20, 30}));
  b.input("tail", array(ir::DType::Float32, {2}, {2, 3}));
  b.input("unit", array(ir::DType::Float32, {2, 1}, {100, 200}));
  auto expect = [&](const std::function<double(int64_t, int64_t, int64_t, double)>& f) {
    std::vector<double> out;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j)
        for (int64_t k = 0; k < 2; ++k) out.push_back(f(i, j, k, a.get((i * 3 + j) * 2 + k)));
    return out;
  };
  // B of shape [3] lines up with A's axis 1 (numpy would align it at the end).
  b.node("Add", {"a", "mid"}, {"add"}, {{"broadcast", int64_t{1}}, {"axis", int64_t{1}}});
  check_close(b.eval("add"), expect([](int64_t, int64_t j, int64_t, double v) { return v + 10.0 * (j + 1); }));
  // Without axis, B aligns at the end.
  b.node("Mul", {"a", "tail"}, {"mul"}, {{"broadcast", int64_t{1}}});
  check_close(b.eval("mul"), expect([](int64_t, int64_t, int64_t k, double v) { return v * (k + 2); }));
  b.node("Pow", {"a", "tail"}, {"pow"}, {{"broadcast", int64_t{1}}});
  check_close(b.eval("pow"), expect([](int64_t, int64_t, int64_t k, double v) { return std::pow(v, k + 2); }));
  // A dimension of 1 in B broadcasts too.
  b.node("Sub", {"a", "unit"}, {"sub"}, {{"broadcast", int64_t{1}}, {"axis", int64_t{0}}});
  check_close(b.eval("sub"), expect([](int64_t i, int64_t, int64_t, double v) { return v - 100.0 * (i + 1); }));
  b.node("Div", {"a", "a"}, {"div"});
  CHECK(b.tensor("div")->shape() == Shape{2, 3, 2});

  std::string msg = error_of([&] { b.node("Add", {"a", "tail"}, {"e1"}); });
  CHECK(contains(msg, "node 'Add_5' (Add): operands of shapes [2x3x2] and [2] differ"));
  CHECK(contains(msg, "'broadcast'"));
  msg = error_of([&] { b.node("Add", {"a", "mid"}, {"e2"}, {{"broadcast", int64_t{1}}, {"axis", int64_t{3}}}); });
  CHECK(contains(msg, "(Add): attribute 'axis' = 3 does not place B of shape [3] within A of shape [2x3x2]"));
  msg = error_of([&] { b.node("Mul", {"a", "tail"}, {"e3"}, {{"broadcast", int64_t{1}}, {"axis", int64_t{1}}}); });
  CHECK(contains(msg, "(Mul): B of shape [2] does not broadcast to A of shape [2x3x2] at attribute 'axis' = 1"));

  // Gemm: C is M x N unless broadcast = 1.
  b.input("m", iota({2, 3}));
  b.input("n", iota({3, 4}));
  b.input("row", iota({4}));
  b.node("Gemm", {"m", "n", "row"}, {"gemm"}, {{"broadcast", int64_t{1}}});
  CHECK(b.tensor("gemm")->shape() == Shape{2, 4});
  msg = error_of([&] { b.node("Gemm", {"m", "n", "row"}, {"e4"}); });
  CHECK(contains(msg, "(Gemm): C must have shape 2x4 when attribute 'broadcast' is not 1 (opset 6)"));
}

TEST_CASE("Pad modes, Where, Cast, Shape, Range, ConstantOfShape, Expand", "[unit][graph][convert]") {
  GraphBuilder b(15);
  b.input("x", iota({3}, 1.0, 1.0));  // 1 2 3
  b.constant("pads", ints({2, 1}));
  b.node("Pad", {"x", "pads"}, {"edge"}, {{"mode", std::string("edge")}});
  check_close(b.eval("edge"), {1, 1, 1, 2, 3, 3});
  b.node("Pad", {"x", "pads"}, {"reflect"}, {{"mode", std::string("reflect")}});
  check_close(b.eval("reflect"), {3, 2, 1, 2, 3, 2});
  b.constant("v", array(ir::DType::Float32, {}, {-4}));
  b.node("Pad", {"x", "pads", "v"}, {"constant"});
  check_close(b.eval("constant"), {-4, -4, 1, 2, 3, -4});
  b.node("Cast", {"x"}, {"as_int"}, {{"to", int64_t{7}}});
  CHECK(b.tensor("as_int")->dtype() == ir::DType::Int64);
  b.input("c", array(ir::DType::Bool, {3}, {1, 0, 1}));
  b.input("z", array(ir::DType::Float32, {}, {9}));
  b.node("Where", {"c", "x", "z"}, {"w"});
  check_close(b.eval("w"), {1, 9, 3});
  b.input("m", iota({2, 3, 4}));
  b.node("Shape", {"m"}, {"shape"}, {{"start", int64_t{-2}}});
  CHECK(b.tensor("shape")->dtype() == ir::DType::Int64);
  check_close(b.eval("shape"), {3, 4});
  b.constant("start", array(ir::DType::Int64, {}, {10}));
  b.constant("limit", array(ir::DType::Int64, {}, {3}));
  b.constant("delta", array(ir::DType::Int64, {}, {-3}));
  b.node("Range", {"start", "limit", "delta"}, {"range"});
  check_close(b.eval("range"), {10, 7, 4});
  b.constant("dims", ints({2, 2}));
  b.node("ConstantOfShape", {"dims"}, {"fill"}, {{"value", array(ir::DType::Int32, {1}, {7})}});
  CHECK(b.tensor("fill")->dtype() == ir::DType::Int32);
  check_close(b.eval("fill"), {7, 7, 7, 7});
  b.constant("to", ints({2, 1}));
  b.node("Expand", {"x", "to"}, {"e"});
  check_close(b.eval("e"), {1, 2, 3, 1, 2, 3});
}

TEST_CASE("BatchNormalization, LRN and LayerNormalization with statistics", "[unit][graph][convert]") {
  GraphBuilder b(17);
  runtime::NDArray x = iota({1, 3, 1, 2}, 0.5, -1);
  b.input("x", x);
  b.constant("scale", array(ir::DType::Float32, {3}, {1, 2, 3}));
  b.constant("bias", array(ir::DType::Float32, {3}, {0, 1, 0}));
  b.constant("mean", array(ir::DType::Float32, {3}, {0, 0.5, 1}));
  b.constant("var", array(ir::DType::Float32, {3}, {1, 4, 0.25}));
  b.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"bn"}, {{"epsilon", 0.0}});
  check_close(b.eval("bn"), {-1, -0.5, 0.5, 1, 0, 3});
  b.node("LRN", {"x"}, {"lrn"}, {{"size", int64_t{2}}, {"alpha", 0.5}, {"beta", 1.0}, {"bias", 2.0}});
  // Channel c sums c and c+1: x = [-1 -0.5 | 0 0.5 | 1 1.5].
  auto lrn = [](double v, double sq) { return v / (2.0 + 0.25 * sq); };
  check_close(b.eval("lrn"), {lrn(-1, 1), lrn(-0.5, 0.5), lrn(0, 1), lrn(0.5, 2.5), lrn(1, 1), lrn(1.5, 2.25)});
  // The scale [2] broadcasts to the normalised shape [3, 1, 2].
  b.constant("ln_scale", array(ir::DType::Float32, {2}, {2, 0.5}));
  b.node("LayerNormalization", {"x", "ln_scale"}, {"ln", "ln_mean", "ln_inv"}, {{"axis", int64_t{1}}});
  CHECK(b.tensor("ln_mean")->shape() == Shape{1, 1, 1, 1});
  check_close(b.eval("ln_mean"), {0.25});
  double var = (1.5625 + 0.5625 + 0.0625 + 0.0625 + 0.5625 + 1.5625) / 6;
  double inv = 1 / std::sqrt(var + 1e-5);
  check_close(b.eval("ln_inv"), {inv});
  std::vector<double> ln;
  for (int64_t i = 0; i < 6; ++i) ln.push_back((x.get(i) - 0.25) * inv * (i % 2 ? 0.5 : 2));
  check_close(b.eval("ln"), ln);
}

TEST_CASE("converter errors name the node, op type and the input or attribute", "[unit][graph][convert][error]") {
  GraphBuilder b(13);
  b.input("x", iota({1, 2, 4, 4}));
  b.input("shape", ints({2, 16}));
  std::string msg = error_of([&] { b.node("Reshape", {"x", "shape"}, {"y"}); });
  CHECK(contains(msg, "node 'Reshape_0' (Reshape)"));
  CHECK(contains(msg, "'shape'"));
  CHECK(contains(msg, "must be known when compiling"));
  CHECK(contains(msg, "--bind shape="));
  b.constant("w", iota({2, 2, 3, 3}));
  msg = error_of([&] { b.node("Conv", {"x", "w"}, {"c"}, {{"auto_pad", std::string("SAME_MIDDLE")}}); });
  CHECK(contains(msg, "(Conv)"));
  CHECK(contains(msg, "'auto_pad'"));
  CHECK(contains(msg, "SAME_MIDDLE"));
  b.constant("pads", ints({0, 0, 1, 1, 0, 0, 1, 1}));
  msg = error_of([&] { b.node("Pad", {"x", "pads"}, {"p"}, {{"mode", std::string("wrap")}}); });
  CHECK(contains(msg, "(Pad)"));
  CHECK(contains(msg, "'mode'"));
  msg = error_of([&] { b.node("Cast", {"x"}, {"h"}, {{"to", int64_t{16}}}); });
  CHECK(contains(msg, "(Cast)"));
  CHECK(contains(msg, "data type 16"));
  msg = error_of([&] { b.node("MaxPool", {"x"}, {"m"}, {{"kernel_shape", std::vector<int64_t>{2, 2}},
                                                      {"dilations", std::vector<int64_t>{2, 2, 2}}}); });
  CHECK(contains(msg, "(MaxPool)"));
  CHECK(contains(msg, "'dilations' needs 2 values"));
  msg = error_of([&] { b.node("AveragePool", {"x"}, {"m"}, {{"kernel_shape", std::vector<int64_t>{2, 2, 2}}}); });
  CHECK(contains(msg, "(AveragePool)"));
  CHECK(contains(msg, "'kernel_shape' has 3 values for an input of rank 4"));
  // The newer operators' attributes.
  msg = error_of([&] { b.node("Einsum", {"x", "x"}, {"e"}, {{"equation", std::string("abcd,abce->abz")}}); });
  CHECK(contains(msg, "(Einsum)"));
  CHECK(contains(msg, "output letter 'z' is in no operand"));
  b.constant("k9", ints({9}));
  msg = error_of([&] { b.node("TopK", {"x", "k9"}, {"tv", "ti"}); });
  CHECK(contains(msg, "(TopK)"));
  CHECK(contains(msg, "k = 9 for an axis of 4 elements"));
  b.constant("gscale", iota({2}));
  msg = error_of([&] { b.node("GroupNormalization", {"x", "gscale", "gscale"}, {"g"}, {{"num_groups", int64_t{3}}}); });
  CHECK(contains(msg, "(GroupNormalization)"));
  CHECK(contains(msg, "'num_groups' = 3 does not divide 2 channels"));
  msg = error_of([&] { b.node("LpNormalization", {"x"}, {"l"}, {{"p", int64_t{3}}}); });
  CHECK(contains(msg, "(LpNormalization)"));
  CHECK(contains(msg, "'p' = 3 is not supported"));
  b.constant("sidx", ints({0}));
  msg = error_of([&] { b.node("ScatterND", {"x", "sidx", "x"}, {"s"}, {{"reduction", std::string("avg")}}); });
  CHECK(contains(msg, "(ScatterND)"));
  CHECK(contains(msg, "'reduction' = 'avg'"));
  b.constant("target", ints({0}));
  msg = error_of([&] { b.node("NegativeLogLikelihoodLoss", {"x", "target"}, {"nll"}, {{"reduction", std::string("max")}}); });
  CHECK(contains(msg, "(NegativeLogLikelihoodLoss)"));
  CHECK(contains(msg, "'reduction' = 'max'"));
  b.constant("depth0", ints({0}));
  b.constant("onoff", iota({2}));
  msg = error_of([&] { b.node("OneHot", {"target", "depth0", "onoff"}, {"oh"}); });
  CHECK(contains(msg, "(OneHot)"));
  CHECK(contains(msg, "depth 0 must be positive"));
  msg = error_of([&] { b.node("EyeLike", {"x"}, {"eye"}); });
  CHECK(contains(msg, "(EyeLike)"));
  CHECK(contains(msg, "input must be 2-D"));
  msg = error_of([&] { b.node("LpPool", {"x"}, {"lp"}, {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"p", int64_t{0}}}); });
  CHECK(contains(msg, "(LpPool)"));
  CHECK(contains(msg, "p = 0 must be positive"));
  b.constant("crop", ints({2, 2}));
  msg = error_of([&] { b.node("CenterCropPad", {"x", "crop"}, {"cc"}); });
  CHECK(contains(msg, "(CenterCropPad)"));
  CHECK(contains(msg, "the target shape has 2 values for 4 axes"));
  // An ops/ error is prefixed with the node.
  b.input("v", iota({3}));
  msg = error_of([&] { b.node("Add", {"x", "v"}, {"a"}); });
  CHECK(contains(msg, "node 'Add_"));
  CHECK(contains(msg, "broadcast"));
  // Bit functions take integers; shifts unsigned ones and a direction.
  msg = error_of([&] { b.node("BitwiseAnd", {"x", "x"}, {"ba"}); });
  CHECK(contains(msg, "(BitwiseAnd)"));
  CHECK(contains(msg, "needs integer inputs"));
  b.input("u", runtime::NDArray(ir::DType::UInt8, {2}));
  msg = error_of([&] { b.node("BitShift", {"u", "u"}, {"bs"}, {{"direction", std::string("UP")}}); });
  CHECK(contains(msg, "(BitShift)"));
  CHECK(contains(msg, "'direction' must be LEFT or RIGHT, got 'UP'"));
  b.input("i", ints({1, 2}));
  msg = error_of([&] { b.node("BitShift", {"i", "i"}, {"bs"}, {{"direction", std::string("LEFT")}}); });
  CHECK(contains(msg, "shifts take unsigned integers"));
  b.input("grid", iota({1, 3, 3, 2}));
  msg = error_of([&] { b.node("GridSample", {"x", "grid"}, {"gs"}, {{"padding_mode", std::string("wrap")}}); });
  CHECK(contains(msg, "(GridSample)"));
  CHECK(contains(msg, "'padding_mode' = 'wrap' is not supported"));
  msg = error_of([&] { b.node("Resize", {"x", "", "", "shape"}, {"rs"}, {{"coordinate_transformation_mode",
                                                                          std::string("tf_crop_and_resize")}}); });
  CHECK(contains(msg, "'tf_crop_and_resize' needs roi"));
  b.constant("qscale", iota({1, 2, 4, 4}, 0.1, 1.0));  // blocks of 2 along axis 1 need [1, 1, 4, 4]
  msg = error_of([&] { b.node("QuantizeLinear", {"x", "qscale"}, {"q"}, {{"axis", int64_t{1}}, {"block_size", int64_t{2}}}); });
  CHECK(contains(msg, "(QuantizeLinear)"));
  CHECK(contains(msg, "must have shape [1x1x4x4] for blocks of 2 along axis 1"));
  b.constant("rw", iota({1, 4, 4}));
  b.constant("rr", iota({1, 4, 4}));
  b.input("seq", iota({3, 1, 4}));
  msg = error_of([&] { b.node("RNN", {"seq", "rw", "rr"}, {"ry"}, {{"hidden_size", int64_t{4}}, {"direction", std::string("sideways")}}); });
  CHECK(contains(msg, "(RNN)"));
  CHECK(contains(msg, "'direction' = 'sideways' is not forward, reverse or bidirectional"));
  b.input("cols", iota({1, 8, 9}));
  b.constant("image", ints({4, 4}));
  b.constant("block", ints({2, 2}));
  msg = error_of([&] { b.node("Col2Im", {"cols", "image", "block"}, {"im"}, {{"strides", std::vector<int64_t>{1}}}); });
  CHECK(contains(msg, "(Col2Im)"));
  CHECK(contains(msg, "'dilations' and 'strides' need 2 values and 'pads' 4"));
  msg = error_of([&] { b.node("Col2Im", {"cols", "image", "block"}, {"im2"}, {{"strides", std::vector<int64_t>{2, 2}}}); });
  CHECK(contains(msg, "(Col2Im)"));
  CHECK(contains(msg, "the input has 9 columns, the image and block 4 block positions"));
  b.input("signal", iota({2, 8, 3}));
  msg = error_of([&] { b.node("DFT", {"signal"}, {"spectrum"}); });
  CHECK(contains(msg, "(DFT)"));
  CHECK(contains(msg, "last axis must hold real (1) or complex (2) values"));
  CHECK_THROWS_AS(op_class(Node{"n", "Loop", {}, {}, {}}), UserError);
  CHECK(is_supported_op("Conv"));
  CHECK_FALSE(is_supported_op("Loop"));
}

TEST_CASE("Pow by a constant 2 or 3 multiplies and any other exponent calls pow", "[unit][graph][convert]") {
  for (double exponent : {2.0, 3.0, 2.5}) {
    INFO("exponent " << exponent);
    GraphBuilder b(13);
    b.input("x", iota({2, 5}, 0.37, -1.6));
    b.constant("e", array(ir::DType::Float32, {}, {exponent}));
    b.node("Pow", {"x", "e"}, {"y"});
    const std::string text = te::ComputeDAG({b.tensor("y")}).canonical_text();
    CHECK((text.find("pow") != std::string::npos) == (exponent == 2.5));
    runtime::NDArray y = b.eval("y");
    for (int64_t i = 0; i < 10; ++i) {
      const double x = -1.6 + 0.37 * static_cast<double>(i);
      if (exponent == 2.5 && x < 0) continue;  // NaN in both
      CHECK(y.get(i) == Approx(std::pow(static_cast<float>(x), static_cast<float>(exponent))).epsilon(1e-6));
    }
  }
}

// The ONNX node tests of Softplus and Softsign are opset-1 models and Mish's
// is rejected by this libonnx's checker (it predates Mish), so their
// definitions are checked here, at values where a naive log(1 + e^x) would
// overflow.
TEST_CASE("Softplus, Softsign and Mish match their ONNX definitions", "[unit][graph][convert]") {
  const std::vector<double> xs = {-100, -3, -0.5, 0, 0.5, 3, 100};
  GraphBuilder b(18);
  b.input("x", array(ir::DType::Float32, {7}, xs));
  b.node("Softplus", {"x"}, {"softplus"});
  b.node("Softsign", {"x"}, {"softsign"});
  b.node("Mish", {"x"}, {"mish"});
  std::vector<double> softplus, softsign, mish;
  for (double x : xs) {
    double sp = x > 30 ? x : std::log1p(std::exp(x));
    softplus.push_back(sp);
    softsign.push_back(x / (1 + std::fabs(x)));
    mish.push_back(x * std::tanh(sp));
  }
  check_close(b.eval("softplus"), softplus);
  check_close(b.eval("softsign"), softsign);
  check_close(b.eval("mish"), mish);
}

TEST_CASE("PRelu broadcasts its slope numpy-style, per channel before opset 7", "[unit][graph][convert]") {
  runtime::NDArray x = iota({1, 2, 2, 2}, 1.0, -4.0);  // -4 .. 3
  runtime::NDArray slope = array(ir::DType::Float32, {2}, {0.5, 0.25});
  auto expect = [&](bool per_channel) {
    std::vector<double> out;
    for (int64_t i = 0; i < 8; ++i) {
      double v = x.get(i), s = per_channel ? slope.get(i / 4) : slope.get(i % 2);
      out.push_back(v < 0 ? v * s : v);
    }
    return out;
  };
  GraphBuilder old(6);
  old.input("x", x);
  old.constant("slope", slope);
  old.node("PRelu", {"x", "slope"}, {"y"});
  check_close(old.eval("y"), expect(true));
  GraphBuilder now(16);
  now.input("x", x);
  now.constant("slope", slope);
  now.node("PRelu", {"x", "slope"}, {"y"});
  check_close(now.eval("y"), expect(false));
}

// Not's ONNX node tests are opset-1 models.
TEST_CASE("Not negates bool tensors and refuses others", "[unit][graph][convert]") {
  GraphBuilder b(13);
  b.input("x", array(ir::DType::Bool, {4}, {1, 0, 0, 1}));
  b.node("Not", {"x"}, {"y"});
  check_close(b.eval("y"), {0, 1, 1, 0});
  GraphBuilder f(13);
  f.input("x", array(ir::DType::Float32, {2}, {1, 0}));
  CHECK(contains(error_of([&] { f.node("Not", {"x"}, {"y"}); }), "needs a bool input"));
}

TEST_CASE("quantized products check their operand, zero point and bias types", "[unit][graph][convert][error]") {
  GraphBuilder b(13);
  runtime::NDArray a(ir::DType::UInt8, {2, 4}), w(ir::DType::UInt8, {3, 1, 1, 1}), img(ir::DType::UInt8, {1, 1, 4, 4});
  runtime::NDArray signed_zp(ir::DType::Int8, {}), zp(ir::DType::UInt8, {}), scale(ir::DType::Float32, {});
  scale.set(0, 0.5);
  b.input("a", a);
  b.input("af", iota({2, 4}));
  b.input("img", img);
  b.constant("bq", runtime::NDArray(ir::DType::UInt8, {4, 3}));
  b.constant("w", w);
  b.constant("szp", signed_zp);
  b.constant("zp", zp);
  b.constant("scale", scale);
  b.constant("fbias", iota({3}));
  std::string msg = error_of([&] { b.node("MatMulInteger", {"af", "bq"}, {"m"}); });
  CHECK(contains(msg, "(MatMulInteger)"));
  CHECK(contains(msg, "input 0 must be int8 or uint8, it is float32"));
  msg = error_of([&] { b.node("MatMulInteger", {"a", "bq", "szp"}, {"m2"}); });
  CHECK(contains(msg, "a zero point must have its input's type (uint8), it is int8"));
  msg = error_of([&] {
    b.node("QLinearConv", {"img", "scale", "zp", "w", "scale", "zp", "scale", "zp", "fbias"}, {"q"});
  });
  CHECK(contains(msg, "(QLinearConv)"));
  CHECK(contains(msg, "the bias must be int32, it is float32"));
  msg = error_of([&] { b.node("QLinearMatMul", {"a", "scale", "zp", "bq", "scale", "zp", "scale", "scale"}, {"y"}); });
  CHECK(contains(msg, "the output zero point must be int8 or uint8, it is float32"));
  msg = error_of([&] { b.node("DynamicQuantizeLinear", {"a"}, {"dq", "ds", "dz"}); });
  CHECK(contains(msg, "(DynamicQuantizeLinear)"));
  CHECK(contains(msg, "input must be float32, it is uint8"));
}

TEST_CASE("DeformConv checks its offset and offset groups", "[unit][graph][convert][error]") {
  GraphBuilder b(19);
  b.input("x", iota({1, 4, 5, 5}));
  b.constant("w", iota({2, 4, 3, 3}));
  b.input("offset", iota({1, 18, 3, 3}));
  b.input("bad_offset", iota({1, 9, 3, 3}));
  std::string msg = error_of([&] { b.node("DeformConv", {"x", "w", "bad_offset"}, {"y"}); });
  CHECK(contains(msg, "(DeformConv)"));
  CHECK(contains(msg, "offset must have shape [1x18x3x3], it has [1x9x3x3]"));
  msg = error_of([&] { b.node("DeformConv", {"x", "w", "offset"}, {"y2"}, {{"offset_group", int64_t{3}}}); });
  CHECK(contains(msg, "offset groups 3 must divide input channels 4"));
}

TEST_CASE("a 3-D Conv (strides, pads, dilations, groups, bias) matches a direct sum", "[unit][graph][convert]") {
  const int64_t n = 1, c = 4, d = 5, h = 4, w = 6, k = 6, groups = 2, cg = c / groups;
  const runtime::NDArray x = iota({n, c, d, h, w}, 0.01, -1.0), wt = iota({k, cg, 2, 3, 2}, -0.02, 0.7),
                         bias = iota({k}, 0.5, -1.0);
  const std::vector<int64_t> strides{2, 1, 2}, pads{1, 1, 0, 0, 1, 1}, dil{1, 2, 1};
  GraphBuilder b(13);
  b.input("x", x);
  b.constant("w", wt);
  b.constant("b", bias);
  b.node("Conv", {"x", "w", "b"}, {"y"}, {{"strides", strides}, {"pads", pads}, {"dilations", dil},
                                          {"group", groups}});
  const std::vector<int64_t> in{d, h, w}, ker{2, 3, 2};
  std::vector<int64_t> out(3);
  for (size_t a = 0; a < 3; ++a) out[a] = (in[a] + pads[a] + pads[a + 3] - dil[a] * (ker[a] - 1) - 1) / strides[a] + 1;
  std::vector<double> expected;
  for (int64_t o = 0; o < k; ++o)
    for (int64_t i0 = 0; i0 < out[0]; ++i0)
      for (int64_t i1 = 0; i1 < out[1]; ++i1)
        for (int64_t i2 = 0; i2 < out[2]; ++i2) {
          double sum = bias.get(o);
          for (int64_t rc = 0; rc < cg; ++rc)
            for (int64_t r0 = 0; r0 < 2; ++r0)
              for (int64_t r1 = 0; r1 < 3; ++r1)
                for (int64_t r2 = 0; r2 < 2; ++r2) {
                  const int64_t z = i0 * strides[0] - pads[0] + r0 * dil[0], y = i1 * strides[1] - pads[1] + r1 * dil[1],
                                xx = i2 * strides[2] - pads[2] + r2 * dil[2];
                  if (z < 0 || z >= d || y < 0 || y >= h || xx < 0 || xx >= w) continue;
                  const int64_t channel = o / (k / groups) * cg + rc;
                  sum += x.get(((channel * d + z) * h + y) * w + xx) * wt.get((((o * cg + rc) * 2 + r0) * 3 + r1) * 2 + r2);
                }
          expected.push_back(sum);
        }
  check_close(b.eval("y"), expected);
}
