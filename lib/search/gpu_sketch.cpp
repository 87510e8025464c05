// The GPU sketch rules (sketch_rules.h; Ansor's GPU policy, ALGORITHMS.md).
// A task is one kernel, so every stage ends up either inlined, computed per
// thread inside its reader's thread loop, or as an output spread over
// blocks and threads. Rules, from the last stage to the first:
//   always-inline       an elementwise stage that is not an output is inlined
//   cross-thread        beside whatever else a reduction gets, where it
//   reduction           has more iterations per output than a warp (with
//                       data reuse: too few outputs for tiles), a sketch
//                       whose reduce loops are fused, split by a thread
//                       count and bound to threadIdx.x (the block's threads
//                       combine their shares, lower/loop_nest.cpp): an
//                       output gets a block per output; otherwise it is
//                       computed at the block loop of the output its
//                       readers compute in, which is bound by rows (its
//                       leading axes to blockIdx.x, the trailing ones, a
//                       row per reduction output, split by the thread
//                       count: softmax's max and sum, layer norm's moments)
//   multi-level tiling  an output reduction with data reuse (or one whose
//                       only reader is an elementwise output, fused) gets
//                       SSSRRSRS tiles: the output's first three spatial
//                       levels fused and bound to blockIdx.x, vthread and
//                       threadIdx.x, the reduction computed per thread at
//                       the thread loop (a local cache-write stage when no
//                       elementwise consumer takes the output), and every
//                       input it reads at loop indices (not gathers)
//                       cached in shared memory at the
//                       outermost reduce tile, fetched cooperatively: the
//                       cache's loops fused, split by the tile's threads
//                       (FollowFusedSplit, so mutations keep it in step) and
//                       by a vector length, bound to threadIdx.x; a second
//                       sketch stores each shared tile whose innermost axis
//                       is not the one the tile's loops walk innermost in
//                       their walk order (a matmul's A tile k-major)
// and once every stage is visited (finish_gpu_sketch), from the last stage
// to the first again:
//   thread binding      any other output: its spatial loops fused, split by
//                       a thread count, bound to blockIdx.x and threadIdx.x
//   per-thread compute  any other stage is computed inside its reader's
//                       thread loop
// (Binding comes last so that an elementwise output is still untouched when
// the tiled stage it consumes is visited, and can follow its tiles.)
// Tile lengths, thread counts and vector lengths are placeholders of length
// 1 that annotation (gpu_annotation.cpp) draws.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "ir/error.h"
#include "ir/functor.h"
#include "lower/loop_nest.h"
#include "schedule/stage_graph.h"
#include "search/follow_axes.h"
#include "search/sketch_rules.h"

