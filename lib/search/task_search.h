// TaskSearch: the program search of one task (Ansor's SketchPolicy). Each
// call of next_batch proposes programs to measure: a population of random
// annotations of the task's sketches plus the best programs measured so far
// evolves for SearchParams::generations rounds (mutation, cost-model scoring,
// fitness-proportional selection); the best-scored states never measured
// before make the batch, with an eps_greedy share of fresh random samples.
// The tuner measures them and reports back with add_measured, which also
// warms a resumed search from a log. Deterministic for a given seed, cost
// model and sequence of reports.
#pragma once

#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "schedule/state.h"
#include "search/candidate.h"
#include "search/cost_model.h"
#include "search/search_params.h"

namespace tunectl::search {

// The cost model's view of a state: lower for target + extract_features. A
// state that fails to lower gets no rows (predicts as 0).
ProgramFeatures program_features(const schedule::State& state, int task_id, const target::Target& target);

class TaskSearch {
 public:
  TaskSearch(std::shared_ptr<const te::ComputeDAG> dag, int task_id, SearchParams params = {}, uint64_t seed = 0);

  // Up to n distinct candidates, lowered, whose states already_measured
  // rejects, ordered best-predicted first (fewer only when the search space
  // runs dry).
  std::vector<Candidate> next_batch(int n, CostModel& model,
                                    const std::function<bool(const schedule::State&)>& already_measured);
  // A measured program of this task and its median cost in seconds (+inf for
  // an error); the best ones seed later generations. A candidate not yet
  // lowered (one read from a log) is lowered when it is first scored.
  void add_measured(const Candidate& candidate, double cost_seconds);
  // A program to measure first (a constructed or retimed one): the next
  // batch starts with the seeds not measured yet, in the order added; those
  // past its size wait for the batch after.
  void add_seed(Candidate candidate) { seeds_.push_back(std::move(candidate)); }

  // Seconds spent in lower() by this search so far.
  double lowering_seconds() const { return lowering_seconds_; }

  const std::vector<schedule::State>& sketches() const { return sketches_; }
  int task_id() const { return task_id_; }

 private:
  std::shared_ptr<const te::ComputeDAG> dag_;
  int task_id_;
  SearchParams params_;
  std::mt19937_64 rng_;
  std::vector<schedule::State> sketches_;
  // Valid measured candidates, best (lowest cost) first, at most
  // num_measured_seeds.
  std::vector<std::pair<double, Candidate>> best_measured_;
  std::vector<Candidate> seeds_;
  double lowering_seconds_ = 0;
};

}  // namespace tunectl::search
