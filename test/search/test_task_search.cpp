// TaskSearch (lib/search/task_search.h): batches are distinct, unmeasured,
// valid programs, deterministic per seed, and measured programs seed later
// batches. Small populations keep these fast; the default-size case ([slow])
// prints how long a batch takes and asserts only its size.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <random>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "ops/registry.h"
#include "search/features.h"
#include "search/sketch.h"
#include "search/task_search.h"

using namespace tunectl;

namespace {

std::string key(const schedule::State& s) { return schedule::steps_to_json(s.history).dump(); }

std::shared_ptr<const te::ComputeDAG> matmul_dag(int m, int n, int k) {
  return std::make_shared<const te::ComputeDAG>(ops::make_op_dag("matmul", {{"M", m}, {"N", n}, {"K", k}}));
}

search::SearchParams small_params() {
  search::SearchParams p;
  p.population = 48;
  p.generations = 2;
  p.num_measured_seeds = 4;
  return p;
}

const auto nothing_measured = [](const schedule::State&) { return false; };

}  // namespace

TEST_CASE("program_features: one row per store of the lowered state", "[task_search][cpu]") {
  auto dag = matmul_dag(16, 16, 16);
  search::ProgramFeatures f = search::program_features(schedule::State::initial(dag), 7, target::Target{});
  CHECK(f.task_id == 7);
  REQUIRE_FALSE(f.rows.empty());
  for (const auto& row : f.rows) CHECK(row.size() == search::feature_names().size());
}

TEST_CASE("next_batch: distinct valid unmeasured states, deterministic per seed", "[task_search][cpu]") {
  auto dag = matmul_dag(64, 48, 32);
  search::RandomCostModel model_a(1), model_b(1);
  search::TaskSearch a(dag, 0, small_params(), 42), b(dag, 0, small_params(), 42);
  auto batch_a = a.next_batch(16, model_a, nothing_measured);
  auto batch_b = b.next_batch(16, model_b, nothing_measured);
  REQUIRE(batch_a.size() == 16);
  std::set<std::string> keys;
  for (const auto& c : batch_a) {
    keys.insert(key(c.state));
    CHECK(schedule::states_equal(schedule::replay(dag, c.state.history), c.state));
    // Each comes lowered once, and that lowering is the state's.
    REQUIRE(c.lowering != nullptr);
    REQUIRE(c.lowering->func != nullptr);
    CHECK(search::candidate_features(c, 0).rows == search::program_features(c.state, 0, target::Target{}).rows);
  }
  CHECK(keys.size() == batch_a.size());
  REQUIRE(batch_b.size() == batch_a.size());
  for (size_t i = 0; i < batch_a.size(); ++i) CHECK(key(batch_a[i].state) == key(batch_b[i].state));

  // A different seed explores differently.
  search::RandomCostModel model_c(1);
  search::TaskSearch c(dag, 0, small_params(), 43);
  auto batch_c = c.next_batch(16, model_c, nothing_measured);
  int same = 0;
  for (const auto& c : batch_c) same += static_cast<int>(keys.count(key(c.state)));
  CHECK(same < 16);
}

TEST_CASE("next_batch respects already_measured across batches", "[task_search][cpu]") {
  auto dag = matmul_dag(32, 32, 32);
  search::XgbCostModel model;  // untrained: all scores equal
  search::TaskSearch search(dag, 0, small_params(), 3);
  std::set<std::string> measured;
  auto is_measured = [&](const schedule::State& s) { return measured.count(key(s)) != 0; };
  for (int round = 0; round < 3; ++round) {
    auto batch = search.next_batch(12, model, is_measured);
    CHECK(batch.size() == 12);
    for (const auto& c : batch) {
      CHECK(measured.insert(key(c.state)).second);  // never proposed twice
      search.add_measured(c, 1.0 + measured.size());
    }
  }
}

TEST_CASE("a seed is measured first, once", "[task_search][cpu]") {
  auto dag = matmul_dag(32, 32, 32);
  search::XgbCostModel model;
  std::mt19937_64 rng(5);
  const std::vector<schedule::State> sketches = search::generate_sketches(dag, small_params());
  std::optional<search::Candidate> seed = search::annotate_randomly(sketches.back(), rng, small_params());
  REQUIRE(seed.has_value());
  search::TaskSearch search(dag, 0, small_params(), 3);
  search.add_seed({seed->state, nullptr});
  auto first = search.next_batch(6, model, nothing_measured);
  REQUIRE(first.size() == 6);
  CHECK(key(first[0].state) == key(seed->state));
  auto second = search.next_batch(6, model, [&](const schedule::State& s) { return key(s) == key(seed->state); });
  for (const auto& c : second) CHECK(key(c.state) != key(seed->state));
}

