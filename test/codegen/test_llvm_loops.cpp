// Parallel, unrolled and allocating loop nests: outlining onto the thread
// pool, per-thread local buffers, stack and heap allocations.
#include <catch2/catch.hpp>

#include "ir/error.h"
#include "kernel_fixture.h"
#include "runtime/thread_pool.h"

using namespace tunectl;
using ir::Buffer;
using ir::DType;
using ir::Expr;
using ir::ForKind;
using ir::Var;
using test::AlignedArray;

namespace {

Expr ld(const Buffer& b, Expr i) { return ir::make_load(b, {std::move(i)}); }

}  // namespace

TEST_CASE("parallel loop runs every iteration once", "[cpu]") {
  runtime::set_num_threads(3);
  const int64_t n = 1000;
  Buffer a("A", DType::Int64, {n}), c("C", DType::Int64, {n});
  Var i("i");
  // Offset min, to check the outlined body adds it back.
  auto body = ir::make_for(i, 5, n - 10, ForKind::Parallel, ir::make_store(c, {i}, ld(c, i) + ld(a, i) * 2 + 1));
  AlignedArray<int64_t> va(n), vc(n, 0);
  for (int64_t k = 0; k < n; ++k) va[k] = k - 300;
  test::compile_and_run({"par", {a, c}, body}, {va.data(), vc.data()});
  for (int64_t k = 0; k < n; ++k) REQUIRE(vc[k] == (k >= 5 && k < n - 5 ? (k - 300) * 2 + 1 : 0));
  runtime::set_num_threads(0);
}

TEST_CASE("nested parallel loops capture outer variables", "[cpu]") {
  runtime::set_num_threads(2);
  const int64_t m = 9, n = 33;
  Buffer c("C", DType::Float32, {m * n});
  Var i("i"), j("j");
  auto value = ir::make_cast(DType::Float32, i * 100 + j);
  auto body = ir::make_for(i, 0, m, ForKind::Parallel,
                           ir::make_for(j, 0, n, ForKind::Parallel, ir::make_store(c, {i * n + j}, value)));
  AlignedArray<float> vc(m * n, -1.0f);
  test::compile_and_run({"nested", {c}, body}, {vc.data()});
  for (int64_t r = 0; r < m; ++r)
    for (int64_t k = 0; k < n; ++k) REQUIRE(vc[r * n + k] == static_cast<float>(r * 100 + k));
  runtime::set_num_threads(0);
}

TEST_CASE("unrolled loops, replicated and by metadata", "[cpu]") {
  for (int64_t n : {4, 100}) {
    Buffer a("A", DType::Float32, {n}), c("C", DType::Float32, {n});
    Var i("i");
    auto body = ir::make_for(i, 0, n, ForKind::Unrolled, ir::make_store(c, {i}, ld(a, n - 1 - i) - 0.5));
    auto va = test::random_floats(n, -1, 1, 8);
    AlignedArray<float> vc(n);
    test::compile_and_run({"unroll", {a, c}, body}, {va.data(), vc.data()});
    for (int64_t k = 0; k < n; ++k) REQUIRE(vc[k] == va[n - 1 - k] - 0.5f);
  }
}

namespace {

// C[m, n] = A[m, k] x B[k, n]: parallel rows, a local accumulator row,
// vectorized columns, a serial reduction loop and an unrolled copy-out.
lower::LoweredFunc matmul(int64_t m, int64_t n, int64_t k) {
  Buffer a("A", DType::Float32, {m, k}), b("B", DType::Float32, {k, n}), c("C", DType::Float32, {m, n});
  Buffer acc("acc", DType::Float32, {n}, ir::MemScope::Local);
  Var i("i"), j("j"), r("r"), j2("j2"), j3("j3");
  auto init = ir::make_for(j, 0, n, ForKind::Vectorized, ir::make_store(acc, {j}, Expr(0.0)));
  auto update = ir::make_store(acc, {j2}, ld(acc, j2) + ir::make_load(a, {i, r}) * ir::make_load(b, {r, j2}));
  auto reduce = ir::make_for(r, 0, k, ForKind::Serial, ir::make_for(j2, 0, n, ForKind::Vectorized, update));
  auto out = ir::make_for(j3, 0, n, ForKind::Unrolled, ir::make_store(c, {i, j3}, ld(acc, j3)));
  auto row = ir::make_allocate(acc, ir::make_seq({init, reduce, out}));
  return {"matmul", {a, b, c}, ir::make_for(i, 0, m, ForKind::Parallel, row)};
}

}  // namespace