namespace tunectl::search {

namespace {

using schedule::State;

// "SSSRRSRS": each spatial axis splits into five loops (block, vthread,
// thread, two inner levels), each reduce axis into three; the output
// follows the first three spatial levels (then the rest).
constexpr int kBoundLevels = 3;

// Binds an output stage's leading loops: positions 0..n-1 hold the axes of
// each level in turn (`levels` of them, n axes each); each level is fused
// into one loop and bound to tags[level].
void fuse_and_bind_levels(State& s, int i, int n, const std::vector<const char*>& tags) {
  for (int level = 0; level < static_cast<int>(tags.size()); ++level) {
    if (n > 1) {
      std::vector<int> iters;
      for (int a = 0; a < n; ++a) iters.push_back(level + a);
      s.apply(schedule::FuseStep{i, iters});
    }
    s.apply(schedule::AnnotationStep{i, level, tags[level]});
  }
}

// The thread-bound loop inside which a reader of stage r computes: its own
// threadIdx.x loop when r is bound, else where r itself is computed.
std::pair<int, int> thread_point(const State& s, int r) {
  const schedule::Stage& st = s.stages[r];
  if (st.attach.kind == schedule::AttachKind::Iter)
    return {st.attach.target_stage, s.stages[st.attach.target_stage].leaf_position(st.attach.target_iter)};
  for (int p = static_cast<int>(st.leaves.size()) - 1; p >= 0; --p)
    if (st.leaf(p).annotation == schedule::IterAnnotation::ThreadX) return {r, p};
  return {-1, -1};
}

// Whether stage i reads stage p only at indices computed from its loop
// variables. A read whose index loads another tensor (a gather: DeformConv
// at its offsets) has no tile of p to stage in shared memory.
bool reads_at_loop_indices(const State& s, int i, int p) {
  const ir::Buffer& buffer = s.stages[p].op->buffer;
  bool indirect = false;
  ir::post_order_visit(s.stages[i].op->body, [&](const ir::Expr& e) {
    const auto* load = e.as<ir::LoadNode>();
    if (!load || !load->buffer.same_as(buffer)) return;
    for (const ir::Expr& index : load->indices)
      ir::post_order_visit(index, [&](const ir::Expr& x) { indirect = indirect || x.kind() == ir::ExprKind::Load; });
  });
  return !indirect;
}

// The order, outermost first, in which stage i's innermost SSSRRSRS loops
// walk the axes of its input p: each axis keyed by the innermost of i's
// axes its index uses (the last S level's spatial axes are the innermost
// loops, the last R level's reduce axes the next), ties in axis order. A
// shared tile of p stored in this order keeps the elements one thread reads
// in turn side by side: a matmul's A tile k-major, read as float4
// fragments with no bank conflicts.
std::vector<int> walk_order(const State& s, int i, int p) {
  const te::TensorNode& op = *s.stages[i].op;
  std::map<const ir::ExprNode*, int> rank;  // higher: walked further inside
  const std::vector<ir::IterVar>& reduce_axes = op.reduce()->axes;
  for (size_t r = 0; r < reduce_axes.size(); ++r) rank[reduce_axes[r].var.get()] = static_cast<int>(1 + r);
  for (size_t a = 0; a < op.axes.size(); ++a)
    rank[op.axes[a].var.get()] = static_cast<int>(1 + reduce_axes.size() + a);
  std::vector<int> key;
  ir::post_order_visit(op.body, [&](const ir::Expr& e) {
    const auto* load = e.as<ir::LoadNode>();
    if (!load || !key.empty() || !load->buffer.same_as(s.stages[p].op->buffer)) return;
    for (const ir::Expr& index : load->indices) {
      int k = 0;
      ir::post_order_visit(index, [&](const ir::Expr& x) {
        if (auto it = rank.find(x.get()); it != rank.end()) k = std::max(k, it->second);
      });
      key.push_back(k);
    }
  });
  std::vector<int> order(key.size());
  for (size_t a = 0; a < order.size(); ++a) order[a] = static_cast<int>(a);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return key[x] < key[y]; });
  return order;
}

// Whether a walk order's innermost axis is not the tile's own innermost.
bool out_of_order(const std::vector<int>& order) {
  return !order.empty() && order.back() != static_cast<int>(order.size()) - 1;
}

