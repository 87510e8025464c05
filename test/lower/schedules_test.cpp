// Hand-written schedules that exercise one lowering feature each: tiling,
// cache_write + compute_at, attached padding, inlining, rfactor, non-divisible
// splits, fuse and the auto-unroll pragma. Each is checked against te's
// reference evaluator through the interpreter.
#include <catch2/catch.hpp>

#include <map>

#include "ir/functor.h"
#include "ir/printer.h"
#include "lower/lower.h"
#include "lower_check.h"
#include "ops/elemwise.h"
#include "ops/matmul.h"
#include "schedule/steps.h"

namespace tunectl::lower::test {

namespace {

using namespace schedule;

int stage_of(const State& s, const std::string& name) {
  for (size_t i = 0; i < s.stages.size(); ++i)
    if (s.stages[i].op->name == name) return static_cast<int>(i);
  FAIL("no stage named " << name << " in\n" << s.to_string());
  return -1;
}

State matmul_state(int64_t m, int64_t n, int64_t k) {
  return State::initial(op_dag("matmul", {{"M", m}, {"N", n}, {"K", k}}));
}

// Ansor's SSRSRS-like tiling of the matmul stage: i and j in three levels,
// k in two, the innermost j vectorized and the outermost i parallel.
void tile_matmul(State& s, int st, int64_t m, int64_t n, int64_t k) {
  s.apply(SplitStep{st, 0, m, {2, 2}});  // i.0 i.1 i.2 j k
  s.apply(SplitStep{st, 3, n, {2, 3}});  // i.0 i.1 i.2 j.0 j.1 j.2 k
  s.apply(SplitStep{st, 6, k, {4}});     // ... k.0 k.1
  s.apply(ReorderStep{st, {0, 3, 1, 4, 6, 7, 2, 5}});  // i.0 j.0 i.1 j.1 k.0 k.1 i.2 j.2
  s.apply(AnnotationStep{st, 0, "parallel"});
  s.apply(AnnotationStep{st, 7, "vectorize"});
}

struct Counts {
  int loops = 0, ifs = 0, allocs = 0;
};

Counts count(const ir::Stmt& s) {
  struct Counter : ir::IRVisitor {
    Counts c;
    void visit_For(const ir::ForNode* op) override {
      ++c.loops;
      IRVisitor::visit_For(op);
    }
    void visit_IfThenElse(const ir::IfThenElseNode* op) override {
      ++c.ifs;
      IRVisitor::visit_IfThenElse(op);
    }
    void visit_Allocate(const ir::AllocateNode* op) override {
      ++c.allocs;
      IRVisitor::visit_Allocate(op);
    }
  } counter;
  counter.visit(s);
  return counter.c;
}

}  // namespace

TEST_CASE("tiled matmul SSRSRS", "[cpu]") {
  State s = matmul_state(12, 18, 8);
  tile_matmul(s, stage_of(s, "matmul"), 12, 18, 8);
  CHECK(check_against_reference(s) == "");
  // Divisible tiles need no guards.
  CHECK(count(lower(s, "f").body).ifs == 0);
}

TEST_CASE("tiled matmul with non-divisible splits is guarded", "[cpu]") {
  State s = matmul_state(7, 11, 9);
  tile_matmul(s, stage_of(s, "matmul"), 7, 11, 9);
  CHECK(check_against_reference(s) == "");
  CHECK(count(lower(s, "f").body).ifs > 0);
}

TEST_CASE("cache_write then compute_at the copy's tile loop", "[cpu]") {
  for (int64_t m : {8, 7}) {
    INFO("M = " << m);
    State s = matmul_state(m, 8, 5);
    int mm = stage_of(s, "matmul");
    s.apply(CacheWriteStep{mm, "local"});
    int local = mm, out = mm + 1;
    s.apply(SplitStep{out, 0, m, {4}});
    s.apply(SplitStep{out, 2, 8, {4}});
    s.apply(ReorderStep{out, {0, 2, 1, 3}});  // i.0 j.0 i.1 j.1
    s.apply(ComputeAtStep{local, out, 1});
    CHECK(check_against_reference(s) == "");
    ir::Stmt body = lower(s, "f").body;
    // The cache stage's buffer is one 4x4 tile, allocated inside j.0.
    bool tile = false;
    struct Finder : ir::IRVisitor {
      bool* found;
      void visit_Allocate(const ir::AllocateNode* op) override {
        if (op->buffer->shape == std::vector<int64_t>{4, 4}) *found = true;
        IRVisitor::visit_Allocate(op);
      }
    } finder;
    finder.found = &tile;
    finder.visit(body);
    CHECK(tile);
  }
}

TEST_CASE("a split's inner parts shrink to the region a stage computes at its attach point", "[cpu]") {
  // The local stage's i splits 16 as 2 x 2 x 4 but is computed inside the
  // copy's i.0 loop, where it covers 4 rows: its i.0 and i.1 run once (as
  // TVM's InferBound tightens them), so no row is visited twice or guarded.
  State s = matmul_state(16, 4, 4);
  const int mm = stage_of(s, "matmul");
  s.apply(CacheWriteStep{mm, "local"});
  const int local = mm, out = mm + 1;
  s.apply(SplitStep{out, 0, 16, {4}});
  s.apply(SplitStep{local, 0, 16, {2, 4}});
  s.apply(ComputeAtStep{local, out, 0});
  CHECK(check_against_reference(s) == "");
  const ir::Stmt body = lower(s, "f").body;
  // Loops: the copy's i.0, i.1, j; the local stage's i.2 (4), j, k.
  CHECK(count(body).loops == 6);
  CHECK(count(body).ifs == 0);
}

TEST_CASE("conv2d padding computed inside the output loops", "[cpu]") {
  auto dag = op_dag("conv2d", {{"N", 1}, {"C", 3}, {"H", 7}, {"W", 6}, {"K", 4}, {"R", 3}, {"S", 3}, {"pad", 1}});
  State s = State::initial(dag);
  int conv = stage_of(s, "conv2d"), pad = stage_of(s, "conv2d_pad");
  // Output rows in pairs (7 does not divide: the last pair is half empty).
  s.apply(SplitStep{conv, 2, 7, {2}});  // n k oh.0 oh.1 ow rc rr rs
  SECTION("at the row-pair loop") { s.apply(ComputeAtStep{pad, conv, 2}); }
  SECTION("at the innermost output loop") { s.apply(ComputeAtStep{pad, conv, 4}); }
  CHECK(check_against_reference(s) == "");
}

TEST_CASE("inlining relu and padding", "[cpu]") {
  SECTION("relu into matmul") {
    te::Tensor x = te::placeholder("x", {5, 6});
    te::Tensor w = te::placeholder("w", {6, 7});
    te::Tensor out = ops::matmul(ops::relu(x), w);
    State s = State::initial(std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{out}));
    s.apply(ComputeInlineStep{stage_of(s, "relu")});
    CHECK(check_against_reference(s) == "");
  }
  SECTION("padding into conv2d") {
    State s = State::initial(
        op_dag("conv2d", {{"N", 1}, {"C", 2}, {"H", 6}, {"W", 5}, {"K", 3}, {"R", 3}, {"S", 3}, {"pad", 1}}));
    s.apply(ComputeInlineStep{stage_of(s, "conv2d_pad")});
    CHECK(check_against_reference(s) == "");
    CHECK(count(lower(s, "f").body).allocs == 0);
  }
}

