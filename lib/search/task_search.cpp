// TaskSearch (task_search.h): the evolutionary search of one task. Each
// next_batch scores candidates with the cost model (each lowered and
// featurized once, candidate.h; scores cached by the state's step JSON for
// the call), evolves the population, and returns the best-scored distinct
// unmeasured candidates plus an eps_greedy share of fresh random samples.
#include "search/task_search.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "ir/error.h"
#include "search/mutation.h"
#include "search/sketch.h"

namespace tunectl::search {

namespace {

// Every candidate scored during one next_batch, by key, in first-seen order
// (so ties break the same way on every run).
class ScoreTable {
 public:
  ScoreTable(CostModel& model, int task_id, const target::Target& target, double& lowering_seconds)
      : model_(model), task_id_(task_id), target_(target), lowering_seconds_(lowering_seconds) {}

  // Scores of candidates (lowering, featurizing and predicting only the ones
  // not seen). Candidates seen before get the lowering already made.
  std::vector<double> score(std::vector<Candidate>& candidates) {
    std::vector<std::string> keys;
    std::vector<ProgramFeatures> fresh;
    std::vector<size_t> fresh_entries;
    for (Candidate& c : candidates) {
      keys.push_back(state_key(c.state));
      auto seen = index_.find(keys.back());
      if (seen != index_.end()) {
        if (!c.lowering) c.lowering = entries_[seen->second].candidate.lowering;
        continue;
      }
      lower_candidate(c, target_, &lowering_seconds_);
      index_.emplace(keys.back(), entries_.size());
      fresh_entries.push_back(entries_.size());
      entries_.push_back({keys.back(), c, 0.0});
      fresh.push_back(candidate_features(c, task_id_));
    }
    if (!fresh.empty()) {
      std::vector<double> scores = model_.predict(fresh);
      internal_check(scores.size() == fresh.size(), "cost model returned ", scores.size(), " scores for ",
                     fresh.size(), " programs");
      for (size_t i = 0; i < fresh.size(); ++i) entries_[fresh_entries[i]].score = scores[i];
    }
    std::vector<double> out;
    for (const auto& k : keys) out.push_back(entries_[index_.at(k)].score);
    return out;
  }

  struct Entry {
    std::string key;
    Candidate candidate;
    double score;
  };
  // All scored candidates that lowered, best first (stable: first seen wins
  // a tie).
  std::vector<const Entry*> ranked() const {
    std::vector<const Entry*> out;
    for (const auto& e : entries_)
      if (e.candidate.lowering->func) out.push_back(&e);
    std::stable_sort(out.begin(), out.end(), [](const Entry* a, const Entry* b) { return a->score > b->score; });
    return out;
  }

 private:
  CostModel& model_;
  int task_id_;
  const target::Target& target_;
  double& lowering_seconds_;
  std::vector<Entry> entries_;
  std::map<std::string, size_t> index_;
};

// Fitness-proportional choice (Ansor): probability ~ max(score, 0); uniform
// when no score is positive (an untrained model predicts all zeros).
std::vector<int> select_parents(const std::vector<double>& scores, int n, std::mt19937_64& rng) {
  std::vector<double> w;
  double total = 0;
  for (double s : scores) {
    w.push_back(std::isfinite(s) ? std::max(s, 0.0) : 0.0);
    total += w.back();
  }
  if (!(total > 0)) std::fill(w.begin(), w.end(), 1.0);
  std::discrete_distribution<int> dist(w.begin(), w.end());
  std::vector<int> out;
  for (int i = 0; i < n; ++i) out.push_back(dist(rng));
  return out;
}

}  // namespace

ProgramFeatures program_features(const schedule::State& state, int task_id, const target::Target& target) {
  Candidate c{state, nullptr};
  lower_candidate(c, target);
  return candidate_features(c, task_id);
}

TaskSearch::TaskSearch(std::shared_ptr<const te::ComputeDAG> dag, int task_id, SearchParams params, uint64_t seed)
    : dag_(std::move(dag)), task_id_(task_id), params_(std::move(params)), rng_(seed) {
  sketches_ = generate_sketches(dag_, params_);
}

std::vector<Candidate> TaskSearch::next_batch(int n, CostModel& model,
                                              const std::function<bool(const schedule::State&)>& already_measured) {
  ScoreTable table(model, task_id_, params_.target, lowering_seconds_);
  std::vector<Candidate> population;
  for (const auto& [cost, c] : best_measured_) population.push_back(c);
  int fresh = std::max(0, params_.population - static_cast<int>(population.size()));
  for (auto& c : sample_initial_population(sketches_, fresh, rng_, params_, &lowering_seconds_))
    population.push_back(std::move(c));

  for (int g = 0; g < params_.generations && !population.empty(); ++g) {
    std::vector<double> scores = table.score(population);
    std::vector<Candidate> children;
    std::bernoulli_distribution mutate_coin(params_.mutation_prob);
    for (int p : select_parents(scores, params_.population, rng_)) {
      std::optional<schedule::State> child;
      if (mutate_coin(rng_)) child = mutate(population[p].state, rng_, params_);
      children.push_back(child ? Candidate{std::move(*child), nullptr} : population[p]);
    }
    population = std::move(children);
  }
  table.score(population);

  // The seeds first, then the best-scored candidates, leaving the
  // eps_greedy share to random samples.
  std::vector<Candidate> batch;
  std::set<std::string> taken;
  auto take = [&](const Candidate& c, const std::string& key) {
    if (static_cast<int>(batch.size()) >= n || taken.count(key) != 0 || already_measured(c.state)) return;
    taken.insert(key);
    batch.push_back(c);
  };
  // Seeds past a full batch wait for the next one.
  std::vector<Candidate> waiting;
  for (Candidate& c : seeds_) {
    if (static_cast<int>(batch.size()) >= n) {
      waiting.push_back(std::move(c));
      continue;
    }
    lower_candidate(c, params_.target, &lowering_seconds_);
    if (c.lowering->func) take(c, state_key(c.state));
  }
  seeds_ = std::move(waiting);
  int num_random = static_cast<int>(std::lround(params_.eps_greedy * n));
  std::vector<const ScoreTable::Entry*> ranked = table.ranked();
  for (const auto* e : ranked) {
    if (static_cast<int>(batch.size()) >= n - num_random) break;
    take(e->candidate, e->key);
  }
  for (const auto& c : sample_initial_population(sketches_, num_random, rng_, params_, &lowering_seconds_))
    take(c, state_key(c.state));
  // Random samples that collided: fill from the ranking.
  for (const auto* e : ranked) take(e->candidate, e->key);
  return batch;
}

void TaskSearch::add_measured(const Candidate& candidate, double cost_seconds) {
  if (!std::isfinite(cost_seconds)) return;
  std::string key = state_key(candidate.state);
  for (auto it = best_measured_.begin(); it != best_measured_.end(); ++it) {
    if (state_key(it->second.state) != key) continue;
    if (it->first <= cost_seconds) return;
    best_measured_.erase(it);
    break;
  }
  auto pos = std::upper_bound(best_measured_.begin(), best_measured_.end(), cost_seconds,
                              [](double c, const auto& entry) { return c < entry.first; });
  best_measured_.insert(pos, {cost_seconds, candidate});
  if (static_cast<int>(best_measured_.size()) > params_.num_measured_seeds)
    best_measured_.erase(best_measured_.begin() + params_.num_measured_seeds, best_measured_.end());
}

}  // namespace tunectl::search
