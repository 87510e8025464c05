// GPU random annotation (sketch_rules.h): fills a GPU sketch's placeholder
// lengths (gpu_sketch.cpp) and adds its annotations. A sketch's splits say
// what they are by their shape:
//   4 lengths  a spatial tile: vthread, thread, two inner levels
//   2 lengths  a reduce tile: the two inner levels
//   1 length   followed by a FollowFusedSplit of the same stage: the vector
//              length of a cooperative fetch; with its inner part bound to
//              threadIdx.x next: the thread count of an output bound
//              without tiles, or of a cross-thread reduction and the rows
//              bound for it (one count for all of them: a block they share,
//              a power of two or the row in whole warps); otherwise fixed
//              (an output axis split to follow a tile, follow_axes.h)
// The lengths of one stage's tiles are drawn together, so that its threads
// per block stay within the target's limit and are mostly whole warps, its
// vthreads within what lowering unrolls, and the outputs each thread keeps
// in registers and the reduce depth of its shared tiles bounded (the
// resource checks of lowering reject what still does not fit: shared
// memory per block). Stages with reduce loops get an auto-unroll pragma.
#include <algorithm>
#include <initializer_list>
#include <map>

#include "lower/check_gpu_launch.h"
#include "search/sketch_rules.h"

namespace tunectl::search {

namespace {

using schedule::SplitStep;
using schedule::State;

int64_t product_at(const std::vector<SplitStep*>& splits, size_t level) {
  int64_t p = 1;
  for (const SplitStep* s : splits) p *= s->lengths[level];
  return p;
}

// One level's length out of what is left of an axis, within bound: mostly
// a divisor, now and then any length (a guarded, non-dividing tile).
int64_t draw_length(int64_t remaining, int64_t bound, std::mt19937_64& rng) {
  const int64_t max = std::max<int64_t>(1, std::min(remaining, bound));
  if (pick(rng, 8) == 0) return std::uniform_int_distribution<int64_t>(1, max)(rng);
  const std::vector<int64_t> d = divisors(remaining, max);
  return d[pick(rng, d.size())];
}

// The tile of one stage: its spatial splits (vthread, thread, inner,
// inner) and reduce splits (inner, inner). Levels are drawn hardware first
// (threads, then vthreads, then the outputs each thread keeps), each within
// what the axes drawn before left of its budget, until the threads are
// whole warps (when aligned) and at least a warp.
void draw_tile(const std::vector<SplitStep*>& spatial, const std::vector<SplitStep*>& reduce, std::mt19937_64& rng,
               const SearchParams& params) {
  const target::GpuFacts& gpu = params.target.gpu;
  int64_t space = 1;
  for (const SplitStep* s : spatial) space *= s->extent;
  const bool aligned = chance(rng, params.gpu_warp_aligned_prob) && space % gpu.warp_size == 0;
  for (int draw = 0; draw < params.gpu_tile_draws; ++draw) {
    std::vector<int64_t> remaining;
    for (SplitStep* s : spatial) {
      s->lengths.assign(4, 1);
      remaining.push_back(s->extent);
    }
    // Levels in the order of their budgets; axes in a random order, so no
    // axis always gets the first pick.
    std::vector<size_t> axes(spatial.size());
    for (size_t a = 0; a < axes.size(); ++a) axes[a] = a;
    auto level = [&](std::initializer_list<size_t> levels, int64_t budget) {
      std::shuffle(axes.begin(), axes.end(), rng);
      for (size_t l : levels)
        for (size_t a : axes) {
          const int64_t f = draw_length(remaining[a], budget, rng);
          spatial[a]->lengths[l] = f;
          remaining[a] /= f;
          budget /= f;
        }
    };
    level({1}, gpu.max_threads_per_block);
    level({0}, lower::kMaxVirtualThreads);
    // The vthreads' tiles are outputs of the same thread too.
    level({3, 2}, std::max<int64_t>(1, params.gpu_max_thread_outputs / product_at(spatial, 0)));
    const int64_t threads = product_at(spatial, 1);
    if ((!aligned || threads % gpu.warp_size == 0) && threads >= std::min<int64_t>(gpu.warp_size, space)) break;
  }
  int64_t depth_budget = params.gpu_max_reduce_tile;
  for (SplitStep* s : reduce) {
    int64_t remaining = s->extent;
    for (size_t l : {1, 0}) {
      s->lengths[l] = draw_length(remaining, depth_budget, rng);
      remaining /= s->lengths[l];
      depth_budget /= s->lengths[l];
    }
  }
}

// Threads per block of an output bound without tiles: whole warps up to
// the target's limit, or the whole extent when it is shorter than a warp.
int64_t draw_thread_count(int64_t extent, std::mt19937_64& rng, const SearchParams& params) {
  const target::GpuFacts& gpu = params.target.gpu;
  if (extent <= gpu.warp_size) return extent;
  std::vector<int64_t> counts;
  for (int64_t t = gpu.warp_size; t <= gpu.max_threads_per_block && t < 2 * extent; t *= 2) counts.push_back(t);
  return counts[pick(rng, counts.size())];
}

// Threads per block of a kernel with a cross-thread reduction, one count
// for every thread-count split (they share the block, and the reduction
// combines all of it): a power of two, from a warp (or the longest extent
// rounded up to a power of two, when shorter) to the target's limit, below
// twice the longest extent; or the longest extent rounded up to whole
// warps (a row of 768: 24 warps, none idle).
int64_t draw_block_threads(const std::vector<SplitStep*>& splits, std::mt19937_64& rng, const SearchParams& params) {
  const target::GpuFacts& gpu = params.target.gpu;
  int64_t longest = 1;
  for (const SplitStep* s : splits) longest = std::max(longest, s->extent);
  int64_t first = 1;
  while (first < std::min<int64_t>(gpu.warp_size, longest)) first *= 2;
  std::vector<int64_t> counts;
  for (int64_t t = first; t <= gpu.max_threads_per_block && (t < 2 * longest || t == first); t *= 2) counts.push_back(t);
  const int64_t warps = (longest + gpu.warp_size - 1) / gpu.warp_size * gpu.warp_size;
  if (longest > gpu.warp_size && warps <= gpu.max_threads_per_block &&
      std::find(counts.begin(), counts.end(), warps) == counts.end())
    counts.push_back(warps);
  return counts[pick(rng, counts.size())];
}

bool has_cross_thread_reduction(const State& s) {
  return std::any_of(s.stages.begin(), s.stages.end(), [](const schedule::Stage& st) {
    return std::any_of(st.leaves.begin(), st.leaves.end(), [&](int id) {
      return st.iters[id].kind == ir::IterKind::Reduce && st.iters[id].annotation == schedule::IterAnnotation::ThreadX;
    });
  });
}

bool fetch_vector_split(const std::vector<schedule::Step>& h, size_t k) {
  const auto* next = k + 1 < h.size() ? std::get_if<schedule::FollowFusedSplitStep>(&h[k + 1]) : nullptr;
  return next != nullptr && next->stage == std::get<SplitStep>(h[k]).stage;
}

// Whether the split at h[k] has its inner part bound to threadIdx.x by one
// of the next two steps (gpu_sketch.cpp binds a thread count so).
bool thread_count_split(const std::vector<schedule::Step>& h, size_t k) {
  const SplitStep& split = std::get<SplitStep>(h[k]);
  for (size_t next = k + 1; next < std::min(h.size(), k + 3); ++next) {
    const auto* bind = std::get_if<schedule::AnnotationStep>(&h[next]);
    if (bind != nullptr && bind->stage == split.stage && bind->iter == split.iter + 1 &&
        bind->annotation == "threadIdx.x")
      return true;
  }
  return false;
}

// A shared cache stage as the sketch leaves it: outer, threads, vector.
bool is_cooperative_fetch(const schedule::Stage& st) {
  return st.op->buffer->scope == ir::MemScope::Shared && st.leaves.size() == 3 &&
         st.leaf(1).annotation == schedule::IterAnnotation::ThreadX;
}

bool has_reduce_loop(const schedule::Stage& st) {
  return std::any_of(st.leaves.begin(), st.leaves.end(),
                     [&](int id) { return st.iters[id].kind == ir::IterKind::Reduce; });
}

}  // namespace

std::optional<State> draw_gpu_annotation(const State& sketch, std::mt19937_64& rng, const SearchParams& params) {
  std::vector<schedule::Step> history = sketch.history;
  std::map<int, std::vector<SplitStep*>> spatial, reduce;
  std::vector<SplitStep*> thread_counts;
  for (size_t k = 0; k < history.size(); ++k) {
    auto* split = std::get_if<SplitStep>(&history[k]);
    if (split == nullptr) continue;
    if (split->lengths.size() == 4) {
      spatial[split->stage].push_back(split);
    } else if (split->lengths.size() == 2) {
      reduce[split->stage].push_back(split);
    } else if (fetch_vector_split(history, k)) {
      const std::vector<int64_t>& lengths = params.gpu_fetch_vector_lengths;
      split->lengths = {lengths.empty() ? 1 : lengths[pick(rng, lengths.size())]};
    } else if (thread_count_split(history, k)) {
      thread_counts.push_back(split);
    }
  }
  if (has_cross_thread_reduction(sketch)) {
    const int64_t threads = draw_block_threads(thread_counts, rng, params);
    for (SplitStep* split : thread_counts) split->lengths = {threads};
  } else {
    for (SplitStep* split : thread_counts) split->lengths = {draw_thread_count(split->extent, rng, params)};
  }
  for (auto& [stage, splits] : spatial) draw_tile(splits, reduce[stage], rng, params);
  std::optional<State> tiled = schedule::try_replay(sketch.dag, history);
  if (!tiled) return std::nullopt;
  // Half the programs double-buffer their shared tiles (lower/double_buffer.h).
  const bool double_buffer = pick(rng, 2) == 1;
  return schedule::try_edit(*tiled, [&](State& s) {
    for (int i = 0; i < static_cast<int>(s.stages.size()); ++i) {
      const schedule::Stage& st = s.stages[i];
      if (is_cooperative_fetch(st) && st.leaf(2).extent > 1) s.apply(schedule::AnnotationStep{i, 2, "vectorize"});
      if (is_cooperative_fetch(st) && double_buffer) s.apply(schedule::PragmaStep{i, 0, "double_buffer"});
      if (st.op->is_placeholder() || st.attach.kind == schedule::AttachKind::Inline || !has_reduce_loop(st)) continue;
      add_auto_unroll(s, i, rng, params.auto_unroll_configs);
    }
  });
}

}  // namespace tunectl::search
