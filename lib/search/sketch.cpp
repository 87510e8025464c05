// Sketch generation (sketch.h): the driver, the stage queries every target's
// rules share (sketch_rules.h), and the CPU rules of Ansor's sketch policy,
// which turn a
// ComputeDAG into a few loop structures with placeholder tile sizes, which
// annotation (sketch_annotation.cpp) completes into the search's initial
// population. Stages are visited from the last to the first; a rule that
// applies may branch (several sketches). Each DAG op is looked up by its
// buffer, since a packed copy (cache_read) shifts the stages after its input.
#include <algorithm>
#include <functional>
#include <limits>
#include <optional>

#include "ir/error.h"
#include "ir/functor.h"
#include "ir/substitute.h"
#include "schedule/stage_graph.h"
#include "search/sketch.h"
#include "search/sketch_rules.h"

namespace tunectl::search {

namespace {

using schedule::State;

// Sketch branches multiply across stages; beyond this many the later
// (rarer) combinations are dropped, keeping generation deterministic.
constexpr size_t kMaxSketches = 16;

class LoadCollector : public ir::IRVisitor {
 public:
  std::vector<const ir::LoadNode*> loads;

 protected:
  void visit_Load(const ir::LoadNode* op) override {
    loads.push_back(op);
    ir::IRVisitor::visit_Load(op);
  }
};

// Multi-level tiling of stage i in the CPU's SSRSRS order. Returns the
// history index of each spatial axis's split.
std::vector<int> tile(State& s, int i) { return multi_level_tile(s, i, "SSRSRS"); }

// Tiling of stage i with consumer c following its outermost spatial tiles;
// i is computed inside c's outer tile loops, where bound inference shrinks
// i's outermost loops to one iteration, so i computes one whole outer tile
// (its register and cache tiles inside) per iteration of c. outer_axes
// orders c's outer tile loops (all spatial axes; empty: axis order).
void tile_with_fusion(State& s, int i, int c, std::vector<int> outer_axes = {}) {
  std::vector<int> splits = tile(s, i);
  const int n = static_cast<int>(splits.size());
  for (int a = n - 1; a >= 0; --a) s.apply(schedule::FollowSplitStep{c, a, splits[a], 1});
  if (outer_axes.empty())
    for (int a = 0; a < n; ++a) outer_axes.push_back(a);
  std::vector<int> order;
  for (int a : outer_axes) order.push_back(2 * a);
  for (int a = 0; a < n; ++a) order.push_back(2 * a + 1);
  s.apply(schedule::ReorderStep{c, order});
  s.apply(schedule::ComputeAtStep{i, c, n - 1});
}

// The input of stage i worth packing: read directly, its innermost index
// following i's last (vector) axis, and missing another spatial axis of i,
// so each outer tile streams a strided panel of it many times (B of a
// matmul, the padded image of an NCHW convolution). The axes it uses come
// back in `used`; -1 if no input qualifies.
int packable_input(const State& s, int i, std::vector<int>& used) {
  const te::Tensor& op = s.stages[i].op;
  const std::vector<ir::IterVar>& axes = op->axes;
  LoadCollector c;
  c.visit(op->body);
  for (int p = 0; p < i; ++p) {
    const te::Tensor& in = s.stages[p].op;
    std::vector<const ir::LoadNode*> loads;
    for (const ir::LoadNode* l : c.loads)
      if (l->buffer.same_as(in->buffer)) loads.push_back(l);
    if (loads.size() != 1) continue;
    const ir::LoadNode* load = loads[0];
    if (load->indices.empty() || !ir::uses_var(load->indices.back(), axes.back().var)) continue;
    used.clear();
    for (int a = 0; a < static_cast<int>(axes.size()); ++a) {
      bool uses = std::any_of(load->indices.begin(), load->indices.end(),
                              [&](const ir::Expr& e) { return ir::uses_var(e, axes[a].var); });
      if (uses) used.push_back(a);
    }
    if (used.size() < axes.size()) return p;
  }
  return -1;
}

// Tiling with fusion (into consumer c, or into a cache-write copy when c <
// 0) plus a packed copy of input p: c's outer tile loops put the axes p
// uses first, and the copy is computed at the last of them, so one packed
// contiguous panel serves all the outer tiles of the axes p does not use
// (GotoBLAS-style packing, which Ansor's CPU rules lack). A constant p (a
// weight) is prepacked: the kernel takes every panel packed at load time
// (Ansor's layout rewrite) and packs nothing itself.
void tile_with_packing(State& s, int i, int c, int p, const std::vector<int>& used) {
  const bool constant = s.stages[p].op->is_placeholder() && s.stages[p].op->constant;
  s.apply(schedule::CacheReadStep{p, "local", {i}});
  ++i;
  if (c < 0) {
    s.apply(schedule::CacheWriteStep{i, "local"});
    c = i + 1;
  } else {
    ++c;
  }
  std::vector<int> outer_axes = used;
  for (int a = 0; a < static_cast<int>(s.stages[i].op->axes.size()); ++a)
    if (std::find(used.begin(), used.end(), a) == used.end()) outer_axes.push_back(a);
  tile_with_fusion(s, i, c, outer_axes);
  s.apply(schedule::ComputeAtStep{p + 1, c, static_cast<int>(used.size()) - 1});
  if (constant) s.apply(schedule::PrepackStep{p + 1});
}

// Rfactor of a reduction with little spatial parallelism: the reduce loops
// fused and split (placeholder), the inner part becoming a spatial axis of a
// partial-sum stage that runs in parallel.
void add_rfactor(State& s, int i) {
  const schedule::Stage& st = s.stages[i];
  const int n_spatial = static_cast<int>(st.op->axes.size());
  const int n = static_cast<int>(st.leaves.size());
  if (n - n_spatial > 1) {
    std::vector<int> reduce_positions;
    for (int p = n_spatial; p < n; ++p) reduce_positions.push_back(p);
    s.apply(schedule::FuseStep{i, reduce_positions});
  }
  int64_t extent = s.stages[i].leaf(n_spatial).extent;
  s.apply(schedule::SplitStep{i, n_spatial, extent, {1}, true});
  s.apply(schedule::RfactorStep{i, n_spatial + 1, n_spatial});
}

// Rfactor of a reduction with enough spatial parallelism but a serial
// accumulation per output (softmax's max and sum, layer norm's moments: one
// add's latency per element): the reduce loops fused and split (placeholder),
// the inner part a spatial axis of a partial-result stage, innermost there
// so it vectorizes, each output's partials computed at its loop of the
// final stage. One vector of accumulators per output, then a short
// cross-lane reduction.
void add_vector_rfactor(State& s, int i) {
  const int n_spatial = static_cast<int>(s.stages[i].op->axes.size());
  add_rfactor(s, i);
  // Now stage i holds the partials (spatial..., lanes, reduce) and i + 1 the rest.
  std::vector<int> order;
  for (int p = 0; p < n_spatial; ++p) order.push_back(p);
  order.push_back(n_spatial + 1);
  order.push_back(n_spatial);
  s.apply(schedule::ReorderStep{i, order});
  if (n_spatial > 0) s.apply(schedule::ComputeAtStep{i, i + 1, n_spatial - 1});
}

// A reduction without reuse whose innermost spatial axis every load reads
// as its last index, alone (the lanes of a channel-blocked pooling: the
// window or image is reduced along other axes). Reduced in the loop order
// of the op, each output's lanes would be gathered one by one.
bool reads_lanes_contiguously(const te::Tensor& op) {
  if (op->reduce() == nullptr || op->axes.empty() || op->axes.back().extent < 2 || has_data_reuse(op)) return false;
  const ir::Var& lanes = op->axes.back().var;
  LoadCollector c;
  c.visit(op->body);
  return !c.loads.empty() && std::all_of(c.loads.begin(), c.loads.end(), [&](const ir::LoadNode* load) {
    if (load->indices.empty() || !load->indices.back().same_as(lanes)) return false;
    return std::none_of(load->indices.begin(), load->indices.end() - 1,
                        [&](const ir::Expr& e) { return ir::uses_var(e, lanes); });
  });
}

// Such a reduction with its reduce loops moved outside the lanes, which
// then vectorize: one vector of outputs accumulated per point reduced.
void reduce_outside_lanes(State& s, int i) {
  const int n_spatial = static_cast<int>(s.stages[i].op->axes.size());
  std::vector<int> order;
  for (int p = 0; p < static_cast<int>(s.stages[i].leaves.size()); ++p)
    if (p != n_spatial - 1) order.push_back(p);
  order.push_back(n_spatial - 1);
  s.apply(schedule::ReorderStep{i, order});
}

// A pass of a Winograd transform (ops/conv2d_winograd.h): an element-wise
// stage tagged "winograd" over [rows, columns, tiles, blocks, lanes], a chain
// of selects over its formulas that only unrolling makes cheap.
bool is_winograd_pass(const te::Tensor& op) {
  return op->tag == "winograd" && op->reduce() == nullptr && op->axes.size() == 5;
}

// The first pass of a separable Winograd transform that stage i completes
// (both passes Winograd passes), the first read only by i. -1 for any
// other stage.
int winograd_first_pass(const State& s, int i) {
  if (!is_winograd_pass(s.stages[i].op)) return -1;
  for (int p : stages_read_by(s, i))
    if (is_winograd_pass(s.stages[p].op) && s.stages[p].attach.kind == schedule::AttachKind::Root &&
        schedule::effective_readers(s, p) == std::vector<int>{i})
      return p;
  return -1;
}

// Both passes of a Winograd transform per tile and channel block: the
// second's loops become (tiles.outer, blocks, tiles.inner, rows, columns,
// lanes), and the first is computed at tiles.inner, its loops (columns,
// rows, lanes): the alpha x alpha vectors of each tile stay in L1 and are
// used at once. Rows and columns are unrolled in both, so that each copy's
// chain of selects over the transform's formulas folds to one formula, and
// the copies of one column (first pass) or row (second) share their loads
// and common sums. Inlined, the first pass would be recomputed for every
// output of the second; multi-level tiling would send each pass's whole
// result through memory. Inside a row of tiles (fuse_winograd_blocks) the
// tiles are not split: (tiles, blocks, rows, columns, lanes), the first
// pass at blocks. A block holds few tiles, and a split that does not divide
// them would take the producers' regions across rows (winograd_blocks_exact).
void fuse_transform_passes(State& s, int i, int p, bool in_block = false) {
  if (in_block) {
    s.apply(schedule::ReorderStep{i, {2, 3, 0, 1, 4}});  // tiles blocks a b lanes
  } else {
    s.apply(schedule::SplitStep{i, 2, s.stages[i].leaf(2).extent, {1}, true});  // a b t.o t.i blocks lanes
    s.apply(schedule::ReorderStep{i, {2, 4, 3, 0, 1, 5}});
  }
  const int tile = in_block ? 1 : 2;  // the loop of one tile and block
  s.apply(schedule::ReorderStep{p, {2, 3, 1, 0, 4}});  // tiles blocks b a lanes
  for (int leaf : {tile + 1, tile + 2}) s.apply(schedule::AnnotationStep{i, leaf, "unroll"});
  for (int leaf : {2, 3}) s.apply(schedule::AnnotationStep{p, leaf, "unroll"});
  s.apply(schedule::ComputeAtStep{p, i, tile});
}

// Loops of the stage a Winograd convolution's blocks are computed in
// (fuse_winograd_blocks): (batch, tile rows, channel blocks, rows in the
// tile, columns, lanes).
constexpr int kTileRowLoop = 1;
constexpr int kChannelBlockLoop = 2;

// Whether root stage k, no Winograd pass itself, computes one at one of its
// loops (fuse_winograd_blocks).
bool is_winograd_block_holder(const State& s, int k) {
  if (s.stages[k].attach.kind != schedule::AttachKind::Root || is_winograd_pass(s.stages[k].op)) return false;
  return std::any_of(s.stages.begin(), s.stages.end(), [&](const schedule::Stage& st) {
    return st.attach.kind == schedule::AttachKind::Iter && st.attach.target_stage == k && is_winograd_pass(st.op);
  });
}

// The stage whose tile-row loop holds every reader of stage i, when that
// stage computes a Winograd output transform at one of its loops (the
// block-fused sketch, fuse_winograd_blocks); -1 otherwise.
int winograd_block_stage(const State& s, int i) {
  const std::vector<int> readers = schedule::effective_readers(s, i);
  if (readers.empty()) return -1;
  int holder = -1;
  for (int r : readers) {
    int k = r;
    while (s.stages[k].attach.kind == schedule::AttachKind::Iter && !is_winograd_block_holder(s, k))
      k = s.stages[k].attach.target_stage;
    if (!is_winograd_block_holder(s, k) || (holder >= 0 && holder != k)) return -1;
    holder = k;
  }
  return holder >= 0 && schedule::encloses_readers(s, i, holder, s.stages[holder].leaf(kTileRowLoop).id) ? holder : -1;
}

// Whether output transform i can be computed per tile row of its consumer
// c: c is i's only reader, element-wise over an untouched channel-blocked
// image (batch, blocks, rows, columns, lanes) at the root.
bool blocks_fit(const State& s, int i, int c) {
  const schedule::Stage& st = s.stages[c];
  return c >= 0 && st.op->reduce() == nullptr && st.attach.kind == schedule::AttachKind::Root &&
         st.relations.empty() && st.op->axes.size() == 5 && st.leaves.size() == 5 &&
         st.op->shape()[4] == s.stages[i].op->shape()[4];
}

// A Winograd convolution computed one row of tiles at a time, as oneDNN and
// NNPACK block theirs: the output transform's consumer c (the image, bias
// and activation inlined) splits its rows by the tile size m and takes the
// loops (batch, tile rows, channel blocks, rows in the tile, columns,
// lanes); the output transform (its passes fused, fuse_transform_passes) is
// computed at the channel-block loop, and the products, the input transform
// and the padding at the tile-row loop as their stages come
// (winograd_block_stage). A row's transformed input and products (tens to
// a hundred and fifty KB) then stay in the L2 between the stages. As root
// stages each sends its whole result (megabytes) through the L3 or, inside
// a model whose weights stream past, DRAM: light ResNet-50's first 3x3
// convolution ran 1.5-1.9x inside the model the time the tuner measured
// with them left in the L3 (which now evicts them:
// runtime::TimingOptions::evict_scratch).
void fuse_winograd_blocks(State& s, int i, int p, int c) {
  const int64_t m = s.stages[i].op->axes[0].extent;
  s.apply(schedule::SplitStep{c, 2, s.stages[c].leaf(2).extent, {m}, true});  // n b y.o y.i x lanes
  s.apply(schedule::ReorderStep{c, {0, 2, 1, 3, 4, 5}});
  fuse_transform_passes(s, i, p, true);
  s.apply(schedule::ComputeAtStep{i, c, kChannelBlockLoop});
}

// A padding of its input (a Select of a load and a constant) that a tiled
// reduction reads directly, as a convolution reads its padded image, or a
// Winograd input transform its tiles. Inlined, every load of the reduction's
// inner loop carries the bounds check (four compares and a branch per
// element of a 7x7 stem on AVX2: 0.40x of oneDNN); computed into a buffer of
// its own first, it leaves the inner loop plain loads and FMAs for the price
// of one copy of the image.
bool padding_of_tiled_input(const State& s, int i) {
  const te::Tensor& op = s.stages[i].op;
  if (op->reduce() != nullptr || op->body.kind() != ir::ExprKind::Select) return false;
  const ir::ExprKind pad_value = op->body.as<ir::SelectNode>()->false_value.kind();
  if (pad_value != ir::ExprKind::FloatImm && pad_value != ir::ExprKind::IntImm) return false;
  const std::vector<int> readers = schedule::effective_readers(s, i);
  return !readers.empty() && std::all_of(readers.begin(), readers.end(), [&](int r) {
    return schedule::reads_directly(s, r, i) && (has_data_reuse(s.stages[r].op) || is_winograd_pass(s.stages[r].op));
  });
}

bool large_serial_reduce(const te::Tensor& op, const SearchParams& params) {
  return reduce_extent(op) >= 2 * params.vector_lanes;
}

bool small_spatial_large_reduce(const te::Tensor& op, const SearchParams& params) {
  const int64_t spatial = product(op->shape(), 0, op->shape().size());
  return op->reduce() != nullptr && spatial <= params.rfactor_max_spatial && reduce_extent(op) > spatial;
}

// The stage that computes op: a packed copy inserted before a stage moves
// it, so the DAG's index is not enough.
int stage_index(const State& s, const te::Tensor& op) {
  for (int i = 0; i < static_cast<int>(s.stages.size()); ++i)
    if (s.stages[i].op->buffer.same_as(op->buffer)) return i;
  internal_check(false, "no stage computes ", op->name);
  return -1;
}

// The product of the inner lengths of stage st's split of root axis 2 (the
// tiles of a Winograd stage, the rows of its image), or 0 without one.
int64_t inner_split_product(const schedule::Stage& st) {
  for (const schedule::IterRelation& rel : st.relations) {
    const auto* split = std::get_if<schedule::SplitRelation>(&rel);
    if (split == nullptr || split->parent != 2) continue;
    int64_t inner = 1;
    for (size_t c = 1; c < split->children.size(); ++c) inner *= st.iters[split->children[c]].extent;
    return inner;
  }
  return 0;
}

// Whether stage j is computed (transitively) inside a loop of stage k.
bool computed_inside(const State& s, int j, int k) {
  while (s.stages[j].attach.kind == schedule::AttachKind::Iter) {
    j = s.stages[j].attach.target_stage;
    if (j == k) return true;
  }
  return false;
}

WinogradTiles tiles_of(const State& s, int k) {
  const std::vector<int64_t> image = s.stages[k].op->shape();  // (batch, blocks, rows, columns, lanes)
  // The tile size: the output transform's first extent (the input
  // transform's, also computed there, is m + 2).
  int64_t m = std::numeric_limits<int64_t>::max();
  for (const schedule::Stage& pass : s.stages)
    if (pass.attach.kind == schedule::AttachKind::Iter && pass.attach.target_stage == k && is_winograd_pass(pass.op))
      m = std::min(m, pass.op->axes[0].extent);
  WinogradTiles t;
  t.m = m;
  t.rows = (image[2] + m - 1) / m;
  t.columns = (image[3] + m - 1) / m;
  t.all = image[0] * t.rows * t.columns;
  return t;
}

}  // namespace

std::optional<WinogradTiles> winograd_tiles(const State& s) {
  for (int k = 0; k < static_cast<int>(s.stages.size()); ++k)
    if (is_winograd_block_holder(s, k)) return tiles_of(s, k);
  return std::nullopt;
}

bool winograd_blocks_exact(const State& s) {
  for (int k = 0; k < static_cast<int>(s.stages.size()); ++k) {
    if (!is_winograd_block_holder(s, k)) continue;
    const WinogradTiles tiles = tiles_of(s, k);
    const int64_t rows = inner_split_product(s.stages[k]);
    if (rows == 0 || rows % tiles.m != 0 || tiles.rows % (rows / tiles.m) != 0) return false;
    const int64_t block_tiles = rows / tiles.m * tiles.columns;
    for (int j = 0; j < static_cast<int>(s.stages.size()); ++j) {
      const te::Tensor& op = s.stages[j].op;
      if (!computed_inside(s, j, k) || op->axes.size() < 3 || op->axes[2].extent != tiles.all) continue;
      const int64_t split = inner_split_product(s.stages[j]);
      if (split > 0 && block_tiles % split != 0) return false;
    }
  }
  return true;
}

int64_t product(const std::vector<int64_t>& v, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t k = begin; k < end; ++k) p *= v[k];
  return p;
}

