#include <catch2/catch.hpp>

#include "eval_util.h"
#include "ir/interval.h"
#include "ir/printer.h"

using namespace tunectl::ir;
using tunectl::ir::testing::eval_int;
using tunectl::ir::testing::ExprGen;

namespace {
std::string show(const Interval& iv) {
  return "[" + (iv.min ? to_string(iv.min) : "-inf") + ", " + (iv.max ? to_string(iv.max) : "inf") + "]";
}
Interval range(int64_t lo, int64_t hi) { return {make_int(lo), make_int(hi)}; }
}  // namespace

TEST_CASE("interval: the bound inference case", "[unit]") {
  Var io("io"), ii("ii"), kh("kh");
  VarMap<Interval> dom{{ii, range(0, 7)}, {kh, range(0, 2)}};
  CHECK(show(eval_interval(io * 8 + ii + kh, dom)) == "[io * 8, io * 8 + 9]");
  // With io ranging too, the interval becomes constant.
  dom[io] = range(0, 3);
  CHECK(show(eval_interval(io * 8 + ii + kh, dom)) == "[0, 33]");
}

TEST_CASE("interval: arithmetic rules", "[unit]") {
  Var i("i"), j("j"), n("n");
  VarMap<Interval> dom{{i, range(0, 15)}, {j, range(-2, 3)}};
  CHECK(show(eval_interval(n, dom)) == "[n, n]");
  CHECK(show(eval_interval(i - j, dom)) == "[-3, 17]");
  CHECK(show(eval_interval(i * -3, dom)) == "[-45, 0]");
  CHECK(show(eval_interval(i * j, dom)) == "[-30, 45]");
  CHECK(show(eval_interval(i / 4, dom)) == "[0, 3]");
  CHECK(show(eval_interval(i / -4, dom)) == "[-4, 0]");
  CHECK(show(eval_interval(i % 4, dom)) == "[0, 3]");
  CHECK(show(eval_interval(i % -4, dom)) == "[-3, 0]");
  CHECK(show(eval_interval(make_min(i, j), dom)) == "[-2, 3]");
  CHECK(show(eval_interval(make_max(i, n), dom)) == "[max(n, 0), max(n, 15)]");
  CHECK(show(eval_interval(make_select(n < 0, i, j + 20), dom)) == "[0, 23]");
  CHECK(show(eval_interval(i * n, dom)) == "[-inf, inf]");
  CHECK(show(eval_interval(i * n, dom, {{n, {0, 4}}})) == "[0, 60]");
  CHECK(show(eval_interval(make_cast(DType::Int64, make_cast(DType::Int32, i)), dom)) == "[0, 15]");
}

TEST_CASE("interval: floormod inside one period is exact", "[unit]") {
  Var io("io"), ii("ii");
  VarMap<Interval> dom{{ii, range(0, 3)}};
  CHECK(show(eval_interval((io * 8 + ii) % 8, dom)) == "[0, 3]");
  CHECK(show(eval_interval((io * 8 + ii + 2) % 8, dom)) == "[2, 5]");
  CHECK(show(eval_interval((io * 8 + ii + 6) % 8, dom)) == "[0, 7]");
  CHECK(show(eval_interval((io * 8 + ii) / 8, dom)) == "[io, io]");
  Var f("f");
  VarMap<Interval> sym{{f, {io * 4, io * 4 + 3}}};
  CHECK(show(eval_interval(f % 4, sym)) == "[0, 3]");
  CHECK(show(eval_interval(f / 4, sym)) == "[io, io]");
}

TEST_CASE("interval: union", "[unit]") {
  Var n("n");
  CHECK(show(union_interval(range(0, 3), range(2, 9))) == "[0, 9]");
  CHECK(show(union_interval({n, n + 4}, {n + 2, n + 8})) == "[n, n + 8]");
  CHECK(show(union_interval({n, Expr()}, range(0, 1))) == "[min(n, 0), inf]");
  CHECK(Interval::point(n).is_point());
  CHECK_FALSE(Interval({n, n + 1}).is_point());
}

TEST_CASE("interval: contains every value of random expressions", "[unit]") {
  Var x("x"), y("y"), p("p");
  // x has a constant range, y one that depends on the point variable p.
  VarMap<Interval> dom{{x, range(-3, 12)}, {y, {p * 4, p * 4 + 3}}};
  VarMap<IntBound> bounds{{p, {0, 5}}};
  ExprGen gen({x, y, p}, 4242);
  int bounded = 0;
  for (int n = 0; n < 2000; ++n) {
    Expr e = gen.gen(3);
    Interval iv = eval_interval(e, dom, bounds);
    bounded += iv.is_bounded();
    for (int k = 0; k < 20; ++k) {
      int64_t pv = gen.in(0, 5);
      VarMap<int64_t> env{{p, pv}, {x, gen.in(-3, 12)}, {y, gen.in(pv * 4, pv * 4 + 3)}};
      int64_t v = eval_int(e, env);
      INFO("expr " << to_string(e) << " interval " << show(iv) << " p=" << pv << " x=" << env[x] << " y=" << env[y]);
      if (iv.min) REQUIRE(eval_int(iv.min, env) <= v);
      if (iv.max) REQUIRE(v <= eval_int(iv.max, env));
    }
  }
  // The analysis must actually bound most of them for the check to mean much.
  CHECK(bounded > 1000);
}