TEST_CASE("matmul with a per-thread local accumulator", "[cpu]") {
  runtime::set_num_threads(2);
  const int64_t m = 13, n = 40, k = 17;
  auto va = test::random_floats(m * k, -1, 1, 9), vb = test::random_floats(k * n, -1, 1, 10);
  AlignedArray<float> vc(m * n);
  test::compile_and_run(matmul(m, n, k), {va.data(), vb.data(), vc.data()});
  for (int64_t r = 0; r < m; ++r)
    for (int64_t col = 0; col < n; ++col) {
      double expected = 0;
      for (int64_t x = 0; x < k; ++x) expected += double(va[r * k + x]) * vb[x * n + col];
      REQUIRE(vc[r * n + col] == Approx(expected).margin(1e-5));
    }
  runtime::set_num_threads(0);
}

TEST_CASE("allocations above the stack limit live on the heap", "[cpu]") {
  runtime::set_num_threads(2);
  const int64_t n = 100000;  // 400 KB per thread
  Buffer a("A", DType::Float32, {n}), c("C", DType::Float32, {4});
  Buffer tmp("tmp", DType::Float32, {n}, ir::MemScope::Local);
  Var p("p"), i("i"), j("j");
  auto fill = ir::make_for(i, 0, n, ForKind::Vectorized,
                           ir::make_store(tmp, {i}, ld(a, i) * ir::make_cast(DType::Float32, p + 1)));
  auto sum = ir::make_for(j, 0, n, ForKind::Serial, ir::make_store(c, {p}, ld(c, p) + ld(tmp, j)));
  auto body = ir::make_for(p, 0, 4, ForKind::Parallel,
                           ir::make_allocate(tmp, ir::make_seq({ir::make_store(c, {p}, Expr(0.0)), fill, sum})));
  auto va = test::random_floats(n, 0, 1, 11);
  AlignedArray<float> vc(4);
  test::compile_and_run({"heap", {a, c}, body}, {va.data(), vc.data()});
  double total = 0;
  for (int64_t x = 0; x < n; ++x) total += va[x];
  for (int q = 0; q < 4; ++q) REQUIRE(vc[q] == Approx(total * (q + 1)).epsilon(1e-4));
  runtime::set_num_threads(0);
}

TEST_CASE("thread-bound loops are a user error on the CPU", "[cpu][error]") {
  Buffer c("C", DType::Float32, {8});
  Var t("t");
  auto body = ir::make_for(t, 0, 8, ForKind::ThreadBinding, ir::make_store(c, {t}, Expr(1.0)), "threadIdx.x");
  REQUIRE_THROWS_AS(codegen::jit_compile({"bound", {c}, body}, test::host()), UserError);
  REQUIRE_THROWS_WITH(codegen::emit_llvm_ir({"bound", {c}, body}, test::host()), Catch::Contains("threadIdx.x"));
}

TEST_CASE("a Reduce reaching codegen is an internal error", "[cpu][error]") {
  Buffer a("A", DType::Float32, {8}), c("C", DType::Float32, {1});
  Var r("r");
  auto red = ir::make_reduce(ir::ReduceOp::Sum, ld(a, r), {ir::IterVar{r, 8, ir::IterKind::Reduce}});
  REQUIRE_THROWS_AS(codegen::emit_llvm_ir({"reduce", {a, c}, ir::make_store(c, {0}, red)}, test::host()), InternalError);
}
