// Parallel, unrolled and allocating loop nests: outlining onto the thread
// pool, per-thread local buffers, stack and heap allocations, register tiles.
#include <regex>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "backend/backend.h"
#include "ir/error.h"
#include "kernel_fixture.h"
#include "lower/lower.h"
#include "ops/registry.h"
#include "runtime/scratch_pool.h"
#include "runtime/thread_pool.h"
#include "schedule/state.h"
#include "schedule/steps.h"

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

namespace {

// The basic blocks of LLVM IR text that branch back to themselves: the
// bodies of innermost loops.
std::vector<std::string> self_looping_blocks(const std::string& ir_text) {
  std::vector<std::string> blocks;
  const std::regex label(R"(\n([A-Za-z0-9._]+):)");
  std::vector<std::pair<size_t, std::string>> starts;
  for (auto it = std::sregex_iterator(ir_text.begin(), ir_text.end(), label); it != std::sregex_iterator(); ++it)
    starts.emplace_back(it->position(), (*it)[1]);
  for (size_t k = 0; k < starts.size(); ++k) {
    const size_t end = k + 1 < starts.size() ? starts[k + 1].first : ir_text.size();
    std::string block = ir_text.substr(starts[k].first, end - starts[k].first);
    if (std::regex_search(block, std::regex("br .*label %" + starts[k].second + "(,|\\n|$)"))) blocks.push_back(block);
  }
  return blocks;
}

// Every innermost loop of the IR that multiplies (a reduction loop) keeps
// its accumulators in registers: it stores nothing. There is at least one.
void check_reduction_loops_store_nothing(const std::string& ir_text) {
  int reduction_loops = 0;
  for (const std::string& block : self_looping_blocks(ir_text)) {
    if (block.find("fmul") == std::string::npos) continue;
    ++reduction_loops;
    INFO(block);
    CHECK(block.find("store ") == std::string::npos);
  }
  CHECK(reduction_loops > 0);
}

}  // namespace

