#include <catch2/catch.hpp>

#include "ir/printer.h"
#include "ir/simplify.h"

using namespace tunectl::ir;

namespace {
std::string simp(const Expr& e, const VarMap<IntBound>& b = {}) { return to_string(simplify(e, b)); }
}  // namespace

TEST_CASE("simplify: constant folding", "[unit]") {
  CHECK(simp(make_int(3) + 4 * make_int(5)) == "23");
  CHECK(simp(make_int(-7) / 2) == "-4");
  CHECK(simp(make_int(-7) % 2) == "1");
  CHECK(simp(make_int(7) / 0) == "7 // 0");
  CHECK(simp(make_min(make_int(3), make_int(9))) == "3");
  CHECK(simp(make_int(3) < make_int(9)) == "true");
  CHECK(simp(make_and(make_bool(true), make_int(2) >= make_int(3))) == "false");
  CHECK(simp(make_int(2147483647, DType::Int32) + make_int(1, DType::Int32)) == "-2147483648");
  // Float32 folding rounds to float: 0.1f + 0.2f is 0.300000012f, not 0.3.
  CHECK(simp(Expr(0.1) + Expr(0.2)) == "0.300000012f");
  CHECK(simp(make_float(0.1, DType::Float64) + make_float(0.2, DType::Float64)) == "0.30000000000000004");
  CHECK(simp(Expr(1.0) / Expr(3.0)) == "0.333333343f");
  CHECK(simp(make_call(MathFunc::exp, {Expr(0.0)})) == "1f");
  CHECK(simp(make_cast(DType::Float32, make_int(3))) == "3f");
  CHECK(simp(make_cast(DType::Int64, Expr(-2.75))) == "-2");
  CHECK(simp(make_cast(DType::Int32, make_int(4294967297))) == "1");
  CHECK(simp(make_select(make_int(1) < 2, Expr(1.0), Expr(2.0))) == "1f");
  CHECK(simp(Expr(2.0) < Expr(1.0)) == "false");
}

TEST_CASE("simplify: canonical sums", "[unit]") {
  Var i("i"), j("j"), k("k");
  CHECK(simp(i + 0) == "i");
  CHECK(simp(i * 1) == "i");
  CHECK(simp(i * 0) == "0");
  CHECK(simp(i - i) == "0");
  CHECK(simp(i + j - i) == "j");
  CHECK(simp(j + i) == simp(i + j));
  CHECK(simp(i * 2 + 3 + i * 4 - 1) == "i * 6 + 2");
  CHECK(simp((i + 1) * 4 - 4) == "i * 4");
  CHECK(simp(j + i * 8) == "i * 8 + j");
  CHECK(simp(3 - i) == "3 - i");
  CHECK(simp(0 - i - j) == "i * -1 - j");
  CHECK(simp(i * 2 * 3 * j) == "i * j * 6");
  CHECK(simp(j * (i * 2)) == "i * j * 2");
  CHECK(simp(i * j - j * i) == "0");
  // Floats keep their order of operations (no reassociation).
  Var x("x", DType::Float32);
  CHECK(simp(x * 1.0) == "x");
  CHECK(simp(x + 0.0) == "x");
  CHECK(simp(x - x) == "x - x");
  CHECK(simp(x * 0.0) == "x * 0f");
}

TEST_CASE("simplify: split then fuse comes back to the plain variable", "[unit]") {
  Var f("f"), g("g");
  VarMap<IntBound> b{{f, {0, 1023}}};
  CHECK(simp(f / 16 * 16 + f % 16, b) == "f");
  CHECK(simp(f / 16 * 16 + f % 16) == "f");  // holds without bounds too
  CHECK(simp(f % 16 + (f / 16) * 16 + 3) == "f + 3");
  CHECK(simp((f / 16 * 16 + f % 16) * 2 - f) == "f");
  // Nested: split f by 16, then split the outer part again by 4.
  CHECK(simp(((f / 16) / 4 * 4 + (f / 16) % 4) * 16 + f % 16) == "f");
  // Three loops of extents (I, 8, 4) fused into f, then flattened again.
  Expr i = f / (8 * 4), j = f / 4 % 8, k = f % 4;
  CHECK(simp(i * 32 + j * 4 + k, b) == "f");
  CHECK(simp(f % 32 / 4) == "f // 4 % 8");
  Expr j2 = f % 32 / 4;  // the other way to write the middle index
  CHECK(simp(i * 32 + j2 * 4 + k, b) == "f");
  // Split of a composite index and its fuse.
  Expr idx = g * 8 + f;
  CHECK(simp(idx / 4 * 4 + idx % 4) == "g * 8 + f");
  // Split io*8 + ii, fused into one loop v of extent 64: back to v.
  Var v("v");
  Expr io = v / 8, ii = v % 8;
  CHECK(simp(io * 8 + ii, {{v, {0, 63}}}) == "v");
}

