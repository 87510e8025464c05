// Every invalid step fails with a UserError that names the step, the stage
// and what is wrong, and leaves the state unchanged.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ir/error.h"
#include "schedule/state.h"
#include "schedule_test_util.h"

using namespace tunectl;
using namespace tunectl::schedule;
using namespace tunectl::schedule::testing;
using Catch::Matchers::Contains;

namespace {

// Applies step to s, requiring a UserError whose message contains every
// key, and that s is unchanged afterwards.
void require_rejected(State& s, const Step& step, std::vector<std::string> keys) {
  State before = s;
  try {
    s.apply(step);
    FAIL("step " << step_to_json(step).dump() << " was accepted");
  } catch (const UserError& e) {
    std::string msg = e.what();
    INFO(msg);
    CHECK_THAT(msg, Contains("schedule step " + step_to_json(step).dump()));
    for (const auto& k : keys) CHECK_THAT(msg, Contains(k));
  }
  CHECK(states_equal(before, s));
}

}  // namespace

TEST_CASE("loop step errors", "[unit][error]") {
  State s = State::initial(matmul_dag());
  require_rejected(s, SplitStep{7, 0, 24, {2}, true}, {"stage index 7 is out of range"});
  require_rejected(s, SplitStep{0, 0, 24, {2}, true}, {"stage 0 (A)", "placeholder"});
  require_rejected(s, SplitStep{2, 3, 24, {2}, true}, {"on stage 2 (C)", "iterator position 3 is out of range"});
  require_rejected(s, SplitStep{2, 0, 25, {2}, true}, {"expects extent 25", "extent 24"});
  require_rejected(s, SplitStep{2, 0, 24, {0}, true}, {"non-positive length 0"});
  require_rejected(s, SplitStep{2, 0, 24, {}, true}, {"no lengths"});
  require_rejected(s, SplitStep{2, 0, 24, {2}, false}, {"inner_to_outer"});
  require_rejected(s, FollowSplitStep{2, 0, 0, 1}, {"source step 0 is out of range"});
  s.apply(ReorderStep{2, {0, 1, 2}});
  require_rejected(s, FollowSplitStep{2, 0, 0, 1}, {"is not a split"});
  s.apply(SplitStep{2, 0, 24, {2}, true});
  require_rejected(s, FollowSplitStep{2, 2, 1, 3}, {"n_split 3"});
  require_rejected(s, FollowFusedSplitStep{2, 2, {}, 0, true}, {"no source steps"});
  require_rejected(s, FollowFusedSplitStep{2, 2, {0}, 0, true}, {"source step 0 is not a split"});
  require_rejected(s, FollowFusedSplitStep{2, 2, {1}, 1, true}, {"level 1 is not a level of source step 1"});
  require_rejected(s, ReorderStep{2, {0, 1, 2}}, {"not a permutation"});
  require_rejected(s, ReorderStep{2, {0, 1, 1, 2}}, {"not a permutation"});
  require_rejected(s, FuseStep{2, {0, 2}}, {"non-consecutive"});
  require_rejected(s, FuseStep{2, {2, 3}}, {"spatial with reduce"});
  require_rejected(s, FuseStep{2, {}}, {"no iterators"});
  require_rejected(s, AnnotationStep{2, 3, "parallel"}, {"reduce iterator k", "parallel"});
  require_rejected(s, AnnotationStep{2, 3, "vectorize"}, {"reduce iterator k"});
  require_rejected(s, AnnotationStep{2, 0, "spin"}, {"unknown annotation 'spin'"});
  require_rejected(s, AnnotationStep{1, 0, "parallel"}, {"(B)", "placeholder"});
  require_rejected(s, PragmaStep{2, 0, "unroll$4"}, {"bad pragma syntax"});
  require_rejected(s, PragmaStep{2, 0, "auto_unroll_max_step$x"}, {"bad pragma syntax"});
  require_rejected(s, PragmaStep{2, 0, "auto_unroll_max_step$-1"}, {"bad pragma syntax"});
  require_rejected(s, PragmaStep{2, 9, "auto_unroll_max_step$4"}, {"iterator position 9"});
}

