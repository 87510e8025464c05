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
// result through memory.
void fuse_transform_passes(State& s, int i, int p) {
  s.apply(schedule::SplitStep{i, 2, s.stages[i].leaf(2).extent, {1}, true});  // a b t.o t.i blocks lanes
  s.apply(schedule::ReorderStep{i, {2, 4, 3, 0, 1, 5}});
  s.apply(schedule::ReorderStep{p, {2, 3, 1, 0, 4}});  // tiles blocks b a lanes
  for (int leaf : {3, 4}) s.apply(schedule::AnnotationStep{i, leaf, "unroll"});
  for (int leaf : {2, 3}) s.apply(schedule::AnnotationStep{p, leaf, "unroll"});
  s.apply(schedule::ComputeAtStep{p, i, 2});
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

}  // namespace

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
  if (int p = winograd_first_pass(s, i); p >= 0) {
    branch([&](State& n) { fuse_transform_passes(n, i, p); });
  } else if (st.op->reduce() == nullptr) {
    // Always-inline (apply rejects outputs and stages with attached loops),
    // but for a padding, which may also stay a stage of its own.
    branch([&](State& n) { n.apply(schedule::ComputeInlineStep{i}); });
    if (padding_of_tiled_input(s, i)) out.push_back(s);
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