// SSSRRSRS tiles of stage i, computed at the thread loop of its output c,
// which follows the tile's first three spatial levels; then a shared cache
// of every input i reads at loop indices, fetched cooperatively at i's
// outermost reduce tile. With `walk_ordered`, each cache whose innermost
// axis is not the one i walks innermost is stored in i's walk order
// (walk_order).
void tile_for_gpu(State& s, int i, int c, bool walk_ordered) {
  const int n_spatial = static_cast<int>(s.stages[i].op->axes.size());
  const int n_reduce = static_cast<int>(s.stages[i].leaves.size()) - n_spatial;
  const std::vector<int> spatial_splits = multi_level_tile(s, i, "SSSRRSRS");

  // The output: block, vthread, thread parts of every axis, then the rest.
  for (int a = n_spatial - 1; a >= 0; --a) s.apply(schedule::FollowSplitStep{c, a, spatial_splits[a], kBoundLevels});
  std::vector<int> c_order;
  for (int level = 0; level <= kBoundLevels; ++level)
    for (int a = 0; a < n_spatial; ++a) c_order.push_back(a * (kBoundLevels + 1) + level);
  s.apply(schedule::ReorderStep{c, c_order});
  fuse_and_bind_levels(s, c, n_spatial, {"blockIdx.x", "vthread", "threadIdx.x"});
  s.apply(schedule::ComputeAtStep{i, c, 2});

  // Shared caches, last input first so the earlier inputs keep their
  // indices; each inserted stage moves i one on.
  const int outer_reduce = 3 * n_spatial + n_reduce - 1;
  std::vector<int> inputs = stages_read_by(s, i);
  std::erase_if(inputs, [&](int p) { return !reads_at_loop_indices(s, i, p); });
  for (auto it = inputs.rbegin(); it != inputs.rend(); ++it) {
    const int p = *it;
    const std::vector<int> order = walk_order(s, i, p);
    s.apply(schedule::CacheReadStep{p, "shared", {i}});
    ++i;
    const int cache = p + 1;
    if (walk_ordered && out_of_order(order)) s.apply(schedule::StorageOrderStep{cache, order});
    s.apply(schedule::ComputeAtStep{cache, i, outer_reduce});
    // Cooperative fetch: fused, split by a vector length (placeholder), the
    // outer part split by the tile's threads and bound to them.
    const int dims = static_cast<int>(s.stages[cache].leaves.size());
    if (dims > 1) {
      std::vector<int> all;
      for (int k = 0; k < dims; ++k) all.push_back(k);
      s.apply(schedule::FuseStep{cache, all});
    }
    s.apply(schedule::SplitStep{cache, 0, s.stages[cache].leaf(0).extent, {1}, true});
    s.apply(schedule::FollowFusedSplitStep{cache, 0, spatial_splits, 1, true});
    s.apply(schedule::AnnotationStep{cache, 1, "threadIdx.x"});
  }
}

// An output without tiles: its spatial loops fused and split by a thread
// count (placeholder), bound to blocks and threads; reduce loops stay in
// each thread.
void bind_threads(State& s, int i) {
  const schedule::Stage& st = s.stages[i];
  std::vector<int> space;
  for (int p = 0; p < static_cast<int>(st.leaves.size()) && st.leaf(p).kind == ir::IterKind::Spatial; ++p)
    space.push_back(p);
  if (space.empty()) return;  // a scalar: one thread
  if (space.size() > 1) s.apply(schedule::FuseStep{i, space});
  s.apply(schedule::SplitStep{i, 0, s.stages[i].leaf(0).extent, {1}, true});
  s.apply(schedule::AnnotationStep{i, 0, "blockIdx.x"});
  s.apply(schedule::AnnotationStep{i, 1, "threadIdx.x"});
}

// Ansor's condition for a cross-thread reduction: more iterations per
// output than a warp, and for a reduction with reuse, too little space for
// its tiles to fill the GPU (no more outputs than iterations, nor than 16
// per SM). Only the types warp shuffles move.
bool worth_reducing_across_threads(const State& s, int i, const SearchParams& params) {
  const te::Tensor& op = s.stages[i].op;
  if (op->reduce() == nullptr || !lower::reduces_across_threads(op->reduce()->dtype)) return false;
  const target::GpuFacts& gpu = params.target.gpu;
  const int64_t reduce = reduce_extent(op);
  if (!has_data_reuse(op)) return reduce > gpu.warp_size;
  const int64_t space = product(op->shape(), 0, op->shape().size());
  return space <= reduce && space <= 16 * std::max(gpu.sm_count, 1);
}

// Stage i's reduce loops (its last leaves, still untouched) fused and split
// by a thread count (placeholder), the inner part bound to threadIdx.x: the
// block's threads share each output's reduction (lower/loop_nest.cpp).
void bind_reduce_to_threads(State& s, int i) {
  const schedule::Stage& st = s.stages[i];
  const int n = static_cast<int>(st.leaves.size());
  int first = 0;
  while (first < n && st.leaf(first).kind == ir::IterKind::Spatial) ++first;
  if (n - first > 1) {
    std::vector<int> reduce;
    for (int p = first; p < n; ++p) reduce.push_back(p);
    s.apply(schedule::FuseStep{i, reduce});
  }
  s.apply(schedule::SplitStep{i, first, s.stages[i].leaf(first).extent, {1}, true});
  s.apply(schedule::AnnotationStep{i, first + 1, "threadIdx.x"});
}

