// The effect of each step on small DAGs.
#include <catch2/catch.hpp>

#include "ir/error.h"
#include "schedule/state.h"
#include "schedule_test_util.h"

using namespace tunectl;
using namespace tunectl::schedule;
using namespace tunectl::schedule::testing;

namespace {

std::vector<std::string> leaf_names(const Stage& st) {
  std::vector<std::string> out;
  for (int id : st.leaves) out.push_back(st.iters[id].name);
  return out;
}

}  // namespace

TEST_CASE("initial state has one stage per op with root iterators", "[unit]") {
  State s = State::initial(matmul_dag());
  REQUIRE(s.stages.size() == 3);
  CHECK(s.stages[0].op->name == "A");
  CHECK(s.stages[0].iters.empty());
  CHECK(s.stages[0].num_root_iters() == 0);
  const Stage& c = s.stages[2];
  CHECK(c.num_root_iters() == 3);
  CHECK(leaf_names(c) == std::vector<std::string>{"C_i0", "C_i1", "k"});
  CHECK(c.iters[2].kind == ir::IterKind::Reduce);
  CHECK(c.iters[0].extent == 24);
  CHECK(c.leaf_position(1) == 1);
  CHECK(c.attach.kind == AttachKind::Root);
  CHECK(s.history.empty());
}

TEST_CASE("split makes nested loops and records the relation", "[unit]") {
  State s = State::initial(matmul_dag());
  s.apply(SplitStep{2, 1, 20, {3}, true});
  const Stage& c = s.stages[2];
  CHECK(leaf_names(c) == std::vector<std::string>{"C_i0", "C_i1.0", "C_i1.1", "k"});
  CHECK(c.leaf(1).extent == 7);  // ceil(20 / 3): a non-dividing split
  CHECK(c.leaf(2).extent == 3);
  REQUIRE(c.relations.size() == 1);
  const auto& rel = std::get<SplitRelation>(c.relations[0]);
  CHECK(rel.parent == 1);
  CHECK(rel.children == std::vector<int>{3, 4});
  CHECK(c.leaf_position(1) == -1);
  CHECK(s.history.size() == 1);

  s.apply(SplitStep{2, 3, 18, {2, 3}, true});
  CHECK(leaf_names(s.stages[2]) == std::vector<std::string>{"C_i0", "C_i1.0", "C_i1.1", "k.0", "k.1", "k.2"});
  CHECK(s.stages[2].leaf(3).extent == 3);
  CHECK(s.stages[2].leaf(4).kind == ir::IterKind::Reduce);
}

TEST_CASE("follow_split takes lengths from an earlier split", "[unit]") {
  State s = State::initial(matmul_dag());
  s.apply(SplitStep{2, 0, 24, {2, 3}, true});  // C_i0 -> 4 x 2 x 3
  SECTION("all parts") {
    s.apply(FollowSplitStep{2, 3, 0, 3});  // C_i1 by lengths {2, 3, 1}
    const Stage& c = s.stages[2];
    CHECK(leaf_names(c)[3] == "C_i1.0");
    CHECK(c.leaf(3).extent == 4);  // ceil(20 / 6)
    CHECK(c.leaf(4).extent == 2);
    CHECK(c.leaf(5).extent == 3);
    CHECK(c.leaf(6).extent == 1);
  }
  SECTION("the innermost part absorbs the rest") {
    s.apply(FollowSplitStep{2, 3, 0, 1});  // C_i1 by {6}
    const Stage& c = s.stages[2];
    CHECK(c.leaves.size() == 6);
    CHECK(c.leaf(3).extent == 4);
    CHECK(c.leaf(4).extent == 6);
  }
}

TEST_CASE("follow_fused_split takes the product of several splits at one level", "[unit]") {
  State s = State::initial(matmul_dag());
  s.apply(SplitStep{2, 0, 24, {2, 3}, true});  // C_i0 -> 4 x 2 x 3
  s.apply(SplitStep{2, 3, 20, {5, 2}, true});  // C_i1 -> 2 x 5 x 2
  s.apply(FuseStep{2, {0, 1, 2}});             // 24
  SECTION("as the inner loop (factor)") {
    s.apply(FollowFusedSplitStep{2, 0, {0, 1}, 0, true});  // by 2 x 5 = 10
    CHECK(s.stages[2].leaf(0).extent == 3);                // ceil(24 / 10)
    CHECK(s.stages[2].leaf(1).extent == 10);
  }
  SECTION("as the outer loop (nparts)") {
    s.apply(FollowFusedSplitStep{2, 0, {0, 1}, 1, false});  // 3 x 2 = 6 parts
    CHECK(s.stages[2].leaf(0).extent == 6);
    CHECK(s.stages[2].leaf(1).extent == 4);
  }
  SECTION("it follows when a source split changes") {
    s.history[0] = SplitStep{2, 0, 24, {4, 3}, true};
    s.history.push_back(FollowFusedSplitStep{2, 0, {0, 1}, 0, true});
    State r = replay(s.dag, s.history);
    CHECK(r.stages[2].leaf(1).extent == 20);  // 4 x 5
  }
}

