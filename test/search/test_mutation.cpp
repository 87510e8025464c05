// Mutations (lib/search/mutation.h): every mutation of a valid state is a
// valid state that still computes the reference (property test over several
// ops and seeds, JIT-compiled), and each kind of edit actually happens.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <random>
#include <set>

#include "check/reference_check.h"
#include "codegen/llvm/llvm_codegen.h"
#include "lower/lower.h"
#include "ops/registry.h"
#include "support/random_schedule.h"
#include "search/mutation.h"
#include "search_test_util.h"

using namespace tunectl;

namespace {

// The step tags (first JSON element) whose entries differ between two
// histories, steps only one of them has included.
std::set<std::string> changed_tags(const schedule::State& a, const schedule::State& b) {
  std::set<std::string> tags;
  auto ja = schedule::steps_to_json(a.history), jb = schedule::steps_to_json(b.history);
  for (size_t k = 0; k < std::max(ja.size(), jb.size()); ++k) {
    if (k >= ja.size()) tags.insert(jb[k][0].get<std::string>());
    else if (k >= jb.size()) tags.insert(ja[k][0].get<std::string>());
    else if (ja[k] != jb[k]) tags.insert(ja[k][0].get<std::string>());
  }
  return tags;
}

}  // namespace

TEST_CASE("mutations of random schedules are valid and compute the reference", "[mutation][cpu]") {
  const std::vector<std::pair<std::string, nlohmann::json>> cases = {
      {"matmul", {{"M", 24}, {"N", 36}, {"K", 20}}},
      {"conv2d", {{"N", 1}, {"C", 4}, {"H", 10}, {"W", 10}, {"K", 8}, {"R", 3}, {"S", 3}}},
      {"dense", {{"M", 8}, {"K", 30}, {"N", 12}}},
      {"softmax", {{"shape", {6, 40}}}},
      {"avg_pool2d", {{"N", 1}, {"C", 4}, {"H", 12}, {"W", 12}}},
  };
  search::SearchParams params;
  std::map<std::string, int> tag_counts;
  int mutated = 0;
  for (const auto& [op, p] : cases) {
    INFO(op << " " << p.dump());
    auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag(op, p));
    for (uint64_t seed = 0; seed < 8; ++seed) {
      std::mt19937_64 rng(seed);
      schedule::State state = schedule::random_schedule(dag, rng, 6 + static_cast<int>(rng() % 10));
      for (int m = 0; m < 3; ++m) {
        std::optional<schedule::State> child = search::mutate(state, rng, params);
        if (!child) continue;
        ++mutated;
        auto tags = changed_tags(state, *child);
        CHECK_FALSE(tags.empty());  // a mutation changes the history
        for (const auto& t : tags) ++tag_counts[t];
        // The replayed history reproduces the mutated state exactly.
        CHECK(schedule::states_equal(schedule::replay(dag, child->history), *child));
        test::check_computes_reference(*dag, *child, seed * 10 + m);
        state = std::move(*child);  // mutations of mutations too
      }
    }
  }
  INFO("mutated " << mutated);
  CHECK(mutated >= 40);
  CHECK(tag_counts["SP"] > 0);
}

TEST_CASE("mutation: tile sizes keep the product within the extent and the innermost bounded, dividing or not", "[mutation][cpu]") {
  auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag("matmul", {{"M", 64}, {"N", 48}, {"K", 96}}));
  schedule::State s = schedule::State::initial(dag);
  s.apply(schedule::SplitStep{2, 0, 64, {4, 2, 8}, true});
  s.apply(schedule::SplitStep{2, 4, 48, {3, 16}, true});
  search::SearchParams params;
  params.max_innermost_split_factor = 16;
  std::mt19937_64 rng(5);
  std::set<std::vector<int64_t>> seen_first;
  int non_dividing = 0;
  for (int i = 0; i < 200; ++i) {
    auto child = search::mutate(s, rng, params);
    REQUIRE(child);
    for (const auto& step : child->history) {
      const auto& sp = std::get<schedule::SplitStep>(step);
      int64_t product = 1;
      for (int64_t l : sp.lengths) product *= l;
      CHECK(product <= sp.extent);
      CHECK(sp.lengths.back() <= 16);
      if (sp.extent % product != 0) ++non_dividing;
      if (sp.iter == 0) seen_first.insert(sp.lengths);
    }
    s = std::move(*child);
  }
  // A random walk over the factorizations of 64 visits many of them, and
  // tiles that do not divide their axis (a partial last tile) too.
  CHECK(seen_first.size() >= 8);
  CHECK(non_dividing > 0);
}

TEST_CASE("mutation: unroll, compute-at and parallel granularity edits", "[mutation][cpu]") {
  auto dag = std::make_shared<const te::ComputeDAG>(
      ops::make_op_dag("conv2d", {{"N", 1}, {"C", 4}, {"H", 8}, {"W", 8}, {"K", 8}, {"R", 3}, {"S", 3}}));
  // Stage 1 pads the input; conv2d is stage 3 (after the weights).
  schedule::State base = schedule::State::initial(dag);
  int conv = static_cast<int>(base.stages.size()) - 1;
  int pad = 1;
  INFO(base.to_string());
  base.apply(schedule::ComputeAtStep{pad, conv, 1});
  base.apply(schedule::FuseStep{conv, {0, 1}});
  base.apply(schedule::AnnotationStep{conv, 0, "parallel"});
  base.apply(schedule::PragmaStep{conv, 0, "auto_unroll_max_step$16"});
  search::SearchParams params;
  std::mt19937_64 rng(9);
  std::set<std::string> kinds;
  for (int i = 0; i < 400 && kinds.size() < 3; ++i) {
    auto child = search::mutate(base, rng, params);
    if (!child) continue;
    for (const auto& t : changed_tags(base, *child)) kinds.insert(t);
    test::check_computes_reference(*dag, *child, i);
  }
  CHECK(kinds.count("CA") == 1);
  CHECK(kinds.count("FU") == 1);
  CHECK(kinds.count("PR") == 1);
}

TEST_CASE("mutation: nothing to mutate gives nullopt", "[mutation][cpu]") {
  auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag("relu", {{"shape", {4, 8}}}));
  std::mt19937_64 rng(1);
  CHECK_FALSE(search::mutate(schedule::State::initial(dag), rng));
}
