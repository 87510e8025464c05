// Construction (construct.h): rate drawn starting points, then walk the
// mutation edges greedily from the best few.
#include "search/construct.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <string>

#include "ir/error.h"
#include "search/cpu_cost.h"
#include "search/gpu_cost.h"
#include "search/mutation.h"
#include "search/sketch.h"

namespace tunectl::search {

namespace {

struct Rated {
  Candidate candidate;
  double cost;
};

}  // namespace

double analytic_cost(const Lowering& lowering, const target::Target& target) {
  internal_check(lowering.func != nullptr, "the analytic cost of a program that did not lower");
  if (target.kind == target::TargetKind::Cuda) return estimate_gpu_cost(*lowering.func, target.gpu).seconds;
  return estimate_cpu_seconds(lowering.feature_rows, target);
}

std::optional<Construction> construct_program(std::shared_ptr<const te::ComputeDAG> dag, const SearchParams& params,
                                              uint64_t seed, const AcceptProgram& accept,
                                              const ConstructParams& construct) {
  const auto start = std::chrono::steady_clock::now();
  std::mt19937_64 rng(seed);
  Construction out;
  std::vector<Rated> rated;  // every state that lowered
  // Lowers (once) and rates; +inf for a state that does not lower.
  auto rate = [&](Candidate c) -> Rated {
    ++out.states_rated;
    const Lowering& l = lower_candidate(c, params.target);
    const double cost = l.func ? analytic_cost(l, params.target) : std::numeric_limits<double>::infinity();
    if (l.func) rated.push_back({c, cost});
    return {std::move(c), cost};
  };
  std::vector<Rated> starts;
  for (const schedule::State& sketch : generate_sketches(dag, params))
    for (Candidate& c : sample_initial_population({sketch}, construct.draws_per_sketch, rng, params))
      starts.push_back(rate(std::move(c)));
  if (starts.empty()) return std::nullopt;
  std::stable_sort(starts.begin(), starts.end(), [](const Rated& a, const Rated& b) { return a.cost < b.cost; });
  // Greedy walks from the best starting points.
  std::vector<Rated> optima;  // where each walk ended
  for (int w = 0; w < std::min<int>(construct.walks, static_cast<int>(starts.size())); ++w) {
    Rated here = starts[w];
    for (int step = 0; step < construct.max_steps; ++step) {
      std::optional<Rated> next;
      for (int k = 0; k < construct.neighbours; ++k) {
        std::optional<schedule::State> m = mutate(here.candidate.state, rng, params);
        if (!m) continue;
        Rated r = rate({std::move(*m), nullptr});
        if (r.cost < here.cost && (!next || r.cost < next->cost)) next = std::move(r);
      }
      if (!next) break;  // no edge improves: a local optimum
      here = std::move(*next);
    }
    optima.push_back(std::move(here));
  }
  std::stable_sort(rated.begin(), rated.end(), [](const Rated& a, const Rated& b) { return a.cost < b.cost; });
  const size_t tries = std::min<size_t>(rated.size(), 16);
  size_t k = 0;
  // An infinite estimate is a program the model rules out (one that cannot
  // launch, or too much unrolled code).
  while (k < tries && (!std::isfinite(rated[k].cost) || !accept(*rated[k].candidate.lowering->func))) ++k;
  if (k == tries) return std::nullopt;
  out.best = std::move(rated[k].candidate);
  out.estimated_seconds = rated[k].cost;
  std::stable_sort(optima.begin(), optima.end(), [](const Rated& a, const Rated& b) { return a.cost < b.cost; });
  if (!construct.other_optima) optima.clear();
  std::set<std::string> keys{state_key(out.best.state)};
  for (Rated& o : optima) {
    if (!std::isfinite(o.cost) || !keys.insert(state_key(o.candidate.state)).second) continue;
    if (accept(*o.candidate.lowering->func)) out.other_optima.push_back(std::move(o.candidate));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace tunectl::search
