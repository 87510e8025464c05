#include <catch2/catch.hpp>

#include "eval_util.h"
#include "ir/printer.h"
#include "ir/simplify.h"

using namespace tunectl::ir;
using tunectl::ir::testing::eval_int;
using tunectl::ir::testing::ExprGen;

TEST_CASE("simplify: random expressions keep their value", "[unit]") {
  Var x("x"), y("y"), z("z");
  VarMap<IntBound> bounds{{x, {0, 20}}, {y, {-5, 5}}, {z, {0, 63}}};
  ExprGen gen({x, y, z}, 12345);
  int checked = 0;
  for (int n = 0; n < 3000; ++n) {
    Expr e = gen.gen(4);
    // With bounds, points come from the bounds; without, anywhere nearby.
    bool bounded = n % 2 == 0;
    Expr s = bounded ? simplify(e, bounds) : simplify(e);
    for (int p = 0; p < 20; ++p) {
      VarMap<int64_t> env;
      for (const auto& v : {x, y, z}) {
        IntBound b = bounds.at(v);
        env[v] = bounded ? gen.in(b.min, b.max) : gen.in(-40, 40);
      }
      int64_t want = eval_int(e, env), got = eval_int(s, env);
      if (want != got) {
        FAIL_CHECK("expr " << to_string(e) << "\nsimplified " << to_string(s) << "\nat x=" << env[x] << " y=" << env[y]
                           << " z=" << env[z] << ": " << want << " vs " << got);
        break;
      }
      ++checked;
    }
  }
  CHECK(checked == 3000 * 20);
}

TEST_CASE("simplify: random conditions keep their value", "[unit]") {
  Var x("x"), y("y");
  VarMap<IntBound> bounds{{x, {0, 31}}, {y, {-8, 8}}};
  ExprGen gen({x, y}, 777);
  for (int n = 0; n < 2000; ++n) {
    Expr e = gen.cond(3);
    Expr s = simplify(e, bounds);
    for (int p = 0; p < 20; ++p) {
      VarMap<int64_t> env{{x, gen.in(0, 31)}, {y, gen.in(-8, 8)}};
      INFO("expr " << to_string(e) << "\nsimplified " << to_string(s));
      REQUIRE(eval_int(e, env) == eval_int(s, env));
    }
  }
}

TEST_CASE("simplify: is idempotent on random expressions", "[unit]") {
  Var x("x"), y("y");
  VarMap<IntBound> bounds{{x, {0, 31}}, {y, {0, 7}}};
  ExprGen gen({x, y}, 99);
  for (int n = 0; n < 1000; ++n) {
    Expr s = simplify(gen.gen(3), bounds);
    INFO("simplified " << to_string(s));
    CHECK(to_string(simplify(s, bounds)) == to_string(s));
  }
}