TEST_CASE("attach step errors", "[unit][error]") {
  State s = State::initial(conv_relu_dag());
  int data = stage_index(s, "data"), pad = stage_index(s, "conv_pad"), weight = stage_index(s, "weight");
  int conv = stage_index(s, "conv"), relu = stage_index(s, "relu");
  require_rejected(s, ComputeAtStep{conv, conv, 0}, {"onto itself"});
  require_rejected(s, ComputeAtStep{pad, relu, 0}, {"(conv_pad)", "relu, which does not read conv_pad"});
  require_rejected(s, ComputeAtStep{conv, weight, 0}, {"onto placeholder weight"});
  require_rejected(s, ComputeAtStep{conv, relu, 4}, {"iterator position 4"});
  require_rejected(s, ComputeAtStep{conv, 12, 0}, {"target 12 is out of range"});
  require_rejected(s, ComputeAtStep{data, conv, 0}, {"placeholder"});
  require_rejected(s, ComputeInlineStep{conv}, {"reduction"});
  require_rejected(s, ComputeInlineStep{relu}, {"output"});
  require_rejected(s, ComputeInlineStep{weight}, {"placeholder"});

  s.apply(ComputeAtStep{pad, conv, 3});
  require_rejected(s, ComputeInlineStep{conv}, {"reduction"});
  require_rejected(s, CacheWriteStep{conv, "local"}, {"attached to its loops"});
  require_rejected(s, RfactorStep{conv, 4, 0}, {"attached to its loops"});
  // cache_read of pad for conv leaves conv_pad.local as pad's only reader.
  require_rejected(s, CacheReadStep{pad, "local", {conv}}, {"conv_pad is attached to conv", "neither reads it nor holds every reader"});
  s.apply(ComputeRootStep{pad});

  // An inlined stage has no loops; through it, conv still reads data.
  s.apply(ComputeInlineStep{pad});
  require_rejected(s, ComputeAtStep{conv, pad, 0}, {"inlined"});
  s.apply(ComputeAtStep{conv, relu, 1});
  require_rejected(s, CacheWriteStep{pad, "local"}, {"inlined"});
}

TEST_CASE("compute_at looks through inlined readers", "[unit][error]") {
  State s = State::initial(matmul_relu_dag());
  int a = stage_index(s, "A"), mm = stage_index(s, "mm"), out = stage_index(s, "out");
  s.apply(CacheReadStep{a, "local", {mm}});
  int al = stage_index(s, "A.local");
  mm = stage_index(s, "mm");
  out = stage_index(s, "out");
  require_rejected(s, ComputeAtStep{al, out, 0}, {"does not read A.local"});
  s.apply(CacheWriteStep{mm, "local"});
  int ml = stage_index(s, "mm.local"), copy = stage_index(s, "mm");
  out = stage_index(s, "out");
  // mm.local is read by the copy mm; once mm is inlined, out reads it.
  require_rejected(s, ComputeAtStep{ml, out, 0}, {"does not read mm.local"});
  s.apply(ComputeInlineStep{copy});
  s.apply(ComputeAtStep{ml, out, 1});
  CHECK(s.stages[ml].attach.target_stage == out);
  al = stage_index(s, "A.local");
  s.apply(ComputeAtStep{al, ml, 2});
  CHECK(max_output_error(s) < 1e-5);
}

TEST_CASE("compute_at onto the stage its reader is computed inside, at an enclosing loop", "[unit][error]") {
  State s = State::initial(matmul_relu_dag());
  s.apply(CacheReadStep{stage_index(s, "B"), "local", {stage_index(s, "mm")}});
  const int bl = stage_index(s, "B.local"), mm = stage_index(s, "mm"), out = stage_index(s, "out");
  s.apply(ComputeAtStep{mm, out, 1});
  // A packed copy of B per row of out, shared by the columns computed inside.
  s.apply(ComputeAtStep{bl, out, 0});
  CHECK(max_output_error(s) < 1e-5);
  // mm moved outside the copy's loop would read it before it exists.
  s.apply(ComputeAtStep{bl, out, 1});
  require_rejected(s, ComputeAtStep{mm, out, 0}, {"B.local is attached to out", "nor holds every reader of it inside"});
  require_rejected(s, ComputeRootStep{mm}, {"B.local is attached to out"});
  s.apply(ComputeRootStep{bl});
  s.apply(ComputeRootStep{mm});
  require_rejected(s, ComputeAtStep{bl, out, 0}, {"does not read B.local nor holds every reader"});
}

TEST_CASE("compute_at of a stage with several readers at a loop enclosing them all", "[unit]") {
  // softmax_max is read by softmax_expsum and by softmax itself.
  State s = State::initial(softmax_dag());
  const int mx = stage_index(s, "softmax_max"), sum = stage_index(s, "softmax_expsum"), out = stage_index(s, "softmax");
  require_rejected(s, ComputeAtStep{mx, sum, 0}, {"nor holds every reader of it inside that loop"});
  s.apply(ComputeAtStep{sum, out, 0});
  s.apply(ComputeAtStep{mx, out, 0});
  CHECK(s.stages[mx].attach.target_stage == out);
  CHECK(max_output_error(s) < 1e-4);
  // Inside the row loop but outside the column loop: the sum, which reads
  // the max, would then be computed before it.
  require_rejected(s, ComputeAtStep{mx, out, 1}, {"nor holds every reader of it"});
}

