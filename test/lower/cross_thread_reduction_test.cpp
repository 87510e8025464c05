// Cross-thread reductions (lower/loop_nest.cpp): a reduce loop bound to
// threadIdx.x lowers to per-thread partials combined by an AllReduce, which
// the GPU emulator runs as the CUDA code's shuffles do; the programs compute
// the reference in the emulator and, run serially, in the interpreter; the
// schedules lowering cannot run that way are refused with the reason.
#include <catch2/catch.hpp>

#include <string>

#include "ir/functor.h"
#include "lower/gpu_emulator.h"
#include "lower/launch_dims.h"
#include "lower/lower.h"
#include "support/gpu_schedules.h"
#include "lower_check.h"

namespace tunectl::lower::test {

namespace {

using namespace schedule;

// The all-reduces of a function, by buffer name, and the scope of each
// buffer they combine.
struct AllReduces : ir::IRVisitor {
  std::map<std::string, int> count;
  std::map<std::string, ir::MemScope> scope;
  void visit_AllReduce(const ir::AllReduceNode* op) override {
    ++count[op->buffer->name];
    scope[op->buffer->name] = op->buffer->scope;
  }
};

// Softmax over rows of `row` elements, one block per row: the output's row
// and both reductions (computed at the block loop) split by `threads`, the
// inner part bound to threadIdx.x.
State softmax_by_rows(int64_t rows, int64_t row, int64_t threads) {
  State s = State::initial(op_dag("softmax", {{"shape", {rows, row}}}));
  const int out = stage_named(s, "softmax");
  s.apply(SplitStep{out, 1, row, {threads}, true});
  s.apply(AnnotationStep{out, 0, "blockIdx.x"});
  s.apply(AnnotationStep{out, 2, "threadIdx.x"});
  for (const char* name : {"softmax_expsum", "softmax_max"}) {
    const int i = stage_named(s, name);
    s.apply(ComputeAtStep{i, out, 0});
    s.apply(SplitStep{i, 1, row, {threads}, true});
    s.apply(AnnotationStep{i, 2, "threadIdx.x"});
  }
  return s;
}

// for t bound threadIdx.x (threads): partial[0] = t; body; out[t] = partial[0]
LoweredFunc one_block(const ir::Buffer& out, int64_t threads, const std::function<ir::Stmt(const ir::Buffer&)>& body) {
  ir::Buffer partial("partial", ir::DType::Float32, {1}, ir::MemScope::Local);
  ir::Var t("t"), u("u");
  auto bound = [&](const ir::Var& v, ir::Stmt s) {
    return ir::make_for(v, ir::make_int(0), ir::make_int(threads), ir::ForKind::ThreadBinding, std::move(s), "threadIdx.x");
  };
  LoweredFunc f;
  f.name = "k";
  f.args = {out};
  f.body = ir::make_allocate(
      partial, ir::make_seq({bound(t, ir::make_store(partial, {ir::make_int(0)}, ir::make_cast(ir::DType::Float32, t))),
                             body(partial),
                             bound(u, ir::make_store(out, {u}, ir::make_load(partial, {ir::make_int(0)})))}));
  return f;
}

}  // namespace

TEST_CASE("the emulator's all-reduce leaves every thread with all of the block's values combined", "[gpu-emulator]") {
  for (int64_t threads : {1, 8, 32, 64, 256}) {
    INFO(threads << " threads");
    ir::Buffer out("out", ir::DType::Float32, {threads});
    runtime::NDArray arr(ir::DType::Float32, {threads});
    for (ir::ReduceOp op : {ir::ReduceOp::Sum, ir::ReduceOp::Max, ir::ReduceOp::Min}) {
      LoweredFunc f = one_block(out, threads, [&](const ir::Buffer& partial) {
        return ir::make_all_reduce(op, partial, {ir::make_int(0)});
      });
      REQUIRE(emulate_error(f, arr) == "");
      const double want = op == ir::ReduceOp::Sum ? threads * (threads - 1) / 2.0 : op == ir::ReduceOp::Max ? threads - 1 : 0;
      for (int64_t t = 0; t < threads; ++t) CHECK(arr.get(t) == want);
    }
  }
  SECTION("one that not every thread reaches") {
    ir::Buffer out("out", ir::DType::Float32, {32});
    runtime::NDArray arr(ir::DType::Float32, {32});
    ir::Var v("v");
    // Half the threads wait at a barrier meanwhile.
    LoweredFunc f = one_block(out, 32, [&](const ir::Buffer& partial) {
      return ir::make_seq({ir::make_for(v, ir::make_int(0), ir::make_int(16), ir::ForKind::ThreadBinding,
                                        ir::make_all_reduce(ir::ReduceOp::Sum, partial, {ir::make_int(0)}), "threadIdx.x"),
                           ir::make_barrier()});
    });
    CHECK_THAT(emulate_error(f, arr), Catch::Contains("an all-reduce that 16 of the block's 32 threads do not reach"));
  }
}

TEST_CASE("softmax by rows: the row's threads share its max and sum", "[gpu-emulator]") {
  const target::Target cuda = cuda_target();
  // A warp, part of one, whole warps, and more threads than the row.
  for (int64_t threads : {16, 32, 64, 128}) {
    INFO(threads << " threads per block");
    const State s = softmax_by_rows(3, 100, threads);
    const LoweredFunc f = lower(s, "softmax", cuda);
    CHECK(launch_dims(f).grid == std::array<int64_t, 3>{3, 1, 1});
    CHECK(launch_dims(f).block == std::array<int64_t, 3>{threads, 1, 1});
    AllReduces a;
    a.visit(f.body);
    CHECK(a.count == std::map<std::string, int>{{"softmax_expsum.partial", 1}, {"softmax_max.partial", 1}});
    CHECK(a.scope["softmax_max.partial"] == ir::MemScope::Local);
    CHECK(emulate_against_reference(f, s) == "");
    // Run serially, one thread holds every partial: nothing to combine.
    CHECK(check_against_reference(s) == "");
  }
}

TEST_CASE("a reduction output across threads: several outputs per block, one thread stores each", "[gpu-emulator]") {
  // reduce_sum of 8 rows of 200: blocks of 4 rows, each row's reduction
  // split by 64 threads; the 4 rows' partials inside the reduction's outer
  // loop.
  State s = State::initial(op_dag("reduce_sum", {{"shape", {8, 200}}}));
  s.apply(SplitStep{1, 0, 8, {4}, true});
  s.apply(SplitStep{1, 2, 200, {64}, true});
  s.apply(ReorderStep{1, {0, 2, 1, 3}});
  s.apply(AnnotationStep{1, 0, "blockIdx.x"});
  s.apply(AnnotationStep{1, 3, "threadIdx.x"});
  const LoweredFunc f = lower(s, "rs", cuda_target());
  AllReduces a;
  a.visit(f.body);
  CHECK(a.count == std::map<std::string, int>{{"reduce_sum.partial", 1}});
  CHECK(emulate_against_reference(f, s) == "");
  CHECK(check_against_reference(s) == "");
}

TEST_CASE("schedules a cross-thread reduction cannot run are refused with the reason", "[gpu-emulator]") {
  const target::Target cuda = cuda_target();
  SECTION("a block neither of whole warps nor a power of two") {
    CHECK_THROWS_WITH(lower(softmax_by_rows(3, 100, 48), "softmax", cuda),
                      Catch::Contains("the all-reduce of softmax_max.partial across 48 threads"));
  }
  SECTION("a reduce loop bound to a block index") {
    State s = State::initial(op_dag("reduce_sum", {{"shape", {8, 200}}}));
    CHECK_THROWS_WITH(s.apply(AnnotationStep{1, 1, "blockIdx.x"}),
                      Catch::Contains("cannot bind reduce iterator") &&
                          Catch::Contains("(a reduction across threads binds threadIdx.x)"));
  }
  SECTION("a cross-thread reduction computed inside a thread loop") {
    State s = softmax_by_rows(3, 100, 32);
    const int out = stage_named(s, "softmax");
    s.apply(ComputeAtStep{stage_named(s, "softmax_expsum"), out, 2});
    CHECK_THROWS_WITH(lower(s, "softmax", cuda), Catch::Contains("stage softmax_expsum reduces across threads inside loop") &&
                                                     Catch::Contains("bound to threadIdx.x"));
  }
  SECTION("another loop of the stage bound to a thread index") {
    State s = State::initial(op_dag("reduce_sum", {{"shape", {8, 200}}}));
    s.apply(AnnotationStep{1, 0, "threadIdx.y"});
    s.apply(AnnotationStep{1, 1, "threadIdx.x"});
    CHECK_THROWS_WITH(lower(s, "rs", cuda), Catch::Contains("only one of its reduce loops may be bound to a thread"));
  }
}

}  // namespace tunectl::lower::test