// The output in which every reader of stage i computes: itself, or attached
// at its block loop. -1 if there is none.
int row_output(const State& s, int i) {
  int o = -1;
  for (int r : schedule::effective_readers(s, i)) {
    const schedule::Stage& reader = s.stages[r];
    int at = r;
    if (reader.attach.kind == schedule::AttachKind::Iter) {
      if (s.stages[reader.attach.target_stage].leaf_position(reader.attach.target_iter) != 0) return -1;
      at = reader.attach.target_stage;
    } else if (reader.attach.kind != schedule::AttachKind::Root) {
      return -1;
    }
    if (o >= 0 && at != o) return -1;
    o = at;
  }
  return o >= 0 && schedule::is_output_stage(s, o) && s.stages[o].attach.kind == schedule::AttachKind::Root ? o : -1;
}

// Output o bound by the rows that reduction i's outputs serve: its leading
// axes, one block per output of i, fused and bound to blockIdx.x; its
// trailing axes, whose extents multiply to i's iterations per output,
// fused and split by a thread count (placeholder), the inner part bound to
// threadIdx.x. An o of i's own shape (an elementwise consumer) has no row:
// all its axes make the block. UserError where no axes split that way;
// nothing to do where an earlier reduction bound o already.
void bind_rows(State& s, int o, int i) {
  const schedule::Stage& out = s.stages[o];
  if (out.leaf(0).annotation == schedule::IterAnnotation::BlockX) return;
  const bool untouched = out.leaves.size() == out.op->axes.size() &&
                         std::all_of(out.leaves.begin(), out.leaves.end(), [&](int id) {
                           return out.iters[id].annotation == schedule::IterAnnotation::None;
                         });
  user_check(untouched, "output ", out.op->name, " is scheduled already");
  const std::vector<int64_t> shape = out.op->shape();
  const std::vector<int64_t> outputs = s.stages[i].op->shape();
  const int m = static_cast<int>(shape.size());
  int rows_from = shape == outputs ? m : -1;
  const int64_t served = product(outputs, 0, outputs.size());
  for (int j = m - 1; j >= 1 && rows_from < 0; --j) {
    if (product(shape, j, m) == reduce_extent(s.stages[i].op) && product(shape, 0, j) == served) rows_from = j;
  }
  user_check(rows_from >= 1, "output ", out.op->name, " has no rows of ", s.stages[i].op->name, "'s reductions");
  std::vector<int> lead, row;
  for (int a = 0; a < m; ++a) (a < rows_from ? lead : row).push_back(a);
  if (lead.size() > 1) s.apply(schedule::FuseStep{o, lead});
  s.apply(schedule::AnnotationStep{o, 0, "blockIdx.x"});
  if (row.empty()) return;
  if (row.size() > 1) {
    std::vector<int> at;
    for (size_t k = 0; k < row.size(); ++k) at.push_back(static_cast<int>(1 + k));
    s.apply(schedule::FuseStep{o, at});
  }
  s.apply(schedule::SplitStep{o, 1, s.stages[o].leaf(1).extent, {1}, true});
  s.apply(schedule::AnnotationStep{o, 2, "threadIdx.x"});
}

// The cross-thread reduction sketch of stage i: an output without readers
// gets one block per output; otherwise i is computed at the block loop of
// the output its readers compute in, bound by rows (bind_rows). Either
// way the block's threads share each output's reduction.
void reduce_across_threads(State& s, int i) {
  if (schedule::is_output_stage(s, i) && schedule::effective_readers(s, i).empty()) {
    const int n_spatial = static_cast<int>(s.stages[i].op->axes.size());
    if (n_spatial > 1) {
      std::vector<int> space;
      for (int a = 0; a < n_spatial; ++a) space.push_back(a);
      s.apply(schedule::FuseStep{i, space});
    }
    bind_reduce_to_threads(s, i);
    if (n_spatial > 0) s.apply(schedule::AnnotationStep{i, 0, "blockIdx.x"});
    return;
  }
  const int o = row_output(s, i);
  user_check(o >= 0, "the readers of ", s.stages[i].op->name, " do not compute in one output");
  bind_rows(s, o, i);
  s.apply(schedule::ComputeAtStep{i, o, 0});
  bind_reduce_to_threads(s, i);
}