TEST_CASE("seeds past a full batch start the next one, in the order added", "[task_search][cpu]") {
  auto dag = matmul_dag(32, 32, 32);
  search::XgbCostModel model;
  std::mt19937_64 rng(7);
  const std::vector<schedule::State> sketches = search::generate_sketches(dag, small_params());
  std::vector<std::string> seeds;
  search::TaskSearch search(dag, 0, small_params(), 3);
  while (seeds.size() < 3) {
    std::optional<search::Candidate> c = search::annotate_randomly(sketches.back(), rng, small_params());
    if (!c || std::find(seeds.begin(), seeds.end(), key(c->state)) != seeds.end()) continue;
    seeds.push_back(key(c->state));
    search.add_seed({c->state, nullptr});
  }
  std::set<std::string> measured;
  auto is_measured = [&](const schedule::State& s) { return measured.count(key(s)) != 0; };
  auto first = search.next_batch(2, model, is_measured);
  REQUIRE(first.size() == 2);
  CHECK(key(first[0].state) == seeds[0]);
  CHECK(key(first[1].state) == seeds[1]);
  for (const auto& c : first) measured.insert(key(c.state));
  auto second = search.next_batch(2, model, is_measured);
  REQUIRE(!second.empty());
  CHECK(key(second[0].state) == seeds[2]);
}

TEST_CASE("add_measured states seed later batches", "[task_search][cpu]") {
  auto dag = matmul_dag(64, 64, 64);
  search::SearchParams params = small_params();
  search::TaskSearch search(dag, 0, params, 11);
  search::RandomCostModel model(2);
  auto first = search.next_batch(3, model, nothing_measured);
  REQUIRE(first.size() == 3);
  // A population of just the two best measured states (the failed one never
  // seeds), one generation of mutations only: everything proposed next is
  // one mutation away from a seed.
  params.population = 2;
  params.num_measured_seeds = 2;
  params.generations = 1;
  params.mutation_prob = 1.0;
  params.eps_greedy = 0;
  search::TaskSearch seeded(dag, 0, params, 11);
  for (int i = 0; i < 3; ++i) seeded.add_measured(first[i], i == 2 ? std::numeric_limits<double>::infinity() : 1e-4 * (2 - i));
  auto measured = [&](const schedule::State& s) {
    return key(s) == key(first[0].state) || key(s) == key(first[1].state) || key(s) == key(first[2].state);
  };
  auto steps_apart = [](const schedule::State& a, const schedule::State& b) {
    if (a.history.size() != b.history.size()) return 1 << 20;
    auto ja = schedule::steps_to_json(a.history), jb = schedule::steps_to_json(b.history);
    int diff = 0;
    for (size_t k = 0; k < ja.size(); ++k) diff += ja[k] != jb[k];
    return diff;
  };
  auto next = seeded.next_batch(8, model, measured);
  REQUIRE_FALSE(next.empty());
  for (const auto& c : next) {
    const schedule::State& s = c.state;
    CHECK_FALSE(measured(s));
    int d = std::min(steps_apart(s, first[0].state), steps_apart(s, first[1].state));
    INFO(key(s));
    // A tile-size, unroll or compute-at mutation edits one step; a
    // parallel-granularity one also shifts later positions of its stage.
    CHECK(d >= 1);
    CHECK(d <= 6);
  }
}

TEST_CASE("next_batch timing with default parameters", "[task_search][slow]") {
  auto conv = std::make_shared<const te::ComputeDAG>(ops::make_op_dag("conv2d", nlohmann::json::object()));
  for (const auto& [name, dag] : {std::pair{std::string("matmul 1024^3"), matmul_dag(1024, 1024, 1024)},
                                  std::pair{std::string("conv2d 1x64x56x56 k64 3x3"), conv}}) {
    search::TaskSearch search(dag, 0, {}, 1);
    search::RandomCostModel model(1);
    auto start = std::chrono::steady_clock::now();
    auto batch = search.next_batch(64, model, nothing_measured);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << name << ": next_batch(64) " << batch.size() << " states in " << s << " s\n";
    CHECK(batch.size() == 64);
  }
}