TEST_CASE("cache and rfactor step errors", "[unit][error]") {
  State s = State::initial(matmul_dag());
  require_rejected(s, CacheWriteStep{0, "local"}, {"placeholder"});
  require_rejected(s, CacheWriteStep{2, "texture"}, {"unknown memory scope 'texture'"});
  require_rejected(s, CacheReadStep{0, "shared", {1}}, {"reader B does not read A"});
  require_rejected(s, CacheReadStep{0, "shared", {}}, {"no readers"});
  require_rejected(s, CacheReadStep{0, "shared", {2, 2}}, {"twice"});
  require_rejected(s, CacheReadStep{0, "shared", {5}}, {"reader 5 is out of range"});
  require_rejected(s, RfactorStep{2, 0, 0}, {"C_i0", "not a reduce iterator"});
  require_rejected(s, RfactorStep{2, 2, 3}, {"factor_iter 3"});
  require_rejected(s, RfactorStep{0, 0, 0}, {"placeholder"});

  State r = State::initial(matmul_relu_dag());
  require_rejected(r, RfactorStep{stage_index(r, "out"), 0, 0}, {"not a reduction"});
}

TEST_CASE("prepack step errors", "[unit][error]") {
  // matmul_relu_dag: A, B (a constant), mm, out.
  State s = State::initial(matmul_relu_dag());
  s.apply(CacheReadStep{1, "local", {2}});  // A, B, B.local, mm, out
  s.apply(CacheReadStep{0, "local", {3}});  // A, A.local, B, B.local, mm, out
  require_rejected(s, PrepackStep{1}, {"cannot prepack A.local", "constant placeholder"});
  require_rejected(s, PrepackStep{4}, {"cannot prepack mm", "constant placeholder"});
  s.apply(PrepackStep{3});
  require_rejected(s, PrepackStep{3}, {"B.local is already prepacked"});
  require_rejected(s, ComputeInlineStep{3}, {"cannot compute_inline B.local: it is prepacked"});
  // A second copy of B between B and the prepacked one would leave the
  // prepacked copy nothing constant to be made from.
  require_rejected(s, CacheReadStep{2, "shared", {3}}, {"B.local is prepacked: it must copy B itself"});
}

TEST_CASE("storage order step errors", "[unit][error]") {
  // matmul_relu_dag: A, B, mm, out.
  State s = State::initial(matmul_relu_dag());
  require_rejected(s, StorageOrderStep{2, {1, 0}}, {"cannot reorder the storage of mm", "shared or local"});
  require_rejected(s, StorageOrderStep{0, {1, 0}}, {"placeholder"});
  s.apply(CacheReadStep{0, "shared", {2}});  // A, A.shared, B, mm, out
  require_rejected(s, StorageOrderStep{1, {0}}, {"storage order of A.shared must be a permutation of its 2 axes"});
  require_rejected(s, StorageOrderStep{1, {1, 1}}, {"permutation"});
  require_rejected(s, StorageOrderStep{1, {0, 2}}, {"permutation"});
  s.apply(StorageOrderStep{1, {1, 0}});
  CHECK(s.stages[1].storage_order == std::vector<int>{1, 0});
  CHECK_THAT(s.to_string(), Contains("A.shared [shared] [stored in axis order 1 0]"));
}

TEST_CASE("try_apply, try_replay and try_edit return what does not fit instead of throwing", "[unit][error]") {
  State s = State::initial(matmul_dag());
  const State before = s;
  std::optional<std::string> why;
  REQUIRE_NOTHROW(why = s.try_apply(SplitStep{2, 0, 25, {2}, true}));
  REQUIRE(why.has_value());
  CHECK_THAT(*why, Contains("expects extent 25"));
  CHECK(states_equal(before, s));
  CHECK_FALSE(s.try_apply(SplitStep{2, 0, 24, {2}, true}).has_value());
  CHECK(s.history.size() == 1);

  CHECK(try_replay(s.dag, s.history).has_value());
  std::vector<Step> bad = s.history;
  bad.push_back(ReorderStep{2, {0, 1}});
  CHECK_FALSE(try_replay(s.dag, bad).has_value());

  // An edit of several steps: all of them or nothing, and s stays as it was.
  std::optional<State> edited = try_edit(s, [](State& n) {
    n.apply(FuseStep{2, {0, 1}});
    n.apply(AnnotationStep{2, 0, "parallel"});
  });
  REQUIRE(edited.has_value());
  CHECK(edited->history.size() == 3);
  CHECK(s.history.size() == 1);
  CHECK_FALSE(try_edit(s, [](State& n) {
    n.apply(FuseStep{2, {0, 1}});
    n.apply(ComputeInlineStep{2});  // an output: does not apply
  }).has_value());
}