int64_t reduce_extent(const te::Tensor& op) {
  const ir::ReduceNode* r = op->reduce();
  if (r == nullptr) return 0;
  int64_t reduce = 1;
  for (const ir::IterVar& a : r->axes) reduce *= a.extent;
  return reduce;
}

std::vector<State> expand_cpu(const State& s, int i, const SearchParams& params) {
  const schedule::Stage& st = s.stages[i];
  if (st.op->is_placeholder() || st.attach.kind != schedule::AttachKind::Root) return {s};
  std::vector<State> out;
  // Each branch is tried on a copy; a rule that the state rejects (an
  // output, a stage others attach to) simply does not apply.
  auto branch = [&](const std::function<void(State&)>& rule) {
    if (std::optional<State> next = schedule::try_edit(s, rule)) out.push_back(std::move(*next));
  };
  const int block = winograd_block_stage(s, i);
  if (int p = winograd_first_pass(s, i); p >= 0) {
    if (block >= 0) {
      branch([&](State& n) {
        fuse_transform_passes(n, i, p, true);
        n.apply(schedule::ComputeAtStep{i, block, kTileRowLoop});
      });
    } else {
      branch([&](State& n) { fuse_transform_passes(n, i, p); });
      const std::vector<int> readers = schedule::effective_readers(s, i);
      if (readers.size() == 1 && blocks_fit(s, i, readers[0]))
        branch([&](State& n) { fuse_winograd_blocks(n, i, p, readers[0]); });
    }
  } else if (st.op->reduce() == nullptr) {
    // Always-inline (apply rejects outputs and stages with attached loops),
    // but for a padding, which may also stay a stage of its own.
    branch([&](State& n) { n.apply(schedule::ComputeInlineStep{i}); });
    if (padding_of_tiled_input(s, i)) {
      if (block >= 0)
        branch([&](State& n) { n.apply(schedule::ComputeAtStep{i, block, kTileRowLoop}); });
      else
        out.push_back(s);
    }
  } else if (block >= 0 && has_data_reuse(st.op)) {
    // A Winograd block's products: tiled into a cache-write stage as below,
    // the whole row of tiles computed at the tile-row loop.
    branch([&](State& n) {
      n.apply(schedule::CacheWriteStep{i, "local"});
      tile_with_fusion(n, i, i + 1);
      n.apply(schedule::ComputeAtStep{i + 1, block + 1, kTileRowLoop});
    });
  } else if (has_data_reuse(st.op)) {
    branch([&](State& n) { tile(n, i); });
    int c = fusible_consumer(s, i);
    if (c >= 0) {
      branch([&](State& n) { tile_with_fusion(n, i, c); });
    } else {
      branch([&](State& n) {
        n.apply(schedule::CacheWriteStep{i, "local"});
        tile_with_fusion(n, i, i + 1);
      });
    }
    std::vector<int> used;
    int p = packable_input(s, i, used);
    if (params.enable_packing && p >= 0) branch([&](State& n) { tile_with_packing(n, i, c, p, used); });
  } else if (params.enable_rfactor && small_spatial_large_reduce(st.op, params)) {
    out.push_back(s);
    branch([&](State& n) { add_rfactor(n, i); });
  } else if (params.enable_rfactor && large_serial_reduce(st.op, params)) {
    out.push_back(s);
    branch([&](State& n) { add_vector_rfactor(n, i); });
  }
  if (out.empty()) out.push_back(s);
  if (reads_lanes_contiguously(st.op)) branch([&](State& n) { reduce_outside_lanes(n, i); });
  return out;
}

