// follow_axes (search/follow_axes.h): which axes of an output that reads a
// reduction through reshapes and transposes walk each of the reduction's
// axes, and the output's loops reordered and fused to walk them.
#include <catch2/catch.hpp>

#include "ops/matmul.h"
#include "ops/transform.h"
#include "search/follow_axes.h"
#include "support/gpu_schedules.h"

using namespace tunectl;

namespace {

using schedule::State;
using Groups = std::vector<std::vector<int>>;

// The state of out's DAG with every stage between it and the reduction
// inlined, as the GPU sketch rules leave it when they reach the reduction.
State inlined_up_to(const te::Tensor& out, const std::string& reduction) {
  State s = State::initial(std::make_shared<const te::ComputeDAG>(std::vector<te::Tensor>{out}));
  const int r = schedule::stage_named(s, reduction);
  for (int i = static_cast<int>(s.stages.size()) - 2; i > r; --i) s.apply(schedule::ComputeInlineStep{i});
  return s;
}

// The plan's groups, where it needs no split.
std::optional<Groups> groups_of(const te::Tensor& out, const std::string& reduction) {
  const State s = inlined_up_to(out, reduction);
  const std::optional<search::FollowPlan> plan =
      search::follow_axes(s, schedule::stage_named(s, reduction), static_cast<int>(s.stages.size()) - 1);
  if (!plan) return std::nullopt;
  for (const std::vector<int64_t>& lengths : plan->split_lengths) REQUIRE(lengths.empty());
  return plan->groups;
}

}  // namespace

TEST_CASE("follow_axes: a matmul stored through a reshape and transpose, as BERT's projections", "[unit]") {
  const te::Tensor w = te::placeholder("W", {32, 24});
  const te::Tensor y = ops::reshape(ops::matmul(te::placeholder("A", {16, 32}), w), {16, 4, 6});
  // The key: [heads, head dim, seq]; the matmul's n = head * 6 + dim.
  CHECK(groups_of(ops::transpose(y, {1, 2, 0}), "matmul") == Groups{{2}, {0, 1}});
  // Query and value: [heads, seq, head dim].
  CHECK(groups_of(ops::transpose(y, {1, 0, 2}), "matmul") == Groups{{1}, {0, 2}});
  // The same order: only fusion.
  CHECK(groups_of(y, "matmul") == Groups{{0}, {1, 2}});
  // Extent-1 axes pair in order; the output's left over join the first group.
  const te::Tensor batched = ops::batch_matmul(te::placeholder("P", {1, 16, 32}), te::placeholder("V", {1, 32, 24}));
  CHECK(groups_of(ops::transpose(ops::reshape(batched, {1, 16, 4, 6}), {0, 2, 3, 1}), "batch_matmul") ==
        Groups{{0}, {3}, {1, 2}});
  const te::Tensor unbatched = ops::reshape(ops::matmul(te::placeholder("A", {16, 32}), w), {1, 16, 4, 6});
  CHECK(groups_of(ops::transpose(unbatched, {0, 2, 3, 1}), "matmul") == Groups{{0, 3}, {1, 2}});
}

TEST_CASE("follow_axes: BERT's attention output splits its hidden axis by the head dim", "[unit]") {
  // [heads, seq, dim] -> [seq, heads, dim] -> [seq, heads * dim].
  const te::Tensor ctx = ops::batch_matmul(te::placeholder("P", {4, 16, 16}), te::placeholder("V", {4, 16, 6}));
  State s = inlined_up_to(ops::reshape(ops::transpose(ctx, {1, 0, 2}), {16, 24}), "batch_matmul");
  const int out = static_cast<int>(s.stages.size()) - 1;
  const std::optional<search::FollowPlan> plan =
      search::follow_axes(s, schedule::stage_named(s, "batch_matmul"), out);
  REQUIRE(plan.has_value());
  CHECK(plan->split_lengths == std::vector<std::vector<int64_t>>{{}, {6}});
  CHECK(plan->groups == Groups{{1}, {0}, {2}});  // leaves (seq, head, dim)
  search::apply_follow_axes(s, out, *plan);
  REQUIRE(s.stages[out].leaves.size() == 3);
  CHECK(s.stages[out].leaf(0).extent == 4);
  CHECK(s.stages[out].leaf(1).extent == 16);
  CHECK(s.stages[out].leaf(2).extent == 6);
  // The matmul's rows' halves stacked: [16, 24] -> [16, 2, 12] -> [2, 16,
  // 12] -> [32, 12]; the output's first axis is (half, row), and the half
  // joins the column within the half.
  const te::Tensor mm = ops::matmul(te::placeholder("A", {16, 32}), te::placeholder("W", {32, 24}));
  const State halves =
      inlined_up_to(ops::reshape(ops::transpose(ops::reshape(mm, {16, 2, 12}), {1, 0, 2}), {32, 12}), "matmul");
  const std::optional<search::FollowPlan> stacked = search::follow_axes(
      halves, schedule::stage_named(halves, "matmul"), static_cast<int>(halves.stages.size()) - 1);
  REQUIRE(stacked.has_value());
  CHECK(stacked->split_lengths == std::vector<std::vector<int64_t>>{{16}, {}});
  CHECK(stacked->groups == Groups{{1}, {0, 2}});
}

TEST_CASE("follow_axes: reads no split, reorder and fusion can walk", "[unit]") {
  const te::Tensor w = te::placeholder("W", {32, 24});
  const te::Tensor mm = ops::matmul(te::placeholder("A", {16, 32}), w);
  // A row of the output spans parts of two rows of the matmul.
  CHECK_FALSE(groups_of(ops::reshape(mm, {24, 16}), "matmul").has_value());
  // The output's loops, once touched, are no longer its axes.
  State s = inlined_up_to(ops::transpose(ops::reshape(mm, {16, 4, 6}), {1, 2, 0}), "matmul");
  const int out = static_cast<int>(s.stages.size()) - 1;
  s.apply(schedule::FuseStep{out, {0, 1}});
  CHECK_FALSE(search::follow_axes(s, schedule::stage_named(s, "matmul"), out).has_value());
}

TEST_CASE("apply_follow_axes: the output's leaves walk the reduction's axes in order", "[unit]") {
  const te::Tensor mm = ops::matmul(te::placeholder("A", {16, 32}), te::placeholder("W", {32, 24}));
  State s = inlined_up_to(ops::transpose(ops::reshape(mm, {16, 4, 6}), {1, 2, 0}), "matmul");
  const int out = static_cast<int>(s.stages.size()) - 1;
  const std::optional<search::FollowPlan> plan = search::follow_axes(s, schedule::stage_named(s, "matmul"), out);
  REQUIRE(plan.has_value());
  REQUIRE(plan->groups == Groups{{2}, {0, 1}});
  search::apply_follow_axes(s, out, *plan);
  REQUIRE(s.stages[out].leaves.size() == 2);
  CHECK(s.stages[out].leaf(0).extent == 16);
  CHECK(s.stages[out].leaf(1).extent == 24);
}