TEST_CASE("reorder permutes the loop nest", "[unit]") {
  State s = State::initial(matmul_dag());
  s.apply(ReorderStep{2, {2, 0, 1}});
  CHECK(leaf_names(s.stages[2]) == std::vector<std::string>{"k", "C_i0", "C_i1"});
}

TEST_CASE("fuse joins consecutive loops", "[unit]") {
  State s = State::initial(matmul_dag());
  s.apply(FuseStep{2, {0, 1}});
  const Stage& c = s.stages[2];
  CHECK(leaf_names(c) == std::vector<std::string>{"C_i0@C_i1@", "k"});
  CHECK(c.leaf(0).extent == 24 * 20);
  CHECK(c.leaf(0).kind == ir::IterKind::Spatial);
  const auto& rel = std::get<FuseRelation>(c.relations.at(0));
  CHECK(rel.parents == std::vector<int>{0, 1});
  CHECK(rel.child == 3);
}

TEST_CASE("annotation and pragma label loops and stages", "[unit]") {
  State s = State::initial(matmul_dag());
  s.apply(SplitStep{2, 1, 20, {4}, true});
  s.apply(ReorderStep{2, {0, 1, 3, 2}});
  s.apply(AnnotationStep{2, 0, "parallel"});
  s.apply(AnnotationStep{2, 3, "vectorize"});
  s.apply(AnnotationStep{2, 2, "unroll"});
  s.apply(PragmaStep{2, 0, "auto_unroll_max_step$64"});
  const Stage& c = s.stages[2];
  CHECK(c.leaf(0).annotation == IterAnnotation::Parallel);
  CHECK(c.leaf(3).annotation == IterAnnotation::Vectorize);
  CHECK(c.leaf(2).annotation == IterAnnotation::Unroll);
  CHECK(c.auto_unroll_max_step == 64);
  std::string text = s.to_string();
  CHECK(text ==
        "Placeholder: A, B\n"
        "C auto_unroll: 64\n"
        "parallel C_i0 (0,24)\n"
        "  for C_i1.0 (0,5)\n"
        "    unroll k (0,18)\n"
        "      vectorize C_i1.1 (0,4)\n"
        "        C = Sum(...)\n");
}

TEST_CASE("compute_at attaches a stage and follows splits and fuses of the target loop", "[unit]") {
  State s = State::initial(matmul_relu_dag());
  int mm = stage_index(s, "mm"), out = stage_index(s, "out");
  REQUIRE(mm >= 0);
  s.apply(ComputeAtStep{mm, out, 0});
  CHECK(s.stages[mm].attach.kind == AttachKind::Iter);
  CHECK(s.stages[mm].attach.target_stage == out);
  CHECK(s.stages[mm].attach.target_iter == s.stages[out].leaves[0]);

  s.apply(SplitStep{out, 0, 16, {4}, true});
  CHECK(s.stages[mm].attach.target_iter == s.stages[out].leaves[1]);  // innermost child
  s.apply(FuseStep{out, {1, 2}});
  CHECK(s.stages[mm].attach.target_iter == s.stages[out].leaves[1]);  // the fused loop
  CHECK(s.to_string() ==
        "Placeholder: A, B\n"
        "for out_i0.0 (0,4)\n"
        "  for out_i0.1@out_i1@ (0,40)\n"
        "    for mm_i0 (0,16)\n"
        "      for mm_i1 (0,10)\n"
        "        for rk (0,12)\n"
        "          mm = Sum(...)\n"
        "    out = ...\n");

  s.apply(ComputeRootStep{mm});
  CHECK(s.stages[mm].attach.kind == AttachKind::Root);
}

TEST_CASE("compute_inline marks a stage inlined", "[unit]") {
  State s = State::initial(conv_relu_dag());
  int pad = stage_index(s, "conv_pad");
  REQUIRE(pad >= 0);
  s.apply(ComputeInlineStep{pad});
  CHECK(s.stages[pad].attach.kind == AttachKind::Inline);
  CHECK(s.to_string().find("conv_pad = inline\n") != std::string::npos);
  s.apply(ComputeRootStep{pad});
  CHECK(s.stages[pad].attach.kind == AttachKind::Root);
}