std::vector<int> multi_level_tile(State& s, int i, const std::string& structure) {
  const int spatial_lengths = static_cast<int>(std::count(structure.begin(), structure.end(), 'S')) - 1;
  const int reduce_lengths = static_cast<int>(std::count(structure.begin(), structure.end(), 'R')) - 1;
  const int n = static_cast<int>(s.stages[i].leaves.size());
  const int n_spatial = static_cast<int>(s.stages[i].op->axes.size());
  std::vector<int> split_steps(n_spatial);
  // Last to first, so the positions still to split do not move.
  for (int p = n - 1; p >= 0; --p) {
    const bool spatial = p < n_spatial;
    if (spatial) split_steps[p] = static_cast<int>(s.history.size());
    s.apply(schedule::SplitStep{i, p, s.stages[i].leaf(p).extent,
                                std::vector<int64_t>(spatial ? spatial_lengths : reduce_lengths, 1), true});
  }
  // Axis a's parts now sit at base(a) + level; the structure takes each
  // kind's levels in turn, every axis of the kind at each.
  auto pos = [&](int axis, int level) {
    const int before_spatial = std::min(axis, n_spatial);
    return before_spatial * (spatial_lengths + 1) + (axis - before_spatial) * (reduce_lengths + 1) + level;
  };
  std::vector<int> order;
  int spatial_level = 0, reduce_level = 0;
  for (char kind : structure) {
    const bool spatial = kind == 'S';
    const int level = spatial ? spatial_level++ : reduce_level++;
    for (int a = spatial ? 0 : n_spatial; a < (spatial ? n_spatial : n); ++a) order.push_back(pos(a, level));
  }
  s.apply(schedule::ReorderStep{i, order});
  return split_steps;
}

