// Expressions: math calls against std::, integer floor division with negative
// operands, comparisons, selects and casts, in scalar and vector loops.
#include <cmath>
#include <functional>
#include <iterator>
#include <random>

#include <catch2/catch.hpp>

#include "ir/scalar_math.h"
#include "kernel_fixture.h"

using namespace tunectl;
using ir::Buffer;
using ir::DType;
using ir::Expr;
using ir::ForKind;
using ir::MathFunc;
using ir::Var;
using test::AlignedArray;

namespace {

Expr ld(const Buffer& b, Expr i) { return ir::make_load(b, {std::move(i)}); }

bool close(double actual, double expected, double rtol = 1e-5) {
  return std::abs(actual - expected) <= rtol * std::max(1e-6, std::abs(expected)) + 1e-7;
}

struct MathCase {
  MathFunc func;
  float lo, hi;  // input range where the function is defined
  std::function<float(float)> reference;
};

}  // namespace

TEST_CASE("math calls match std:: in scalar and vector loops", "[cpu]") {
  std::vector<MathCase> cases = {
      {MathFunc::exp, -10, 10, [](float x) { return std::exp(x); }},
      {MathFunc::log, 1e-3f, 100, [](float x) { return std::log(x); }},
      {MathFunc::sqrt, 0, 100, [](float x) { return std::sqrt(x); }},
      {MathFunc::tanh, -5, 5, [](float x) { return std::tanh(x); }},
      {MathFunc::erf, -3, 3, [](float x) { return std::erf(x); }},
      {MathFunc::abs, -5, 5, [](float x) { return std::abs(x); }},
      {MathFunc::floor, -5, 5, [](float x) { return std::floor(x); }},
      {MathFunc::ceil, -5, 5, [](float x) { return std::ceil(x); }},
      {MathFunc::round, -5, 5, [](float x) { return std::nearbyint(x); }},
      {MathFunc::tan, -1.5f, 1.5f, [](float x) { return std::tan(x); }},
      {MathFunc::asin, -1, 1, [](float x) { return std::asin(x); }},
      {MathFunc::acos, -1, 1, [](float x) { return std::acos(x); }},
      {MathFunc::atan, -5, 5, [](float x) { return std::atan(x); }},
      {MathFunc::sinh, -5, 5, [](float x) { return std::sinh(x); }},
      {MathFunc::cosh, -5, 5, [](float x) { return std::cosh(x); }},
      {MathFunc::asinh, -5, 5, [](float x) { return std::asinh(x); }},
      {MathFunc::acosh, 1, 10, [](float x) { return std::acosh(x); }},
      {MathFunc::atanh, -0.99f, 0.99f, [](float x) { return std::atanh(x); }},
  };
  const int64_t n = 45;
  for (ForKind kind : {ForKind::Serial, ForKind::Vectorized}) {
    for (const auto& mc : cases) {
      INFO(ir::to_string(mc.func) << " in a " << ir::to_string(kind) << " loop");
      Buffer a("A", DType::Float32, {n}), c("C", DType::Float32, {n});
      Var i("i");
      auto body = ir::make_for(i, 0, n, kind, ir::make_store(c, {i}, ir::make_call(mc.func, {ld(a, i)})));
      auto va = test::random_floats(n, mc.lo, mc.hi, 12);
      AlignedArray<float> vc(n);
      test::compile_and_run({"math", {a, c}, body}, {va.data(), vc.data()});
      for (int64_t k = 0; k < n; ++k) {
        INFO("x = " << va[k]);
        REQUIRE(close(vc[k], mc.reference(va[k])));
      }
    }
    // pow: two arguments, one lane-invariant in the vector loop.
    Buffer a("A", DType::Float32, {n}), e("E", DType::Float32, {1}), c("C", DType::Float32, {n});
    Var i("i");
    auto body =
        ir::make_for(i, 0, n, kind, ir::make_store(c, {i}, ir::make_call(MathFunc::pow, {ld(a, i), ld(e, 0)})));
    auto va = test::random_floats(n, 0.1f, 4, 13);
    AlignedArray<float> ve(1, 2.7f), vc(n);
    test::compile_and_run({"pow", {a, e, c}, body}, {va.data(), ve.data(), vc.data()});
    for (int64_t k = 0; k < n; ++k) REQUIRE(close(vc[k], std::pow(va[k], 2.7f)));
  }
}

TEST_CASE("round is half to even, as the evaluator and ONNX define it", "[cpu]") {
  const std::vector<float> halves = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.5f, 4.5f};
  const int64_t n = static_cast<int64_t>(halves.size());
  for (ForKind kind : {ForKind::Serial, ForKind::Vectorized}) {
    Buffer a("A", DType::Float32, {n}), c("C", DType::Float32, {n});
    Var i("i");
    auto body = ir::make_for(i, 0, n, kind, ir::make_store(c, {i}, ir::make_call(MathFunc::round, {ld(a, i)})));
    AlignedArray<float> va(n), vc(n);
    for (int64_t k = 0; k < n; ++k) va[k] = halves[k];
    test::compile_and_run({"round", {a, c}, body}, {va.data(), vc.data()});
    for (int64_t k = 0; k < n; ++k) {
      INFO(ir::to_string(kind) << " round(" << halves[k] << ")");
      CHECK(vc[k] == ir::eval_math<float>(MathFunc::round, halves[k], 0.0f));
      CHECK(vc[k] == std::nearbyint(halves[k]));
    }
  }
}