// The only reader of stage i where it is an output that reads i through
// reshapes and transposes its loops can follow, with the plan that makes
// them follow (follow_axes.h).
struct LayoutReader {
  int stage;
  FollowPlan plan;
};

std::optional<LayoutReader> layout_reader(const State& s, int i) {
  const std::vector<int> readers = schedule::effective_readers(s, i);
  if (readers.size() != 1 || !schedule::is_output_stage(s, readers[0]) ||
      s.stages[readers[0]].attach.kind != schedule::AttachKind::Root)
    return std::nullopt;
  std::optional<FollowPlan> plan = follow_axes(s, i, readers[0]);
  if (!plan) return std::nullopt;
  return LayoutReader{readers[0], std::move(*plan)};
}

}  // namespace

std::vector<State> expand_gpu(const State& s, int i, const SearchParams& params) {
  const schedule::Stage& st = s.stages[i];
  if (st.op->is_placeholder() || st.attach.kind != schedule::AttachKind::Root) return {s};
  std::vector<State> out;
  auto branch = [&](const std::function<void(State&)>& rule) {
    if (std::optional<State> next = schedule::try_edit(s, rule)) out.push_back(std::move(*next));
  };
  const bool output = schedule::is_output_stage(s, i);
  if (st.op->reduce() == nullptr && !output) {
    branch([&](State& n) { n.apply(schedule::ComputeInlineStep{i}); });
  } else if (has_data_reuse(st.op)) {
    const int c = fusible_consumer(s, i);
    // The shared tiles row-major, and where some tile's loops walk it in
    // another order, a second sketch with the tiles stored in that order.
    std::vector<int> inputs = stages_read_by(s, i);
    const bool reorderable = std::any_of(inputs.begin(), inputs.end(), [&](int p) {
      return reads_at_loop_indices(s, i, p) && out_of_order(walk_order(s, i, p));
    });
    const bool consumer_output = c >= 0 && schedule::is_output_stage(s, c);
    const std::optional<LayoutReader> reader =
        consumer_output || output ? std::nullopt : layout_reader(s, i);
    for (bool walk_ordered : {false, true}) {
      if (walk_ordered && !reorderable) break;
      if (consumer_output) {
        branch([&](State& n) { tile_for_gpu(n, i, c, walk_ordered); });
      } else if (output) {
        branch([&](State& n) {
          n.apply(schedule::CacheWriteStep{i, "local"});
          tile_for_gpu(n, i, i + 1, walk_ordered);
        });
      } else if (reader) {
        branch([&](State& n) {
          apply_follow_axes(n, reader->stage, reader->plan);
          tile_for_gpu(n, i, reader->stage, walk_ordered);
        });
      }
    }
  }
  if (out.empty()) out.push_back(s);
  // Beside the per-thread (or tiled) reduction, one across threads.
  if (worth_reducing_across_threads(s, i, params)) branch([&](State& n) { reduce_across_threads(n, i); });
  return out;
}

State finish_gpu_sketch(const State& s) {
  State out = s;
  for (int i = static_cast<int>(out.stages.size()) - 1; i >= 0; --i) {
    const schedule::Stage& st = out.stages[i];
    if (st.op->is_placeholder() || st.attach.kind != schedule::AttachKind::Root) continue;
    const bool bound = std::any_of(st.leaves.begin(), st.leaves.end(), [&](int id) {
      return st.iters[id].annotation != schedule::IterAnnotation::None;
    });
    std::optional<State> next;
    if (schedule::is_output_stage(out, i)) {
      if (!bound) next = schedule::try_edit(out, [&](State& n) { bind_threads(n, i); });
    } else if (const std::vector<int> readers = schedule::effective_readers(out, i); !readers.empty()) {
      // Computed per thread where its first reader computes.
      const auto [target, position] = thread_point(out, readers.front());
      if (target >= 0)
        next = schedule::try_edit(out, [&](State& n) { n.apply(schedule::ComputeAtStep{i, target, position}); });
    }
    if (next) out = std::move(*next);
  }
  return out;
}

}  // namespace tunectl::search
