#include <catch2/catch.hpp>

#include "ir/printer.h"

using namespace tunectl::ir;

TEST_CASE("printer: expressions with minimal parentheses", "[unit]") {
  Var i("i"), j("j"), k("k");
  CHECK(to_string(i + j * 2) == "i + j * 2");
  CHECK(to_string((i + j) * 2) == "(i + j) * 2");
  CHECK(to_string(i - (j - k)) == "i - (j - k)");
  CHECK(to_string((i - j) - k) == "i - j - k");
  CHECK(to_string(i / 4 * 4 + i % 4) == "i // 4 * 4 + i % 4");
  CHECK(to_string(i / (j * 4)) == "i // (j * 4)");
  CHECK(to_string(make_and(i < 4, make_or(j >= 2, make_not(make_eq(k, 1))))) ==
        "i < 4 && (j >= 2 || !(k == 1))");
  CHECK(to_string(make_min(i, make_max(j, 3))) == "min(i, max(j, 3))");
  CHECK(to_string(make_select(i < j, i, j)) == "select(i < j, i, j)");
  CHECK(to_string(make_bool(true)) == "true");
  CHECK(to_string(make_int(-3)) == "-3");
}

TEST_CASE("printer: shared text is the printed text, looked up for a node printed before", "[unit]") {
  Var i("i"), j("j");
  Expr e = i * 8 + j / 4;
  auto first = shared_text(e);
  CHECK(*first == to_string(e));
  CHECK(shared_text(e) == first);
  // An equal but distinct node has its own entry with the same text.
  Expr f = i * 8 + j / 4;
  CHECK(shared_text(f) != first);
  CHECK(*shared_text(f) == *first);
  // Past the cache's capacity the entry is printed again, to the same text.
  for (int n = 0; n < 20000; ++n) shared_text(make_int(n));
  CHECK(*shared_text(e) == to_string(e));
}

TEST_CASE("printer: immediates round-trip", "[unit]") {
  CHECK(to_string(Expr(1.0)) == "1f");
  CHECK(to_string(Expr(0.1)) == "0.100000001f");
  CHECK(std::stof(to_string(Expr(0.1))) == 0.1f);
  CHECK(to_string(make_float(2.0, DType::Float64)) == "2.0");
  CHECK(to_string(make_float(0.1, DType::Float64)) == "0.10000000000000001");
  CHECK(to_string(make_int(7, DType::Int32)) == "7");
}

TEST_CASE("printer: loads, calls, casts and reductions", "[unit]") {
  Var i("i"), j("j"), k("k");
  Buffer a("A", DType::Float32, {64, 64});
  Buffer b("B", DType::Float32, {64, 64});
  Expr body = make_load(a, {i, k}) * make_load(b, {k, j});
  Expr r = make_reduce(ReduceOp::Sum, body, {IterVar{k, 64, IterKind::Reduce}});
  CHECK(to_string(r) == "sum(A[i, k] * B[k, j], axis=[k:0..64])");
  CHECK(to_string(make_call(MathFunc::exp, {make_load(a, {i, j})})) == "exp(A[i, j])");
  CHECK(to_string(make_cast(DType::Float32, i)) == "float32(i)");
}

TEST_CASE("printer: statements", "[unit]") {
  Var i("i"), j("j");
  Buffer c("C", DType::Float32, {64, 64});
  Buffer cl("C.local", DType::Float32, {64}, MemScope::Local);
  Stmt store = make_store(c, {i, j}, make_load(cl, {j}) + 1.0);
  Stmt inner = make_for(j, 0, 64, ForKind::Vectorized, store);
  Stmt init = make_for(j, 0, 64, ForKind::Serial, make_store(cl, {j}, Expr(0.0)));
  Stmt guarded = make_if(i < 32, inner, make_barrier());
  Stmt alloc = make_allocate(cl, make_seq({init, guarded}));
  Stmt loop = make_for(i, 0, 64, ForKind::Parallel, alloc);
  CHECK(to_string(loop) ==
        "for i (0, 64) parallel {\n"
        "  allocate C.local[float32 * 64] local {\n"
        "    for j (0, 64) {\n"
        "      C.local[j] = 0f\n"
        "    }\n"
        "    if (i < 32) {\n"
        "      for j (0, 64) vectorized {\n"
        "        C[i, j] = C.local[j] + 1f\n"
        "      }\n"
        "    } else {\n"
        "      barrier\n"
        "    }\n"
        "  }\n"
        "}\n");
  Var bx("bx");
  CHECK(to_string(make_for(bx, 0, 8, ForKind::ThreadBinding, make_barrier(), "blockIdx.x")) ==
        "for bx (0, 8) bind blockIdx.x {\n  barrier\n}\n");
}