TEST_CASE("cache_write inserts a local stage and turns the stage into a copy", "[unit]") {
  State s = State::initial(matmul_dag());
  s.apply(SplitStep{2, 0, 24, {4}, true});
  s.apply(CacheWriteStep{2, "local"});
  REQUIRE(s.stages.size() == 4);
  const Stage& local = s.stages[2];
  const Stage& copy = s.stages[3];
  CHECK(local.op->name == "C.local");
  CHECK(local.op->buffer->scope == ir::MemScope::Local);
  CHECK(local.op->reduce() != nullptr);
  CHECK(leaf_names(local) == std::vector<std::string>{"C_i0", "C_i1", "k"});
  CHECK(copy.op->name == "C");
  CHECK(copy.op->tag == "cache_copy");
  CHECK(copy.op->buffer.same_as(s.dag->outputs()[0]->buffer));
  CHECK(copy.op->inputs.size() == 1);
  CHECK(copy.op->inputs[0] == local.op);
  // The copy starts over with fresh loops.
  CHECK(leaf_names(copy) == std::vector<std::string>{"C_i0", "C_i1"});
  CHECK(copy.relations.empty());
  CHECK(max_output_error(s) < 1e-5);
  // The local stage can be attached inside the copy.
  s.apply(ComputeAtStep{2, 3, 1});
  CHECK(max_output_error(s) < 1e-5);
}

TEST_CASE("cache_read inserts a copy stage for the chosen readers", "[unit]") {
  State s = State::initial(matmul_relu_dag());
  int mm = stage_index(s, "mm"), out = stage_index(s, "out");
  s.apply(ComputeAtStep{mm, out, 1});
  int a = stage_index(s, "A");
  s.apply(CacheReadStep{a, "shared", {mm}});
  REQUIRE(s.stages.size() == 5);
  CHECK(s.stages[a + 1].op->name == "A.shared");
  CHECK(s.stages[a + 1].op->buffer->scope == ir::MemScope::Shared);
  int mm2 = stage_index(s, "mm"), out2 = stage_index(s, "out");
  CHECK(mm2 == mm + 1);
  CHECK(s.stages[mm2].op->inputs[0] == s.stages[a + 1].op);
  // Attach targets shifted with the inserted stage.
  CHECK(s.stages[mm2].attach.target_stage == out2);
  CHECK(max_output_error(s) < 1e-5);
  // A second cache of the same stage and scope gets its own name.
  s.apply(CacheReadStep{a, "shared", {a + 1}});
  CHECK(s.stages[a + 1].op->name == "A.shared_1");
  CHECK(s.stages[a + 2].op->inputs[0] == s.stages[a + 1].op);
  CHECK(max_output_error(s) < 1e-5);
}

TEST_CASE("rfactor splits a reduction into partial results", "[unit]") {
  State s = State::initial(matmul_dag());
  SECTION("over an inner part of a non-dividing split") {
    s.apply(SplitStep{2, 2, 18, {4}, true});  // k -> k.0 (5) x k.1 (4): 20 > 18 guarded
    s.apply(RfactorStep{2, 3, 1});
    REQUIRE(s.stages.size() == 4);
    const Stage& rf = s.stages[2];
    CHECK(rf.op->name == "C.rf");
    CHECK(rf.op->shape() == std::vector<int64_t>{24, 4, 20});
    CHECK(leaf_names(rf) == std::vector<std::string>{"C_i0", "k.1", "C_i1", "k.0"});
    CHECK(rf.iters[1].kind == ir::IterKind::Spatial);
    const Stage& c = s.stages[3];
    CHECK(leaf_names(c) == std::vector<std::string>{"C_i0", "C_i1", "k.1.v"});
    CHECK(c.op->buffer.same_as(s.dag->outputs()[0]->buffer));
    CHECK(max_output_error(s) < 1e-4);
    // The factored loop is spatial now: it may be parallel.
    s.apply(AnnotationStep{2, 1, "parallel"});
  }
  SECTION("over the only reduce loop") {
    s.apply(RfactorStep{2, 2, 2});
    CHECK(s.stages[2].op->shape() == std::vector<int64_t>{24, 20, 18});
    CHECK(s.stages[2].op->reduce() == nullptr);
    CHECK(max_output_error(s) < 1e-4);
  }
  SECTION("over a fused reduce loop of a conv") {
    State c = State::initial(conv_relu_dag());
    int conv = stage_index(c, "conv");
    c.apply(FuseStep{conv, {5, 6}});  // ry@rx
    c.apply(SplitStep{conv, 5, 9, {2}, true});
    c.apply(RfactorStep{conv, 5, 0});
    CHECK(c.stages[conv].op->shape() == std::vector<int64_t>{5, 1, 4, 7, 7});
    CHECK(max_output_error(c) < 1e-4);
  }
}

TEST_CASE("steps on softmax keep its outputs", "[unit]") {
  State s = State::initial(softmax_dag());
  int mx = stage_index(s, "softmax_max"), sum = stage_index(s, "softmax_expsum");
  s.apply(SplitStep{sum, 1, 13, {4}, true});
  s.apply(RfactorStep{sum, 2, 1});
  s.apply(RfactorStep{mx, 1, 0});
  s.apply(CacheWriteStep{stage_index(s, "softmax"), "local"});
  CHECK(max_output_error(s) < 1e-4);
  CHECK(stage_index(s, "softmax_expsum.rf") >= 0);
  CHECK(stage_index(s, "softmax_max.rf") >= 0);
}