TEST_CASE("rfactor of a split reduction", "[cpu]") {
  State s = State::initial(op_dag("reduce_sum", {{"shape", {6, 20}}, {"axes", {-1}}}));
  int r = static_cast<int>(s.stages.size()) - 1;
  s.apply(SplitStep{r, 1, 20, {4}});  // i k.0 k.1
  SECTION("factor the inner part") { s.apply(RfactorStep{r, 2, 0}); }
  SECTION("factor the outer part") { s.apply(RfactorStep{r, 1, 1}); }
  CHECK(check_against_reference(s) == "");
}

TEST_CASE("fuse then split a fused loop", "[cpu]") {
  State s = State::initial(op_dag("relu", {{"shape", {3, 5, 7}}}));
  int r = static_cast<int>(s.stages.size()) - 1;
  s.apply(FuseStep{r, {0, 1, 2}});  // 105 points
  s.apply(SplitStep{r, 0, 105, {8}});
  s.apply(AnnotationStep{r, 0, "parallel"});
  s.apply(AnnotationStep{r, 1, "vectorize"});
  CHECK(check_against_reference(s) == "");
}

TEST_CASE("fuse of non-divisible tiles in a matmul", "[cpu]") {
  State s = matmul_state(7, 10, 6);
  int mm = stage_of(s, "matmul");
  s.apply(SplitStep{mm, 0, 7, {3}});          // i.0 i.1 j k
  s.apply(SplitStep{mm, 2, 10, {4}});         // i.0 i.1 j.0 j.1 k
  s.apply(ReorderStep{mm, {0, 2, 4, 1, 3}});  // i.0 j.0 k i.1 j.1
  s.apply(FuseStep{mm, {0, 1}});              // i.0@j.0 k i.1 j.1
  s.apply(AnnotationStep{mm, 0, "parallel"});
  CHECK(check_against_reference(s) == "");
}

TEST_CASE("auto_unroll_max_step unrolls small inner loops", "[cpu]") {
  State s = matmul_state(8, 8, 8);
  int mm = stage_of(s, "matmul");
  s.apply(SplitStep{mm, 0, 8, {2}});
  s.apply(SplitStep{mm, 2, 8, {4}});  // i.0 i.1 j.0 j.1 k
  s.apply(ReorderStep{mm, {0, 2, 4, 1, 3}});  // i.0 j.0 k i.1 j.1
  s.apply(PragmaStep{mm, 0, "auto_unroll_max_step$8"});
  CHECK(check_against_reference(s) == "");
  struct Kinds : ir::IRVisitor {
    int unrolled = 0, serial = 0;
    void visit_For(const ir::ForNode* op) override {
      if (op->for_kind == ir::ForKind::Unrolled) ++unrolled;
      if (op->for_kind == ir::ForKind::Serial) ++serial;
      IRVisitor::visit_For(op);
    }
  } kinds;
  kinds.visit(lower(s, "f").body);
  // i.1 and j.1 (2 x 4 = 8) in the init and the update nest, and in the
  // copies of the update's tile around k (promote_accumulators.h).
  CHECK(kinds.unrolled == 8);
  CHECK(kinds.serial == 3);
}