TEST_CASE("a vectorized GELU-like expression with exp, tanh and erf", "[cpu]") {
  const int64_t n = 50;
  Buffer a("A", DType::Float32, {n}), c("C", DType::Float32, {n});
  Var i("i");
  Expr x = ld(a, i);
  Expr value = x * 0.5 * (ir::make_call(MathFunc::erf, {x * 0.70710678}) + 1.0) +
               ir::make_call(MathFunc::tanh, {x}) * ir::make_call(MathFunc::exp, {x * -1.0});
  auto body = ir::make_for(i, 0, n, ForKind::Vectorized, ir::make_store(c, {i}, value));
  auto va = test::random_floats(n, -3, 3, 14);
  AlignedArray<float> vc(n);
  test::compile_and_run({"gelu", {a, c}, body}, {va.data(), vc.data()});
  for (int64_t k = 0; k < n; ++k) {
    float v = va[k];
    double expected = v * 0.5 * (std::erf(v * 0.70710678) + 1.0) + std::tanh(v) * std::exp(-v);
    REQUIRE(close(vc[k], expected, 1e-4));
  }
}

namespace {

int64_t floordiv_ref(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t floormod_ref(int64_t a, int64_t b) { return a - floordiv_ref(a, b) * b; }

}  // namespace

TEST_CASE("integer floordiv/floormod with negative operands", "[cpu]") {
  const int64_t n = 40;
  std::mt19937 rng(15);
  std::uniform_int_distribution<int64_t> value(-1000, 1000), divisor(-9, 9);
  AlignedArray<int64_t> vx(n), vy(n);
  for (int64_t k = 0; k < n; ++k) {
    vx[k] = value(rng);
    do vy[k] = divisor(rng); while (vy[k] == 0);
  }
  // Constant divisors: power of two, odd positive, negative; and a variable one.
  for (ForKind kind : {ForKind::Serial, ForKind::Vectorized}) {
    Buffer x("X", DType::Int64, {n}), y("Y", DType::Int64, {n}), out("Out", DType::Int64, {8 * n});
    Var i("i");
    std::vector<int64_t> consts = {4, 3, -3};
    std::vector<ir::Stmt> stores;
    for (size_t c = 0; c < consts.size(); ++c) {
      stores.push_back(ir::make_store(out, {i * 8 + int64_t(2 * c)}, ir::make_floordiv(ld(x, i), consts[c])));
      stores.push_back(ir::make_store(out, {i * 8 + int64_t(2 * c + 1)}, ir::make_floormod(ld(x, i), consts[c])));
    }
    stores.push_back(ir::make_store(out, {i * 8 + 6}, ld(x, i) / ld(y, i)));
    stores.push_back(ir::make_store(out, {i * 8 + 7}, ld(x, i) % ld(y, i)));
    auto body = ir::make_for(i, 0, n, kind, ir::make_seq(stores));
    AlignedArray<int64_t> vo(8 * n);
    test::compile_and_run({"floordiv", {x, y, out}, body}, {vx.data(), vy.data(), vo.data()});
    for (int64_t k = 0; k < n; ++k) {
      INFO("x = " << vx[k] << ", y = " << vy[k] << ", " << ir::to_string(kind));
      for (size_t c = 0; c < consts.size(); ++c) {
        REQUIRE(vo[k * 8 + 2 * c] == floordiv_ref(vx[k], consts[c]));
        REQUIRE(vo[k * 8 + 2 * c + 1] == floormod_ref(vx[k], consts[c]));
      }
      REQUIRE(vo[k * 8 + 6] == floordiv_ref(vx[k], vy[k]));
      REQUIRE(vo[k * 8 + 7] == floormod_ref(vx[k], vy[k]));
    }
  }
}

TEST_CASE("selects, comparisons, min/max and casts between dtypes", "[cpu]") {
  const int64_t n = 37;
  auto vf = test::random_floats(n, -50, 50, 16);
  for (ForKind kind : {ForKind::Serial, ForKind::Vectorized}) {
    Buffer f("F", DType::Float32, {n});
    Buffer to_i32("I32", DType::Int32, {n}), to_f64("F64", DType::Float64, {n}), flags("Flags", DType::Bool, {n}),
        picked("Picked", DType::Float32, {n}), clamp("Clamp", DType::Int64, {n});
    Var i("i");
    Expr x = ld(f, i);
    Expr as_int = ir::make_cast(DType::Int32, x);  // truncation toward zero
    Expr flag = ir::make_and(x > -10.0, ir::make_not(x >= 20.0));
    auto stores = ir::make_seq({
        ir::make_store(to_i32, {i}, as_int),
        ir::make_store(to_f64, {i}, ir::make_cast(DType::Float64, x) * ir::make_cast(DType::Float64, as_int)),
        ir::make_store(flags, {i}, ir::make_or(flag, ir::make_eq(i % 5, 0))),
        ir::make_store(picked, {i},
                       ir::make_select(flag, ir::make_max(x, 0.0), ir::make_min(x, ir::make_cast(DType::Float32, i)))),
        ir::make_store(clamp, {i},
                       ir::make_cast(DType::Int64, ir::make_cast(DType::Bool, as_int)) +
                           ir::make_min(ir::make_max(ir::make_cast(DType::Int64, as_int), -7), 7) * 10),
    });
    auto body = ir::make_for(i, 0, n, kind, stores);
    AlignedArray<int32_t> vi(n);
    AlignedArray<double> vd(n);
    AlignedArray<uint8_t> vb(n, 7);
    AlignedArray<float> vp(n);
    AlignedArray<int64_t> vc(n);
    test::compile_and_run({"casts", {f, to_i32, to_f64, flags, picked, clamp}, body},
                          {vf.data(), vi.data(), vd.data(), vb.data(), vp.data(), vc.data()});
    for (int64_t k = 0; k < n; ++k) {
      float v = vf[k];
      int32_t t = static_cast<int32_t>(v);
      bool fl = v > -10.0f && !(v >= 20.0f);
      INFO("x = " << v << ", " << ir::to_string(kind));
      REQUIRE(vi[k] == t);
      REQUIRE(vd[k] == double(v) * double(t));
      REQUIRE(vb[k] == ((fl || k % 5 == 0) ? 1 : 0));
      REQUIRE(vp[k] == (fl ? std::max(v, 0.0f) : std::min(v, static_cast<float>(k))));
      REQUIRE(vc[k] == (t != 0 ? 1 : 0) + std::min<int64_t>(std::max<int64_t>(t, -7), 7) * 10);
    }
  }
}

// exp, erf and tanh are inline polynomials (codegen/llvm/fast_math.h), not libm.
TEST_CASE("float exp, erf and tanh stay within a few ulp of libm over their whole range", "[cpu]") {
  struct Case {
    MathFunc func;
    float lo, hi;
  };
  const std::vector<Case> cases = {{MathFunc::exp, -104, 90}, {MathFunc::erf, -6, 6}, {MathFunc::tanh, -12, 12}};
  const float specials[] = {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-7f, -3e-5f, 3.9e-4f, 4.1e-4f, 0.5f, -0.5f,
                            88.7f, -87.3f, -88.0f, 100.0f, -120.0f, INFINITY, -INFINITY, NAN};
  for (ForKind kind : {ForKind::Serial, ForKind::Vectorized}) {
    for (const auto& mc : cases) {
      std::vector<float> xs(std::begin(specials), std::end(specials));
      // Uniform over the range, and log-spaced small magnitudes of both signs.
      auto uniform = test::random_floats(3000, mc.lo, mc.hi, 21);
      for (int k = 0; k < 3000; ++k) xs.push_back(uniform[k]);
      for (int k = 0; k < 1000; ++k) xs.push_back((k % 2 ? -1.0f : 1.0f) * std::pow(10.0f, -8.0f + 8.0f * k / 1000));
      const int64_t n = static_cast<int64_t>(xs.size());
      Buffer a("A", DType::Float32, {n}), c("C", DType::Float32, {n});
      Var i("i");
      auto body = ir::make_for(i, 0, n, kind, ir::make_store(c, {i}, ir::make_call(mc.func, {ld(a, i)})));
      AlignedArray<float> va(n), vc(n);
      for (int64_t k = 0; k < n; ++k) va[k] = xs[k];
      test::compile_and_run({"math", {a, c}, body}, {va.data(), vc.data()});
      for (int64_t k = 0; k < n; ++k) {
        const float x = xs[k];
        const float want = ir::eval_math<float>(mc.func, x, 0.0f);
        INFO(ir::to_string(mc.func) << " in a " << ir::to_string(kind) << " loop at x = " << x << ": " << vc[k]
                                    << ", libm " << want);
        if (std::isnan(want) || std::isinf(want) || want == 0) {
          REQUIRE((std::isnan(want) ? std::isnan(vc[k]) : vc[k] == want));
          continue;
        }
        // Results below the smallest normal float may flush to zero.
        const double spacing = std::max(std::abs(want) * 1.1920929e-7, 1.1754944e-38);
        const double ulp = std::abs(static_cast<double>(vc[k]) - want) / spacing;
        REQUIRE(ulp <= 4);  // 1.0 (exp), 2.5 (erf), 2.3 (tanh) seen
      }
    }
  }
}
