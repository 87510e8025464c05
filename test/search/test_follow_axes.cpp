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

std::optional<Groups> groups_of(const te::Tensor& out, const std::string& reduction) {
  const State s = inlined_up_to(out, reduction);
  return search::follow_axes(s, schedule::stage_named(s, reduction), static_cast<int>(s.stages.size()) - 1);
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

TEST_CASE("follow_axes: reads no reorder and fusion can walk", "[unit]") {
  const te::Tensor w = te::placeholder("W", {32, 24});
  const te::Tensor mm = ops::matmul(te::placeholder("A", {16, 32}), w);
  // A row of the output spans two rows of the matmul.
  CHECK_FALSE(groups_of(ops::reshape(mm, {24, 16}), "matmul").has_value());
  // BERT's attention output: [heads, seq, dim] -> [seq, heads * dim] would
  // split an output axis across two of the product's.
  const te::Tensor ctx = ops::batch_matmul(te::placeholder("P", {4, 16, 16}), te::placeholder("V", {4, 16, 6}));
  CHECK_FALSE(groups_of(ops::reshape(ops::transpose(ctx, {1, 0, 2}), {16, 24}), "batch_matmul").has_value());
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
  const std::optional<Groups> groups = search::follow_axes(s, schedule::stage_named(s, "matmul"), out);
  REQUIRE(groups == Groups{{2}, {0, 1}});
  search::apply_follow_axes(s, out, *groups);
  REQUIRE(s.stages[out].leaves.size() == 2);
  CHECK(s.stages[out].leaf(0).extent == 16);
  CHECK(s.stages[out].leaf(1).extent == 24);
}
