// Random annotation (sketch.h): the driver, the tile sampling every target's
// annotation shares (sketch_rules.h), and the CPU annotation: a sketch's
// placeholder tile sizes get random factorizations, then each stage gets the
// CPU annotations (a parallel fused
// outer loop in root stages, a vectorized innermost loop, an auto-unroll
// pragma). The result is the initial population of the evolutionary search
// (task_search.h) and the fresh samples mixed into every round.
#include <algorithm>
#include <map>

#include "ir/error.h"
#include "schedule/stage_graph.h"
#include "search/sketch.h"
#include "search/sketch_rules.h"

namespace tunectl::search {

namespace {

using schedule::State;

bool attached_at(const State& s, int stage, int iter_id) {
  return std::any_of(s.stages.begin(), s.stages.end(), [&](const schedule::Stage& st) {
    return st.attach.kind == schedule::AttachKind::Iter && st.attach.target_stage == stage &&
           st.attach.target_iter == iter_id;
  });
}

bool active(const schedule::Stage& st) {
  return !st.op->is_placeholder() && st.attach.kind != schedule::AttachKind::Inline && !st.leaves.empty();
}

// Vectorizes the innermost loop of stage i when it is spatial and nothing is
// computed inside it; a loop longer than max_vectorize_extent is split first
// with a random divisor as the vector part.
void vectorize(State& s, int i, std::mt19937_64& rng, const SearchParams& params) {
  const schedule::Stage& st = s.stages[i];
  int p = static_cast<int>(st.leaves.size()) - 1;
  const schedule::Iterator& it = st.leaf(p);
  if (it.kind != ir::IterKind::Spatial || it.annotation != schedule::IterAnnotation::None || it.extent <= 1 ||
      attached_at(s, i, it.id))
    return;
  if (it.extent > params.max_vectorize_extent) {
    std::vector<int64_t> d = divisors(it.extent, params.max_vectorize_extent);
    int64_t f = d[pick(rng, d.size())];
    if (f == 1) return;
    s.apply(schedule::SplitStep{i, p, it.extent, {f}, true});
    p += 1;
  }
  s.apply(schedule::AnnotationStep{i, p, "vectorize"});
}

// The root axis iterator id derives from (through splits; -1 through a fuse).
int root_axis(const schedule::Stage& st, int id) {
  for (auto rel = st.relations.rbegin(); rel != st.relations.rend() && id >= st.num_root_iters(); ++rel) {
    if (const auto* split = std::get_if<schedule::SplitRelation>(&*rel)) {
      if (std::find(split->children.begin(), split->children.end(), id) != split->children.end()) id = split->parent;
    } else if (std::get<schedule::FuseRelation>(*rel).child == id) {
      return -1;
    }
  }
  return id < st.num_root_iters() ? id : -1;
}

// Puts the outer loop of the image rows (axis 2 of an NCHW or NCHW[x]c
// output the next kernel reads) right after the batch's, when only spatial
// loops with nothing computed at them come before it, so that the parallel
// loop splits the image by rows. Every kernel of a CNN then hands each
// thread the rows it wrote itself: split by channel blocks, a 1x1
// convolution read half its input from the other core's caches and ran
// 1.3-1.7x its time alone inside light ResNet-50 (2 threads of a Zen 5;
// 1.0-1.1x on one thread).
void rows_first(State& s, int i) {
  const schedule::Stage& st = s.stages[i];
  if (!schedule::is_output_stage(s, i) || st.op->shape().size() < 4) return;
  int batch = -1, rows = -1;
  for (int p = 0; p < static_cast<int>(st.leaves.size()) && rows < 0; ++p) {
    const schedule::Iterator& it = st.leaf(p);
    if (it.kind != ir::IterKind::Spatial || it.annotation != schedule::IterAnnotation::None) return;
    const int axis = root_axis(st, it.id);
    if (axis == 0 && batch < 0) batch = p;
    if (axis == 2) rows = p;
    if (rows < 0 && attached_at(s, i, it.id)) return;
  }
  const int to = batch >= 0 && batch < rows ? batch + 1 : 0;
  if (rows <= to || st.leaf(rows).extent < 2) return;
  std::vector<int> order;
  for (int p = 0; p < static_cast<int>(st.leaves.size()); ++p)
    if (p != rows) order.push_back(p);
  order.insert(order.begin() + to, rows);
  s.apply(schedule::ReorderStep{i, order});
}

// Fuses a random number of outer spatial loops of root stage i (up to the
// first whose product reaches the parallelism bound, and not past a loop
// something is computed at; at least up to the first of extent > 1) and
// marks the fused loop parallel.
void parallelize(State& s, int i, std::mt19937_64& rng, int64_t bound) {
  rows_first(s, i);
  const schedule::Stage& st = s.stages[i];
  int max_loops = 0;
  int64_t extent = 1;
  for (int p = 0; p < static_cast<int>(st.leaves.size()) && extent < bound; ++p) {
    const schedule::Iterator& it = st.leaf(p);
    if (it.kind != ir::IterKind::Spatial || it.annotation != schedule::IterAnnotation::None) break;
    extent *= it.extent;
    ++max_loops;
    if (attached_at(s, i, it.id)) break;
  }
  if (max_loops == 0) return;
  // Loops of extent 1 in front (a batch of one) do not count: at least the
  // first real loop is fused in.
  int first_real = 0;
  while (first_real < max_loops - 1 && st.leaf(first_real).extent == 1) ++first_real;
  int k = first_real + 1 + pick(rng, static_cast<size_t>(max_loops - first_real));
  if (k > 1) {
    std::vector<int> iters;
    for (int p = 0; p < k; ++p) iters.push_back(p);
    s.apply(schedule::FuseStep{i, iters});
  }
  if (s.stages[i].leaf(0).extent > 1) s.apply(schedule::AnnotationStep{i, 0, "parallel"});
}

// Fills the placeholder splits of one stage (history indices, in history
// order). Multi-level tiles (more than one length) are spatial when they have
// the most lengths; sketch.cpp splits a stage's axes from the last to the
// first, so the first spatial tile in history is the last axis: the vector
// loop. The innermost spatial tiles together are the register tile.
// A split the next step rfactors makes the partial stage's new spatial axis,
// its vector loop, so it is drawn aligned like a tile's vector axis.
// In a sketch that computes a Winograd convolution by rows of tiles, the
// tile axis (axis 2 of the stages inside) holds one row of tiles per block:
// its lengths are drawn from that row's count, so that they divide it
// (winograd_blocks_exact).
void fill_stage_splits(std::vector<schedule::Step>& history, const std::vector<size_t>& splits,
                       std::mt19937_64& rng, const SearchParams& params, const std::optional<WinogradTiles>& tiles) {
  size_t spatial_lengths = 0;
  for (size_t h : splits) spatial_lengths = std::max(spatial_lengths, std::get<schedule::SplitStep>(history[h]).lengths.size());
  const bool tiled = spatial_lengths > 1;
  const bool rfactored = splits.size() == 1 && splits[0] + 1 < history.size() &&
                         std::holds_alternative<schedule::RfactorStep>(history[splits[0] + 1]);
  const int64_t align =
      (tiled || rfactored) && chance(rng, params.aligned_vector_tile_prob) ? params.vector_lanes : 0;
  const bool bound_registers = tiled && chance(rng, params.register_tile_prob);
  const bool fill_registers = bound_registers && chance(rng, params.full_register_tile_prob);
  const bool two_level = tiled && chance(rng, params.two_level_tile_prob);
  int64_t register_tile = 1;
  bool first_spatial = true;
  for (size_t h : splits) {
    auto& split = std::get<schedule::SplitStep>(history[h]);
    const int64_t extent = tiles && split.iter == 2 && split.extent == tiles->all ? tiles->columns : split.extent;
    const bool spatial = tiled && split.lengths.size() == spatial_lengths;
    int64_t max_innermost = params.max_innermost_split_factor;
    // The vector axis comes first, so the bound shrinks what the others add.
    if (spatial && bound_registers)
      max_innermost = std::min(max_innermost, std::max<int64_t>(1, params.max_register_tile / register_tile));
    split.lengths = sample_lengths(extent, split.lengths.size(),
                                   (spatial && first_spatial) || rfactored ? align : 0, max_innermost, rng);
    if (spatial && two_level) std::fill(split.lengths.begin(), split.lengths.end() - 1, 1);
    if (spatial && !first_spatial && fill_registers) {
      int64_t outer = 1;
      for (size_t l = 0; l + 1 < split.lengths.size(); ++l) outer *= split.lengths[l];
      split.lengths.back() = std::max<int64_t>(1, std::min(max_innermost, extent / outer));
    }
    if (spatial) register_tile *= split.lengths.back();
    first_spatial = first_spatial && !spatial;
  }
}

}  // namespace

std::optional<State> draw_cpu_annotation(const State& sketch, std::mt19937_64& rng, const SearchParams& params) {
  std::vector<schedule::Step> history = sketch.history;
  std::map<int, std::vector<size_t>> splits_by_stage;
  for (size_t h = 0; h < history.size(); ++h) {
    auto* split = std::get_if<schedule::SplitStep>(&history[h]);
    const bool placeholder =
        split != nullptr && std::all_of(split->lengths.begin(), split->lengths.end(), [](int64_t l) { return l == 1; });
    if (placeholder) splits_by_stage[split->stage].push_back(h);
  }
  const std::optional<WinogradTiles> tiles = winograd_tiles(sketch);
  for (const auto& [stage, splits] : splits_by_stage) fill_stage_splits(history, splits, rng, params, tiles);
  // A draw the schedule rejects (e.g. a non-dividing tile under a compute_at
  // point) gives nothing.
  std::optional<State> tiled = schedule::try_replay(sketch.dag, history);
  if (!tiled || !winograd_blocks_exact(*tiled)) return std::nullopt;
  const int64_t bound = int64_t{params.parallel_chunks_per_core} * std::max(1, params.cores);
  return schedule::try_edit(*tiled, [&](State& s) {
    for (int i = 0; i < static_cast<int>(s.stages.size()); ++i) {
      if (!active(s.stages[i])) continue;
      vectorize(s, i, rng, params);
      if (s.stages[i].attach.kind == schedule::AttachKind::Root) parallelize(s, i, rng, bound);
      add_auto_unroll(s, i, rng, params.auto_unroll_configs);
    }
  });
}

int pick(std::mt19937_64& rng, size_t n) {
  return std::uniform_int_distribution<int>(0, static_cast<int>(n) - 1)(rng);
}

std::vector<int64_t> divisors(int64_t n, int64_t max) {
  std::vector<int64_t> d;
  for (int64_t k = 1; k <= std::min(n, max); ++k)
    if (n % k == 0) d.push_back(k);
  return d;
}

std::vector<int64_t> sample_lengths(int64_t extent, size_t k, int64_t align, int64_t max_innermost,
                                    std::mt19937_64& rng) {
  std::vector<int64_t> lengths(k, 1);
  int64_t remaining = extent;
  for (size_t j = k; j-- > 0;) {
    int64_t max = j + 1 == k ? max_innermost : remaining;
    int64_t f;
    std::vector<int64_t> aligned;
    if (j + 1 == k && align > 0) {
      for (int64_t d : divisors(remaining, max))
        if (d % align == 0) aligned.push_back(d);
    }
    if (!aligned.empty()) {
      f = aligned[pick(rng, aligned.size())];
    } else if (pick(rng, 8) == 0) {
      f = std::uniform_int_distribution<int64_t>(1, std::max<int64_t>(1, std::min(remaining, max)))(rng);
    } else {
      std::vector<int64_t> d = divisors(remaining, max);
      f = d[pick(rng, d.size())];
    }
    lengths[j] = f;
    remaining /= f;
  }
  return lengths;
}

bool chance(std::mt19937_64& rng, double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

void add_auto_unroll(State& s, int i, std::mt19937_64& rng, const std::vector<int>& configs) {
  if (configs.empty()) return;
  const int n = configs[pick(rng, configs.size())];
  if (n > 0) s.apply(schedule::PragmaStep{i, 0, "auto_unroll_max_step$" + std::to_string(n)});
}

std::optional<Candidate> annotate_randomly(const State& sketch, std::mt19937_64& rng, const SearchParams& params,
                                           double* lowering_seconds) {
  for (int attempt = 0; attempt < std::max(1, params.max_retries); ++attempt) {
    std::optional<State> s = sketch_rules(params.target).draw_annotation(sketch, rng, params);
    if (!s) continue;
    // Steps apply one by one; lowering also checks what only the whole state
    // shows (bound inference across attach points), and its result is kept.
    Candidate c{std::move(*s), nullptr};
    if (lower_candidate(c, params.target, lowering_seconds).func) return c;
  }
  return std::nullopt;
}

std::vector<Candidate> sample_initial_population(const std::vector<State>& sketches, int n, std::mt19937_64& rng,
                                                 const SearchParams& params, double* lowering_seconds) {
  std::vector<Candidate> out;
  if (sketches.empty()) return out;
  for (int k = 0; k < n; ++k) {
    std::optional<Candidate> c = annotate_randomly(sketches[pick(rng, sketches.size())], rng, params, lowering_seconds);
    if (c) out.push_back(std::move(*c));
  }
  return out;
}

}  // namespace tunectl::search
