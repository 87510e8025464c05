// Mutations of the evolutionary search (mutation.h): each kind edits a copy
// of the state's history and replays it from State::initial, so the replay's
// own validation decides whether the edit is a valid state. Kinds and their
// weights (SearchParams) follow Ansor's CPU policy (ALGORITHMS.md); a kind is
// only drawn when the history has a step it can edit.
#include "search/mutation.h"

#include <algorithm>
#include <variant>

#include "ir/error.h"
#include "search/sketch_rules.h"

namespace tunectl::search {

namespace {

using schedule::Step;

enum class Kind { TileSize, Unroll, ComputeAt, Parallel, DoubleBuffer };

int pick(std::mt19937_64& rng, int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }

std::vector<int64_t> prime_factors(int64_t x) {
  std::vector<int64_t> f;
  for (int64_t p = 2; p * p <= x; ++p)
    while (x % p == 0) {
      f.push_back(p);
      x /= p;
    }
  if (x > 1) f.push_back(x);
  return f;
}

// Indices of history steps of type T satisfying pred.
template <typename T, typename Pred>
std::vector<int> steps_where(const std::vector<Step>& h, Pred pred) {
  std::vector<int> out;
  for (int k = 0; k < static_cast<int>(h.size()); ++k)
    if (const auto* s = std::get_if<T>(&h[k]); s != nullptr && pred(*s)) out.push_back(k);
  return out;
}

// FuseSteps feeding a parallel annotation: the fuse right before the
// annotation on the same stage whose result is the annotated loop.
std::vector<int> parallel_fuses(const std::vector<Step>& h) {
  std::vector<int> out;
  for (int k = 1; k < static_cast<int>(h.size()); ++k) {
    const auto* an = std::get_if<schedule::AnnotationStep>(&h[k]);
    const auto* fu = std::get_if<schedule::FuseStep>(&h[k - 1]);
    if (an != nullptr && fu != nullptr && an->annotation == "parallel" && fu->stage == an->stage &&
        !fu->iters.empty() && fu->iters.front() == an->iter)
      out.push_back(k - 1);
  }
  return out;
}

// Gives one length of a split any value that keeps the lengths' product
// within the extent (and the innermost within max_innermost_split_factor),
// so that tiles which do not divide their axis (6 rows of 1024: the last
// tile partial, lower/partition_loops.h) are reached from dividing ones,
// which moving prime factors never leaves.
bool redraw_tile_length(schedule::SplitStep& sp, std::mt19937_64& rng, const SearchParams& params) {
  const int level = pick(rng, static_cast<int>(sp.lengths.size()));
  int64_t others = 1;
  for (int i = 0; i < static_cast<int>(sp.lengths.size()); ++i)
    if (i != level) others *= sp.lengths[i];
  int64_t max = std::max<int64_t>(1, sp.extent / others);
  if (level + 1 == static_cast<int>(sp.lengths.size())) max = std::min(max, params.max_innermost_split_factor);
  const int64_t length = std::uniform_int_distribution<int64_t>(1, std::max<int64_t>(1, max))(rng);
  if (length == sp.lengths[level]) return false;
  sp.lengths[level] = length;
  return true;
}

// Moves one prime factor between two parts of a split: its lengths or the
// outer loop (extent / product); now and then (1 in 8, as the sampler
// draws such lengths) redraws one length instead. The lengths' product
// never exceeds the extent, and the innermost stays within
// max_innermost_split_factor.
bool mutate_tile_size(std::vector<Step>& h, int k, std::mt19937_64& rng, const SearchParams& params) {
  auto& sp = std::get<schedule::SplitStep>(h[k]);
  if (pick(rng, 8) == 0) return redraw_tile_length(sp, rng, params);
  int64_t product = 1;
  for (int64_t l : sp.lengths) product *= l;
  // Part 0 is the outer loop; only its whole multiples of the product can move.
  int64_t outer = sp.extent / product;
  int parts = static_cast<int>(sp.lengths.size()) + 1;
  auto value = [&](int i) { return i == 0 ? outer : sp.lengths[i - 1]; };
  std::vector<int> sources;
  for (int i = 0; i < parts; ++i)
    if (value(i) > 1) sources.push_back(i);
  if (sources.empty()) return false;
  int src = sources[pick(rng, static_cast<int>(sources.size()))];
  int dst = pick(rng, parts - 1);
  if (dst >= src) ++dst;
  std::vector<int64_t> primes = prime_factors(value(src));
  int64_t p = primes[pick(rng, static_cast<int>(primes.size()))];
  if (src > 0) sp.lengths[src - 1] /= p;
  if (dst > 0) sp.lengths[dst - 1] *= p;
  return sp.lengths.back() <= params.max_innermost_split_factor;
}

bool mutate_unroll(std::vector<Step>& h, int k, std::mt19937_64& rng, const SearchParams& params) {
  auto& pr = std::get<schedule::PragmaStep>(h[k]);
  std::vector<std::string> others;
  for (int v : params.auto_unroll_configs) {
    std::string text = "auto_unroll_max_step$" + std::to_string(v);
    if (text != pr.pragma) others.push_back(text);
  }
  if (others.empty()) return false;
  pr.pragma = others[pick(rng, static_cast<int>(others.size()))];
  return true;
}

// Another loop of the same target stage, counted in the state right before
// the compute_at step.
bool mutate_compute_at(const schedule::State& state, std::vector<Step>& h, int k, std::mt19937_64& rng) {
  auto& ca = std::get<schedule::ComputeAtStep>(h[k]);
  schedule::State before =
      schedule::replay(state.dag, std::vector<Step>(state.history.begin(), state.history.begin() + k));
  int n = static_cast<int>(before.stages.at(ca.target_stage).leaves.size());
  if (n < 2) return false;
  int t = pick(rng, n - 1);
  ca.target_iter = t >= ca.target_iter ? t + 1 : t;
  return true;
}

bool is_double_buffer(const Step& step) {
  const auto* pr = std::get_if<schedule::PragmaStep>(&step);
  return pr != nullptr && pr->pragma == "double_buffer";
}

// Double-buffers every shared tile when none is, and none otherwise.
bool mutate_double_buffer(std::vector<Step>& h, const std::vector<int>& shared_stages) {
  if (std::erase_if(h, is_double_buffer) > 0) return true;
  for (int stage : shared_stages) h.push_back(schedule::PragmaStep{stage, 0, "double_buffer"});
  return !shared_stages.empty();
}

// Positions of the stage's loops after position `after` move by delta in
// the steps following the edited fuse (as Ansor's MutateParallel adjusts
// them); steps whose positions cannot shift this way are left to replay.
void shift_positions(std::vector<Step>& h, int from, int stage, int after, int delta) {
  auto shift = [&](int& pos) {
    if (pos > after) pos += delta;
  };
  for (int k = from; k < static_cast<int>(h.size()); ++k) {
    std::visit(
        [&](auto& s) {
          using T = std::decay_t<decltype(s)>;
          if constexpr (std::is_same_v<T, schedule::ComputeAtStep>) {
            if (s.target_stage == stage) shift(s.target_iter);
          } else if constexpr (std::is_same_v<T, schedule::SplitStep> || std::is_same_v<T, schedule::FollowSplitStep> ||
                               std::is_same_v<T, schedule::FollowFusedSplitStep> ||
                               std::is_same_v<T, schedule::AnnotationStep> || std::is_same_v<T, schedule::PragmaStep> ||
                               std::is_same_v<T, schedule::RfactorStep>) {
            if (s.stage == stage) shift(s.iter);
          } else if constexpr (std::is_same_v<T, schedule::FuseStep>) {
            if (s.stage == stage)
              for (int& p : s.iters) shift(p);
          }
        },
        h[k]);
  }
}

// Fuse one more or one fewer outer loop into the parallel loop.
bool mutate_parallel(std::vector<Step>& h, int k, std::mt19937_64& rng) {
  auto& fu = std::get<schedule::FuseStep>(h[k]);
  int first = fu.iters.front();
  int last = fu.iters.back();
  int delta = (fu.iters.size() == 1 || pick(rng, 2) == 0) ? 1 : -1;
  if (delta > 0)
    fu.iters.push_back(last + 1);
  else
    fu.iters.pop_back();
  // Loops after the fused ones sat at last + 1.. before the edit; the fused
  // loop stays at `first`.
  shift_positions(h, k + 1, fu.stage, first, -delta);
  return true;
}

// The CPU backend's limit on vectorized loops (sketch annotation keeps to
// it; a mutated split can break it).
bool vector_loops_fit(const schedule::State& s, const SearchParams& params) {
  for (const auto& st : s.stages)
    for (int id : st.leaves)
      if (st.iters[id].annotation == schedule::IterAnnotation::Vectorize &&
          st.iters[id].extent > params.max_vectorize_extent)
        return false;
  return true;
}

}  // namespace

std::optional<schedule::State> mutate(const schedule::State& state, std::mt19937_64& rng,
                                      const SearchParams& params) {
  const auto& h = state.history;
  std::vector<int> splits = steps_where<schedule::SplitStep>(h, [](const auto& s) { return !s.lengths.empty(); });
  std::vector<int> pragmas =
      steps_where<schedule::PragmaStep>(h, [](const auto& s) { return s.pragma.starts_with("auto_unroll_max_step$"); });
  std::vector<int> compute_ats = steps_where<schedule::ComputeAtStep>(h, [](const auto&) { return true; });
  std::vector<int> fuses = parallel_fuses(h);
  std::vector<int> shared_stages;
  for (int i = 0; i < static_cast<int>(state.stages.size()); ++i) {
    if (params.target.kind == target::TargetKind::Cuda && state.stages[i].op->buffer->scope == ir::MemScope::Shared)
      shared_stages.push_back(i);
  }
  std::vector<std::pair<Kind, const std::vector<int>*>> kinds;
  std::vector<double> weights;
  auto add = [&](Kind kind, const std::vector<int>& steps, double w) {
    if (steps.empty()) return;
    kinds.emplace_back(kind, &steps);
    weights.push_back(w);
  };
  add(Kind::TileSize, splits, params.mutate_tile_size_weight);
  add(Kind::Unroll, pragmas, params.mutate_unroll_weight);
  add(Kind::ComputeAt, compute_ats, params.mutate_compute_at_weight);
  add(Kind::Parallel, fuses, params.mutate_parallel_weight);
  add(Kind::DoubleBuffer, shared_stages, params.mutate_double_buffer_weight);
  if (kinds.empty()) return std::nullopt;
  std::discrete_distribution<int> kind_dist(weights.begin(), weights.end());

  for (int attempt = 0; attempt < params.max_retries; ++attempt) {
    auto [kind, steps] = kinds[kind_dist(rng)];
    int k = (*steps)[pick(rng, static_cast<int>(steps->size()))];
    std::vector<Step> edited = h;
    bool changed = false;
    switch (kind) {
      case Kind::TileSize:
        changed = mutate_tile_size(edited, k, rng, params);
        break;
      case Kind::Unroll:
        changed = mutate_unroll(edited, k, rng, params);
        break;
      case Kind::ComputeAt:
        changed = mutate_compute_at(state, edited, k, rng);
        break;
      case Kind::Parallel:
        changed = mutate_parallel(edited, k, rng);
        break;
      case Kind::DoubleBuffer:
        changed = mutate_double_buffer(edited, shared_stages);
        break;
    }
    if (!changed) continue;
    // An edit that does not fit the later steps is an invalid candidate: try again.
    std::optional<schedule::State> next = schedule::try_replay(state.dag, edited);
    if (next && vector_loops_fit(*next, params) && winograd_blocks_exact(*next)) return next;
  }
  return std::nullopt;
}

}  // namespace tunectl::search
