// The cost model on GPU programs without a GPU: annotated GPU sketch states
// (random annotations plus their mutations) of a matmul and a conv2d, some
// of each checked against the reference in the GPU emulator, labelled with
// the analytic roofline estimate (search/gpu_cost.h) in place of a device's
// times. XGBoost trained on a random 2/3 from the GPU features, with the
// estimate's own column zeroed so that the structural columns (launch
// extents, shared memory, thread strides, occupancy) must carry the signal,
// must rank the held-out third better than the random model, with margin.
// (A few seconds: lowering and featurizing about 300 programs.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <iostream>
#include <random>
#include <set>

#include "check/reference_check.h"
#include "lower/gpu_emulator.h"
#include "lower/interpreter.h"
#include "ops/registry.h"
#include "search/candidate.h"
#include "search/cost_model.h"
#include "search/features.h"
#include "search/gpu_cost.h"
#include "search/mutation.h"
#include "search/sketch.h"
#include "support/gpu_schedules.h"

using namespace tunectl;

namespace {

struct Labelled {
  std::vector<search::ProgramFeatures> programs;
  std::vector<double> throughputs;  // 1 / estimated seconds
};

Labelled label(std::shared_ptr<const te::ComputeDAG> dag, const search::SearchParams& params, int n, int task_id,
               uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<search::Candidate> candidates;
  std::set<std::string> keys;
  auto add = [&](search::Candidate c) {
    if (keys.insert(schedule::steps_to_json(c.state.history).dump()).second) candidates.push_back(std::move(c));
  };
  for (auto& c : search::sample_initial_population(search::generate_sketches(dag, params), n / 2, rng, params))
    add(std::move(c));
  for (size_t i = 0; i < candidates.size() && static_cast<int>(candidates.size()) < n; ++i)
    if (auto m = search::mutate(candidates[i].state, rng, params)) add({std::move(*m), nullptr});
  const size_t estimate_column = std::find(search::feature_names().begin(), search::feature_names().end(),
                                           "gpu_estimate_ns") - search::feature_names().begin();
  Labelled out;
  for (size_t i = 0; i < candidates.size(); ++i) {
    search::Candidate& c = candidates[i];
    const search::Lowering& l = search::lower_candidate(c, params.target);
    if (!l.func) continue;
    if (i % 10 == 0) {
      check::CheckResult r = check::check_against_reference(
          *dag, [&](const std::vector<runtime::NDArray*>& args) { lower::run_with_packing(*l.func, args, lower::emulate_gpu); },
          i);
      INFO(schedule::steps_to_json(c.state.history).dump());
      REQUIRE(r.ok);
    }
    search::ProgramFeatures f = search::candidate_features(c, task_id);
    for (auto& row : f.rows) row[estimate_column] = 0;
    out.programs.push_back(std::move(f));
    out.throughputs.push_back(1.0 / search::estimate_gpu_cost(*l.func, params.target.gpu).seconds);
  }
  return out;
}

}  // namespace

TEST_CASE("cost model ranks held-out GPU programs by the roofline better than chance", "[cost_model]") {
  struct Task {
    std::string op;
    nlohmann::json config;
  };
  const std::vector<Task> tasks = {
      {"matmul", {{"M", 64}, {"N", 64}, {"K", 64}}},
      {"conv2d", {{"N", 1}, {"C", 8}, {"H", 8}, {"W", 8}, {"K", 16}, {"R", 3}, {"S", 3}, {"pad", 1}}},
  };
  const search::SearchParams params = search::for_target({}, schedule::cuda_target("sm_90"));
  std::vector<Labelled> labelled;
  for (size_t t = 0; t < tasks.size(); ++t) {
    auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag(tasks[t].op, tasks[t].config));
    labelled.push_back(label(dag, params, 150, static_cast<int>(t), 300 + t));
  }
  std::mt19937_64 rng(7);
  std::vector<search::ProgramFeatures> train;
  std::vector<double> train_y;
  std::vector<Labelled> held_out(tasks.size());
  for (size_t t = 0; t < tasks.size(); ++t) {
    std::vector<size_t> order(labelled[t].programs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t k = 0; k < order.size(); ++k) {
      if (3 * k < 2 * order.size()) {
        train.push_back(labelled[t].programs[order[k]]);
        train_y.push_back(labelled[t].throughputs[order[k]]);
      } else {
        held_out[t].programs.push_back(labelled[t].programs[order[k]]);
        held_out[t].throughputs.push_back(labelled[t].throughputs[order[k]]);
      }
    }
  }
  search::XgbCostModel xgb;
  xgb.update(train, train_y);
  search::RandomCostModel random(7);
  for (size_t t = 0; t < tasks.size(); ++t) {
    const Labelled& h = held_out[t];
    const double rho_xgb = search::spearman(xgb.predict(h.programs), h.throughputs);
    const double rho_random = search::spearman(random.predict(h.programs), h.throughputs);
    std::cout << tasks[t].op << " (GPU, roofline labels): " << labelled[t].programs.size() << " programs, held-out "
              << h.programs.size() << ", spearman xgb " << rho_xgb << ", random " << rho_random << "\n";
    INFO(tasks[t].op);
    CHECK(rho_xgb >= 0.5);
    CHECK(rho_xgb >= rho_random + 0.3);
  }
}