TEST_CASE("an auto-unrolled loop around another stage counts that stage's statements too", "[cpu]") {
  // An 8 x 8 matmul copied out of a local 4 x 4 tile computed inside the
  // copy's j.0; both stages unroll up to 512 steps. The copy's own loops
  // make 2 x 2 x 4 x 4 = 64 steps, but each j.0 replicates the tile's
  // 16 x (1 + K) init and update statements and its 16 copies as well
  // (without the tile counted, 14,000 statements of a convolution went to
  // LLVM in one basic block).
  for (int64_t k : {4, 16}) {
    INFO("K = " << k);
    State s = matmul_state(8, 8, k);
    const int mm = stage_of(s, "matmul");
    s.apply(CacheWriteStep{mm, "local"});
    const int local = mm, out = mm + 1;
    s.apply(SplitStep{out, 0, 8, {4}});
    s.apply(SplitStep{out, 2, 8, {4}});
    s.apply(ReorderStep{out, {0, 2, 1, 3}});  // i.0 j.0 i.1 j.1
    s.apply(ComputeAtStep{local, out, 1});
    s.apply(PragmaStep{out, 0, "auto_unroll_max_step$512"});
    s.apply(PragmaStep{local, 0, "auto_unroll_max_step$512"});
    CHECK(check_against_reference(s) == "");
    struct Kinds : ir::IRVisitor {
      std::map<std::string, ir::ForKind> of;
      void visit_For(const ir::ForNode* op) override {
        of.emplace(op->var.name(), op->for_kind);
        IRVisitor::visit_For(op);
      }
    } kinds;
    const ir::Stmt body = lower(s, "f").body;
    kinds.visit(body);
    INFO(ir::to_string(body));
    // K = 4: 2 x 2 x (16 x 5 + 16) = 384 statements fit; K = 16: j.0 alone
    // makes 2 x (16 x 17 + 16) = 576, so i.0 and j.0 stay loops.
    const ir::ForKind outer = k == 4 ? ir::ForKind::Unrolled : ir::ForKind::Serial;
    CHECK(kinds.of.at("matmul_i0.0") == outer);
    CHECK(kinds.of.at("matmul_i1.0") == outer);
    CHECK(kinds.of.at("matmul_i0.1") == ir::ForKind::Unrolled);
    CHECK(kinds.of.at("rk") == ir::ForKind::Unrolled);
  }
}

TEST_CASE("a cache read whose region starts at a gathered index, computed inside its reader", "[cpu]") {
  // The updates' cache read starts at a row loaded from scatter_elements_last,
  // which is itself computed at the same loop into a one-element buffer: the
  // read's guard must load that buffer, not the stage's whole-tensor buffer
  // (found by the random-schedule property test).
  State s = State::initial(op_dag("scatter_elements", {{"indices_shape", {3, 4}}, {"shape", {6, 5}}}));
  for (const Step& step : steps_from_json(nlohmann::json::parse(R"([["AN",4,1,"vectorize"],["CA",1,4,0],
      ["FU",4,[0,1]],["CHR",2,"local",[4]],["RE",5,[0]],["CA",3,5,0],["CA",3,5,0],["CHW",1,"local"],
      ["SP",6,0,30,[3,2],true],["FU",4,[0,1]]])")))
    s.apply(step);
  CHECK(check_against_reference(s) == "");
  CHECK(check_against_reference(s, 7) == "");
}

TEST_CASE("a gathered region under a non-dividing split loads its index inside the index buffer", "[cpu]") {
  // The data's cache read starts at a row loaded from `indices`; the reader's
  // fused loop (42) split as 3 x 14 and then 3 as 2 x 2 runs past the 7 index
  // rows, where the load must stay inside `indices` (random-schedule property
  // test, --rng-seed 10).
  State s = State::initial(op_dag("gather_nd", {{"data_shape", {4, 5, 6}}, {"indices_shape", {7, 2}}}));
  for (const Step& step : steps_from_json(nlohmann::json::parse(R"([["FU",2,[0,1]],["CHR",0,"local",[2]],["CR",1],
      ["RE",3,[0]],["CA",1,3,0],["SP",3,0,42,[3,14],true],["SO",1,[1,0,2]],["SP",1,0,4,[1,4,1],true],
      ["SP",3,1,3,[3],true],["SP",3,2,3,[2,1],true],["SP",1,3,1,[1,1],true]])")))
    s.apply(step);
  CHECK(check_against_reference(s) == "");
  CHECK(check_against_reference(s, 22) == "");
}

}  // namespace tunectl::lower::test