bool has_data_reuse(const te::Tensor& op) {
  if (op->reduce() == nullptr) return false;
  LoadCollector c;
  c.visit(op->body);
  for (const ir::LoadNode* load : c.loads) {
    for (const ir::IterVar& axis : op->axes) {
      bool used = std::any_of(load->indices.begin(), load->indices.end(),
                              [&](const ir::Expr& e) { return ir::uses_var(e, axis.var); });
      if (!used && axis.extent > 1) return true;
    }
  }
  return false;
}

int fusible_consumer(const State& s, int i) {
  std::vector<int> readers = schedule::effective_readers(s, i);
  if (readers.size() != 1) return -1;
  const schedule::Stage& c = s.stages[readers[0]];
  bool ok = c.op->reduce() == nullptr && c.attach.kind == schedule::AttachKind::Root &&
            c.op->shape() == s.stages[i].op->shape() && c.relations.empty() &&
            c.leaves.size() == c.op->axes.size();
  return ok ? readers[0] : -1;
}

std::vector<int> stages_read_by(const State& s, int i) {
  std::vector<int> out;
  for (int p = 0; p < i; ++p)
    if (schedule::reads_directly(s, i, p)) out.push_back(p);
  return out;
}

const SketchRules& sketch_rules(const target::Target& target) {
  static const SketchRules cpu{expand_cpu, [](const State& s) { return s; }, draw_cpu_annotation};
  static const SketchRules gpu{expand_gpu, finish_gpu_sketch, draw_gpu_annotation};
  return target.kind == target::TargetKind::Cuda ? gpu : cpu;
}

std::vector<State> generate_sketches(std::shared_ptr<const te::ComputeDAG> dag, const SearchParams& params) {
  const SketchRules& rules = sketch_rules(params.target);
  std::vector<State> states{State::initial(dag)};
  for (int k = static_cast<int>(dag->ops().size()) - 1; k >= 0; --k) {
    std::vector<State> next;
    for (const State& s : states)
      for (State& e : rules.expand(s, stage_index(s, dag->ops()[k]), params))
        if (next.size() < kMaxSketches) next.push_back(std::move(e));
    states = std::move(next);
  }
  for (State& s : states) s = rules.finish(s);
  return states;
}

}  // namespace tunectl::search
