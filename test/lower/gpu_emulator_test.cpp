// The GPU emulator and the GPU lowering passes: GPU schedules lowered for
// cuda compute the reference in the emulator; without the barrier pass the
// emulator reports the race; out-of-range indices, divergent barriers and
// launches beyond the target's limits are reported as such.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "check/reference_check.h"
#include "ir/error.h"
#include "ir/functor.h"
#include "ir/printer.h"
#include "lower/gpu_emulator.h"
#include "lower/launch_dims.h"
#include "lower/lower.h"
#include "ops/registry.h"
#include "support/gpu_schedules.h"
#include "lower_check.h"

namespace tunectl::lower::test {

namespace {

using namespace schedule;

int count_barriers(const ir::Stmt& body) {
  struct Counter : ir::IRVisitor {
    int n = 0;
    void visit_Barrier(const ir::BarrierNode*) override { ++n; }
  } c;
  c.visit(body);
  return c.n;
}

// Elements of every allocation by buffer name, and the shared stores made
// inside a vthread loop.
struct Allocations : ir::IRVisitor {
  std::map<std::string, int64_t> elements;
  int shared_stores_in_vthreads = 0;
  int vthread_depth = 0;
  // Stores, and those inside a vthread loop with every reduce (rk) loop
  // around it, per buffer.
  std::map<std::string, int> stores, stores_in_vthread_in_reduce;
  std::vector<const ir::ForNode*> loops;
  void visit_Allocate(const ir::AllocateNode* op) override {
    elements[op->buffer->name] = op->buffer->num_elements();
    IRVisitor::visit_Allocate(op);
  }
  void visit_For(const ir::ForNode* op) override {
    const bool vthread = op->thread_tag == "vthread";
    loops.push_back(op);
    vthread_depth += vthread;
    IRVisitor::visit_For(op);
    vthread_depth -= vthread;
    loops.pop_back();
  }
  void visit_Store(const ir::StoreNode* op) override {
    ++stores[op->buffer->name];
    bool in_reduce = false, in_vthread = false, reduce_in_vthread = false;
    for (const ir::ForNode* loop : loops) {
      const bool reduce = loop->var.node()->name.starts_with("rk");
      in_reduce = in_reduce || reduce;
      reduce_in_vthread = reduce_in_vthread || (reduce && in_vthread);
      in_vthread = in_vthread || loop->thread_tag == "vthread";
    }
    if (in_reduce && in_vthread && !reduce_in_vthread) ++stores_in_vthread_in_reduce[op->buffer->name];
    if (op->buffer->scope == ir::MemScope::Shared && vthread_depth > 0) ++shared_stores_in_vthreads;
    IRVisitor::visit_Store(op);
  }
};

// What emulating func throws, "" when nothing.
std::string emulator_error(const LoweredFunc& func, const State& s) {
  try {
    emulate_against_reference(func, s);
  } catch (const EmulatorError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("GPU matmul with shared tiles, local accumulators and vthreads computes the reference", "[gpu-emulator]") {
  const target::Target cuda = cuda_target();
  SECTION("divisible tiles") {
    State s = gpu_matmul(32, 32, 24, {2, 4, 2}, {2, 4, 2}, 4);
    LoweredFunc f = lower(s, "mm", cuda);
    const LaunchDims d = launch_dims(f);
    CHECK(d.grid == std::array<int64_t, 3>{4, 1, 1});
    CHECK(d.block == std::array<int64_t, 3>{16, 1, 1});
    // One barrier before the tiles are filled, one before they are read.
    CHECK(count_barriers(f.body) == 2);
    CHECK(emulate_against_reference(f, s) == "");
    // The 2 x 2 vthreads share the block's 16 x 4 tiles, filled once per k
    // step outside every vthread loop; each keeps its own 2 x 2 outputs.
    Allocations a;
    a.visit(f.body);
    CHECK(a.elements["A.shared"] == 16 * 4);
    CHECK(a.elements["B.shared"] == 4 * 16);
    CHECK(a.elements["matmul.local"] == 4 * 2 * 2);
    CHECK(a.shared_stores_in_vthreads == 0);
    // The update's vthread loop sits inside the reduction's inner loop, so
    // each vthread loads its fragments once per step of it.
    CHECK(a.stores["matmul.local"] == 2);  // the initial value and the update
    CHECK(a.stores_in_vthread_in_reduce["matmul.local"] == 1);
  }
  SECTION("non-divisible tiles are guarded") {
    State s = gpu_matmul(20, 12, 10, {1, 4, 2}, {1, 2, 3}, 3);
    CHECK(emulate_against_reference(lower(s, "mm", cuda), s) == "");
  }
  SECTION("more threads than tile elements") {
    State s = gpu_matmul(16, 16, 8, {1, 8, 1}, {1, 8, 1}, 2);
    CHECK(emulate_against_reference(lower(s, "mm", cuda), s) == "");
  }
  SECTION("no shared memory") {
    State s = gpu_matmul(16, 16, 8, {2, 2, 2}, {1, 4, 2}, 4, /*shared=*/false);
    LoweredFunc f = lower(s, "mm", cuda);
    CHECK(count_barriers(f.body) == 0);
    CHECK(emulate_against_reference(f, s) == "");
  }
}

TEST_CASE("an intermediate computed at a thread loop inside vthreads is private to each vthread",
          "[gpu-emulator]") {
  // dense with bias: the matmul (global scope, no cache) computed at the
  // bias stage's thread loop, which 2 x 2 vthreads enclose: each vthread
  // needs its own copy of the thread's matmul tile.
  State s = State::initial(std::make_shared<const te::ComputeDAG>(
      ops::make_op_dag("dense", {{"M", 16}, {"K", 8}, {"N", 16}})));
  const int out = stage_named(s, "dense");
  s.apply(SplitStep{out, 0, 16, {2, 4, 2}});
  s.apply(SplitStep{out, 4, 16, {2, 4, 2}});
  s.apply(ReorderStep{out, {0, 4, 1, 5, 2, 6, 3, 7}});
  s.apply(FuseStep{out, {0, 1}});
  s.apply(FuseStep{out, {1, 2}});
  s.apply(FuseStep{out, {2, 3}});
  s.apply(AnnotationStep{out, 0, "blockIdx.x"});
  s.apply(AnnotationStep{out, 1, "vthread"});
  s.apply(AnnotationStep{out, 2, "threadIdx.x"});
  s.apply(ComputeAtStep{stage_named(s, "dense_matmul"), out, 2});
  LoweredFunc f = lower(s, "dense", cuda_target());
  Allocations a;
  a.visit(f.body);
  CHECK(a.elements["dense_matmul"] == 4 * 2 * 2);
  CHECK(emulate_against_reference(f, s) == "");
}

TEST_CASE("a sample of the grid: the first, the last and evenly spaced blocks, checked where they wrote",
          "[gpu-emulator]") {
  // 64 x 64 outputs in 16 blocks of 4 x 4 output tiles of 16 x 16.
  State s = gpu_matmul(64, 64, 16, {1, 4, 4}, {1, 4, 4}, 4);
  LoweredFunc f = lower(s, "mm", cuda_target());
  REQUIRE(launch_dims(f).grid[0] == 16);
  std::vector<runtime::NDArray> in = check::check_inputs(*s.dag, 1);
  std::vector<runtime::NDArray> out = check::poisoned_outputs(*s.dag);
  emulate_gpu_blocks(f, {&in[0], &in[1], &out[0]}, 3);
  // Blocks 0, 7 and 15 of the 4 x 4 grid of tiles (block = row tile * 4 +
  // column tile): their 3 x 256 elements are written, nothing else.
  int64_t written = 0;
  for (int64_t i = 0; i < out[0].num_elements(); ++i) written += !std::isnan(out[0].get(i));
  CHECK(written == 3 * 16 * 16);
  CHECK(!std::isnan(out[0].get(0)));            // block 0
  CHECK(!std::isnan(out[0].get(16 * 64 + 48))); // block 7: rows 16.., columns 48..
  CHECK(!std::isnan(out[0].get(64 * 64 - 1)));  // block 15
  CHECK(std::isnan(out[0].get(16)));            // block 1 did not run

  auto partial = [&](bool corrupt) {
    return [&f, corrupt](const std::vector<runtime::NDArray*>& args) {
      emulate_gpu_blocks(f, args, 3);
      if (corrupt) args.back()->set(64 * 64 - 1, args.back()->get(64 * 64 - 1) + 1);
    };
  };
  CHECK(check::check_against_reference(*s.dag, partial(false), 1, {}, true).ok);
  CHECK_FALSE(check::check_against_reference(*s.dag, partial(true), 1, {}, true).ok);
  const auto nothing = [](const std::vector<runtime::NDArray*>&) {};
  CHECK_FALSE(check::check_against_reference(*s.dag, nothing, 1, {}, true).ok);
}

TEST_CASE("the race detector reports a missing barrier", "[gpu-emulator]") {
  State s = gpu_matmul(32, 32, 24, {2, 4, 2}, {2, 4, 2}, 4);
  // The CPU's passes place no barriers: the same program, unsynchronized.
  LoweredFunc f = lower(s, "mm", target::Target{});
  REQUIRE(count_barriers(f.body) == 0);
  const std::string error = emulator_error(f, s);
  CHECK_THAT(error, Catch::Contains("race on shared buffer A.shared") || Catch::Contains("race on shared buffer B.shared"));
  CHECK_THAT(error, Catch::Contains("with no barrier between"));
  CHECK_THAT(error, Catch::Contains("block (0,0,0)"));
}

namespace {

// for b bound blockIdx.x (2): for t bound threadIdx.x (4): body(b, t)
LoweredFunc two_by_four(const ir::Buffer& out, const std::function<ir::Stmt(ir::Var, ir::Var)>& body) {
  ir::Var b("b"), t("t");
  LoweredFunc f;
  f.name = "k";
  f.args = {out};
  f.body = ir::make_for(b, ir::make_int(0), ir::make_int(2), ir::ForKind::ThreadBinding,
                        ir::make_for(t, ir::make_int(0), ir::make_int(4), ir::ForKind::ThreadBinding, body(b, t),
                                     "threadIdx.x"),
                        "blockIdx.x");
  return f;
}

}  // namespace

TEST_CASE("the emulator reports out-of-range indices, divergent barriers and write races", "[gpu-emulator]") {
  ir::Buffer out("out", ir::DType::Float32, {8});
  runtime::NDArray arr(ir::DType::Float32, {8});
  using ir::make_int;
  SECTION("a correct kernel writes every element once") {
    LoweredFunc f = two_by_four(out, [&](ir::Var b, ir::Var t) {
      return ir::make_store(out, {b * make_int(4) + t}, ir::make_cast(ir::DType::Float32, b * make_int(4) + t));
    });
    CHECK(emulate_error(f, arr) == "");
    for (int64_t i = 0; i < 8; ++i) CHECK(arr.get(i) == static_cast<double>(i));
  }
  SECTION("out of range") {
    LoweredFunc f = two_by_four(out, [&](ir::Var b, ir::Var t) {
      return ir::make_store(out, {b * make_int(4) + t + make_int(1)}, ir::make_float(1.0f));
    });
    const std::string e = emulate_error(f, arr);
    CHECK_THAT(e, Catch::Contains("block (1,0,0) thread (3,0,0)"));
    CHECK_THAT(e, Catch::Contains("index 8 out of range of buffer out"));
  }
  SECTION("a barrier only some threads reach") {
    LoweredFunc f = two_by_four(out, [&](ir::Var b, ir::Var t) {
      return ir::make_if(t < make_int(2), ir::make_barrier());
    });
    CHECK_THAT(emulate_error(f, arr), Catch::Contains("a barrier that not every thread reaches"));
  }
  SECTION("two threads write different values to one shared element") {
    ir::Buffer tile("tile", ir::DType::Float32, {4}, ir::MemScope::Shared);
    LoweredFunc f = two_by_four(out, [&](ir::Var b, ir::Var t) {
      ir::Stmt fill = ir::make_store(tile, {ir::make_floordiv(t, make_int(2))}, ir::make_cast(ir::DType::Float32, t));
      return ir::make_allocate(tile, ir::make_seq({fill, ir::make_barrier(),
                                                   ir::make_store(out, {b * make_int(4) + t}, ir::make_load(tile, {t}))}));
    });
    CHECK_THAT(emulate_error(f, arr), Catch::Contains("race on shared buffer tile[0]: written by thread (0,0,0) and "
                                                      "written by thread (1,0,0)"));
  }
}

namespace {

std::shared_ptr<const te::ComputeDAG> op_dag_for_relu(int64_t rows) {
  return std::make_shared<const te::ComputeDAG>(ops::make_op_dag("relu", {{"shape", {rows, 2}}}));
}

}  // namespace

TEST_CASE("launches beyond the target's limits are refused when lowering", "[gpu-emulator]") {
  const target::Target cuda = cuda_target("sm_80");
  SECTION("threads per block") {
    State s = gpu_matmul(64, 64, 8, {1, 32, 1}, {1, 64, 1}, 2, /*shared=*/false);
    CHECK_THROWS_WITH(lower(s, "mm", cuda), Catch::Contains("2048 threads per block") &&
                                                Catch::Contains("more than cuda -arch=sm_80 allows (1024)"));
  }
  SECTION("blocks along y") {
    State s = State::initial(op_dag_for_relu(70000));
    const int relu = stage_named(s, "relu");
    s.apply(AnnotationStep{relu, 0, "blockIdx.y"});
    CHECK_THROWS_WITH(lower(s, "r", cuda), Catch::Contains("70000 blocks along blockIdx.y (at most 65535)"));
  }
  SECTION("shared memory") {
    State s = gpu_matmul(256, 256, 256, {1, 16, 8}, {1, 16, 8}, 64);
    CHECK_THROWS_WITH(lower(s, "mm", cuda), Catch::Contains("bytes of shared memory per block, more than"));
  }
  SECTION("a CPU annotation") {
    State s = gpu_matmul(16, 16, 8, {1, 4, 2}, {1, 4, 2}, 4, /*shared=*/false);
    s.apply(AnnotationStep{stage_named(s, "matmul.local"), 2, "parallel"});
    CHECK_THROWS_WITH(lower(s, "mm", cuda), Catch::Contains("is parallel, a CPU annotation"));
  }
  SECTION("a reduction that every thread would add to") {
    // matmul computed at the root under blocks only, while a cache of A
    // binds threads: each of the 8 threads would add the whole sum.
    State s = State::initial(std::make_shared<const te::ComputeDAG>(ops::make_op_dag("matmul", {{"M", 8}, {"N", 8}, {"K", 8}})));
    s.apply(CacheReadStep{stage_named(s, "A"), "shared", {stage_named(s, "matmul")}});
    const int mm = stage_named(s, "matmul"), cache = stage_named(s, "A.shared");
    s.apply(AnnotationStep{mm, 0, "blockIdx.x"});
    s.apply(ComputeAtStep{cache, mm, 0});
    s.apply(AnnotationStep{cache, 1, "threadIdx.x"});
    CHECK_THROWS_WITH(lower(s, "mm", cuda), Catch::Contains("the update of matmul runs under no loop bound to "
                                                            "threadIdx.x while the launch has 8 along it"));
    // Bound to the threads as well, it is a valid kernel.
    s.apply(AnnotationStep{mm, 1, "threadIdx.x"});
    CHECK_NOTHROW(lower(s, "mm", cuda));
  }
  SECTION("two loops of a stage bound to one index") {
    State s = gpu_matmul(16, 16, 8, {1, 4, 1}, {1, 4, 1}, 4, /*shared=*/false);
    CHECK_THROWS_WITH(s.apply(AnnotationStep{stage_named(s, "matmul"), 3, "threadIdx.x"}),
                      Catch::Contains("of the same stage is bound to it"));
  }
}

}  // namespace tunectl::lower::test