TEST_CASE("simplify: split with a non-divisible factor", "[unit]") {
  Var io("io"), ii("ii");
  // extent 10 split by 3: io in [0, 3], ii in [0, 2]; the guard stays.
  VarMap<IntBound> b{{io, {0, 3}}, {ii, {0, 2}}};
  CHECK(simp(io * 3 + ii < 10, b) == "io * 3 + ii < 10");
  CHECK(simp(io * 3 + ii < 12, b) == "true");
  CHECK(simp(io * 3 + ii >= 0, b) == "true");
  CHECK(simp((io * 3 + ii) / 3, b) == "io");
  CHECK(simp((io * 3 + ii) % 3, b) == "ii");
}

TEST_CASE("simplify: floordiv and floormod rules", "[unit]") {
  Var x("x"), y("y"), i("i");
  VarMap<IntBound> b{{i, {0, 15}}, {y, {0, 7}}};
  CHECK(simp((x * 16 + i) / 16, b) == "x");
  CHECK(simp((x * 16 + i) % 16, b) == "i");
  CHECK(simp((x * 16 + i + 32) / 16, b) == "x + 2");
  CHECK(simp(i / 16, b) == "0");
  CHECK(simp(i % 16, b) == "i");
  CHECK(simp((i + 16) % 16, b) == "i");
  CHECK(simp((x * 16 + y) / 16) == "x + y // 16");
  CHECK(simp((x * 16 + y) % 16) == "y % 16");
  CHECK(simp(x / 4 / 8) == "x // 32");
  CHECK(simp(x % 32 % 8) == "x % 8");
  CHECK(simp(x % 32 / 8) == "x // 8 % 4");
  CHECK(simp(x * 4 / 8) == "x // 2");
  CHECK(simp(x * 4 % 8) == "x % 2 * 4");
  CHECK(simp((x * 6 + 4) / 2) == "x * 3 + 2");
  CHECK(simp(x * 9 % 8) == "x % 8");
  CHECK(simp(x / 1) == "x");
  CHECK(simp(x % 1) == "0");
  CHECK(simp((y * 2 + 1) / 16, b) == "0");
  CHECK(simp(x / y) == "x // y");
  CHECK(simp(x / -2) == "x // -2");
}

TEST_CASE("simplify: comparisons and logic from bounds", "[unit]") {
  Var i("i"), j("j"), n("n");
  VarMap<IntBound> b{{i, {0, 63}}, {j, {0, 7}}};
  CHECK(simp(i < 64, b) == "true");
  CHECK(simp(i < 63, b) == "i < 63");
  CHECK(simp(i >= 64, b) == "false");
  CHECK(simp(i * 8 + j < 512, b) == "true");
  CHECK(simp(make_eq(i, i)) == "true");
  CHECK(simp(make_ne(i + 64, i)) == "true");
  CHECK(simp(make_eq(j, i + 8), b) == "false");
  CHECK(simp(make_and(i < 64, j < n), b) == "j < n");
  CHECK(simp(make_or(i < 64, j < n), b) == "true");
  CHECK(simp(make_and(j < n, make_not(j < n))) == "false");
  CHECK(simp(make_not(i < n)) == "i >= n");
  CHECK(simp(make_not(make_not(i < n))) == "i < n");
  CHECK(simp(make_min(i, 64), b) == "i");
  CHECK(simp(make_max(i, 64), b) == "64");
  CHECK(simp(make_min(i, n), b) == "min(i, n)");
  CHECK(simp(make_min(i + 1, i)) == "i");
  CHECK(simp(make_min(0, n)) == "min(n, 0)");
  CHECK(simp(make_select(i < 64, i, j), b) == "i");
  CHECK(simp(make_select(j < n, i, i)) == "i");
  Var x("x", DType::Float32);
  CHECK(simp(make_not(x < 1.0)) == "!(x < 1f)");
}