TEST_CASE("a register tile's accumulators stay in registers through its reduction loop", "[cpu]") {
  // ResNet-50's stem in channel blocks of 8 with the padding computed first
  // and a tile of 2 x 4 vectors (a schedule the search found on the Zen 3).
  // Its local buffer has more uses than LLVM follows to prove that no input
  // pointer reaches it; without an alias scope of its own, its 8
  // accumulators were stored back after every FMA (24 stores in the loop).
  auto dag = std::make_shared<const te::ComputeDAG>(
      ops::make_op_dag("conv2d_nchwc", {{"C", 3}, {"H", 224}, {"W", 224}, {"K", 64}, {"R", 7}, {"S", 7}, {"bi", 3},
                                        {"bo", 8}, {"stride", 2}, {"pad", 3}, {"bias", true}, {"relu", true}}));
  const auto steps = schedule::steps_from_json(nlohmann::json::parse(R"(
[["CI", 5], ["SP", 3, 8, 3, [3], true], ["SP", 3, 7, 7, [7], true], ["SP", 3, 6, 7, [7], true],
["SP", 3, 5, 1, [1], true], ["SP", 3, 4, 8, [1, 1, 8], true], ["SP", 3, 3, 112, [1, 28, 4], true],
["SP", 3, 2, 112, [1, 4, 1], true], ["SP", 3, 1, 8, [1, 1, 2], true], ["SP", 3, 0, 1, [1, 1, 1], true],
["RE", 3, [0, 4, 8, 12, 16, 1, 5, 9, 13, 17, 20, 22, 24, 26, 2, 6, 10, 14, 18, 21, 23, 25, 27, 3, 7, 11, 15, 19]],
["FSP", 6, 4, 5, 1], ["FSP", 6, 3, 6, 1], ["FSP", 6, 2, 7, 1], ["FSP", 6, 1, 8, 1], ["FSP", 6, 0, 9, 1],
["RE", 6, [0, 2, 4, 6, 8, 1, 3, 5, 7, 9]], ["CA", 3, 6, 4], ["AN", 3, 27, "vectorize"],
["PR", 3, 0, "auto_unroll_max_step$64"], ["AN", 6, 9, "vectorize"], ["FU", 6, [0, 1, 2, 3]],
["AN", 6, 0, "parallel"], ["PR", 6, 0, "auto_unroll_max_step$16"]])"));
  const target::Target avx2 = backend::resolve_target("llvm -mcpu=x86-64-v3");
  const std::string text = codegen::emit_llvm_ir(lower::lower(schedule::replay(dag, steps), "stem", avx2), avx2);
  check_reduction_loops_store_nothing(text);
}

TEST_CASE("a tile inside loops that move it keeps its accumulators in registers (promote_accumulators)", "[cpu]") {
  // A constructed 3x3 convolution (ResNet-50's 64 channels at 56 x 56): a
  // 2 x 2 tile of 28-wide rows inside tile loops of 4 and 2, around its
  // reduction loop of 16 input channels. In the stage's buffer, LLVM
  // rewrote the tile's addresses two ways and could not tell its rows
  // apart: it loaded and stored them around every FMA (5.5 ms against 1.6).
  auto dag = std::make_shared<const te::ComputeDAG>(
      ops::make_op_dag("conv2d", {{"C", 64}, {"H", 56}, {"W", 56}, {"K", 64}, {"R", 3}, {"S", 3}, {"pad", 1},
                                  {"bias", true}, {"relu", true}}));
  const auto steps = schedule::steps_from_json(nlohmann::json::parse(R"(
[["CI", 5], ["CHR", 1, "local", [3]], ["SP", 4, 6, 3, [1], true], ["SP", 4, 5, 3, [1], true],
["SP", 4, 4, 64, [16], true], ["SP", 4, 3, 56, [1, 1, 28], true], ["SP", 4, 2, 56, [1, 2, 2], true],
["SP", 4, 1, 64, [2, 4, 2], true], ["SP", 4, 0, 1, [1, 1, 1], true],
["RE", 4, [0, 4, 8, 12, 1, 5, 9, 13, 16, 18, 20, 2, 6, 10, 14, 17, 19, 21, 3, 7, 11, 15]],
["FSP", 7, 3, 5, 1], ["FSP", 7, 2, 6, 1], ["FSP", 7, 1, 7, 1], ["FSP", 7, 0, 8, 1],
["RE", 7, [0, 4, 6, 2, 1, 3, 5, 7]], ["CA", 4, 7, 3], ["CA", 2, 7, 2], ["CI", 1], ["AN", 2, 3, "vectorize"],
["PR", 2, 0, "auto_unroll_max_step$512"], ["AN", 4, 21, "vectorize"], ["PR", 4, 0, "auto_unroll_max_step$512"],
["AN", 7, 7, "vectorize"], ["FU", 7, [0, 1, 2]], ["AN", 7, 0, "parallel"]])"));
  // LLVM's tuning for Zen 4 (the machine it ran on) rewrites the addresses;
  // for x86-64-v4 it happens to keep them apart.
  const target::Target zen4 = backend::resolve_target("llvm -mcpu=znver4");
  const std::string text = codegen::emit_llvm_ir(lower::lower(schedule::replay(dag, steps), "conv", zen4), zen4);
  check_reduction_loops_store_nothing(text);
}

TEST_CASE("allocations above the stack limit live on the heap, pooled for the next call", "[cpu]") {
  runtime::set_num_threads(2);
  runtime::release_idle_scratch();
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
  // Each thread's buffer went back to the pool (one or two blocks, as the
  // threads' iterations overlapped), where a timer can evict it.
  const std::vector<std::span<const std::byte>> idle = runtime::idle_scratch();
  REQUIRE(!idle.empty());
  CHECK(idle.size() <= 4);
  for (std::span<const std::byte> b : idle) CHECK(b.size() >= size_t{n} * 4);
  runtime::release_idle_scratch();
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