TEST_CASE("simplify: reductions bound their axes", "[unit]") {
  Var i("i"), k("k");
  Buffer a("A", DType::Float32, {64, 64});
  Expr src = make_load(a, {i, k / 64 * 64 + k % 64 + k / 64});
  Expr r = make_reduce(ReduceOp::Sum, src, {IterVar{k, 64, IterKind::Reduce}});
  CHECK(simp(r) == "sum(A[i, k], axis=[k:0..64])");
}

TEST_CASE("simplify: keeps unchanged nodes shared", "[unit]") {
  Var i("i"), j("j");
  Expr e = i * 8 + j;
  CHECK(simplify(e).same_as(e));
  Buffer a("A", DType::Float32, {64});
  Expr l = make_load(a, {i}) + make_load(a, {j});
  CHECK(simplify(l).same_as(l));
}

TEST_CASE("simplify: statements", "[unit]") {
  Var i("i"), j("j"), o("o");
  Buffer c("C", DType::Float32, {64, 64});
  Buffer t("T", DType::Float32, {8}, MemScope::Local);
  SECTION("conditions decided by loop bounds") {
    Stmt body = make_if(make_and(i < 64, j < 64), make_store(c, {i, j}, Expr(1.0)));
    Stmt s = make_for(i, 0, 64, ForKind::Parallel, make_for(j, 0, 64, ForKind::Serial, body));
    CHECK(to_string(simplify(s)) == "for i (0, 64) parallel {\n  for j (0, 64) {\n    C[i, j] = 1f\n  }\n}\n");
  }
  SECTION("false conditions take the else branch or vanish") {
    Stmt s = make_for(i, 0, 8, ForKind::Serial,
                      make_seq({make_if(i >= 8, make_store(c, {i, i}, Expr(1.0))),
                                make_if(i > 9, make_barrier(), make_store(c, {i, 0}, Expr(2.0)))}));
    CHECK(to_string(simplify(s)) == "for i (0, 8) {\n  C[i, 0] = 2f\n}\n");
  }
  SECTION("unit loops become their body") {
    Stmt inner = make_store(c, {o * 8 + i, j}, make_load(t, {i}));
    Stmt s = make_for(o, 3, 1, ForKind::Serial,
                      make_for(i, 0, 8, ForKind::Vectorized, make_for(j, 0, 1, ForKind::Unrolled, inner)));
    CHECK(to_string(simplify(s)) == "for i (0, 8) vectorized {\n  C[i + 24, 0] = T[i]\n}\n");
  }
  SECTION("thread bindings of extent 1 stay") {
    Stmt s = make_for(i, 0, 1, ForKind::ThreadBinding, make_store(c, {i, i}, Expr(0.0)), "threadIdx.x");
    CHECK(to_string(simplify(s)) == "for i (0, 1) bind threadIdx.x {\n  C[0, 0] = 0f\n}\n");
  }
  SECTION("empty loops, allocations and sequences disappear") {
    Stmt dead = make_if(i < 0, make_store(c, {i, i}, Expr(0.0)));
    Stmt s = make_seq({make_for(i, 0, 4, ForKind::Serial, make_allocate(t, dead)), make_barrier()});
    CHECK(to_string(simplify(s)) == "barrier\n");
    Stmt all_dead = make_for(i, 0, 4, ForKind::Serial, dead);
    Stmt out = simplify(all_dead);
    REQUIRE(out.as<SeqNode>());
    CHECK(out.as<SeqNode>()->stmts.empty());
  }
  SECTION("guard of a non-divisible split narrows the then branch") {
    Var io("io"), ii("ii");
    Stmt guarded = make_if(make_and(i < 10, i >= 2), make_store(c, {i, make_min(i, 20)}, Expr(0.0)));
    Stmt s = make_for(i, 0, 12, ForKind::Serial, guarded);
    CHECK(to_string(simplify(s)) == "for i (0, 12) {\n  if (i < 10 && i >= 2) {\n    C[i, i] = 0f\n  }\n}\n");
  }
  SECTION("an empty then branch flips the condition") {
    Stmt s = make_for(i, 0, 12, ForKind::Serial,
                      make_if(i < 6, make_if(i > 8, make_barrier()), make_store(c, {i, i}, Expr(0.0))));
    CHECK(to_string(simplify(s)) == "for i (0, 12) {\n  if (i >= 6) {\n    C[i, i] = 0f\n  }\n}\n");
  }
}
