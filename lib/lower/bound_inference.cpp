#include "lower/bound_inference.h"

#include "ir/const_bound.h"
#include "ir/error.h"
#include "ir/functor.h"
#include "ir/interval.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "lower/leaf_loops.h"

namespace tunectl::lower {

namespace {

using namespace ir;

// Index lists of every load of buffer in e.
std::vector<std::vector<Expr>> reads_of(const Expr& e, const Buffer& buffer) {
  std::vector<std::vector<Expr>> out;
  post_order_visit(e, [&](const Expr& x) {
    if (const auto* load = x.as<LoadNode>(); load && load->buffer.same_as(buffer)) out.push_back(load->indices);
  });
  return out;
}

// A region may start at a loaded value (a gather's index). It is computed
// for every iteration of the loops it is attached in, also those that a
// non-dividing split adds past the reader's domain, where the index the load
// reads lies past its buffer: clamped, the load stays inside, and what is
// computed for those iterations is never stored (the reader's guards).
class ClampLoads : public IRMutator {
 protected:
  Expr mutate_Load(const Expr& e, const LoadNode* op) override {
    Expr loaded = IRMutator::mutate_Load(e, op);
    const auto* load = loaded.as<LoadNode>();
    std::vector<Expr> idx;
    for (size_t d = 0; d < load->indices.size(); ++d)
      idx.push_back(make_min(make_max(load->indices[d], make_int(0)), make_int(load->buffer->shape[d] - 1)));
    return make_load(load->buffer, idx);
  }
};

// Absolute value of every root iterator of an already inferred stage.
VarMap<Expr> absolute_root_values(const StageInfo& c) {
  VarMap<Expr> map;
  for (size_t r = 0; r < c.root_vars.size(); ++r) {
    Expr v = c.local_root_values[r];
    if (static_cast<int>(r) < c.num_spatial) v = c.region_min[r] + v;
    map[c.root_vars[r]] = v;
  }
  return map;
}

// Thread and vthread loops: a shared tile serves all of them
// (inject_virtual_threads.h fills it once for every vthread).
bool relaxed_in_shared(const Loop& loop) {
  return loop.kind == ForKind::ThreadBinding &&
         (loop.thread_tag.rfind("threadIdx", 0) == 0 || loop.thread_tag == "vthread");
}

// Union over readers of the read intervals of stage s, per spatial axis;
// empty when nothing reads it.
std::vector<Interval> read_region(const schedule::State& state, const std::vector<StageInfo>& stages, int s) {
  const StageInfo& info = stages[s];
  const Buffer& buffer = state.stages[s].op->buffer;
  // A shared buffer serves every thread of a block, so thread and vthread
  // loops around the attach point range instead of staying fixed.
  VarMap<Interval> relaxed;
  if (buffer->scope == MemScope::Shared) {
    for (const Loop& l : info.enclosing)
      if (relaxed_in_shared(l)) relaxed[l.var] = Interval{make_int(0), make_int(l.extent - 1)};
  }
  VarMap<IntBound> bounds;
  for (const Loop& l : info.enclosing) bounds[l.var] = loop_bound(0, l.extent);
  std::vector<Interval> region;
  for (size_t c = s + 1; c < stages.size(); ++c) {
    const StageInfo& reader = stages[c];
    if (!reader.active) continue;
    std::vector<std::vector<Expr>> reads = reads_of(reader.body, buffer);
    if (reads.empty()) continue;
    std::vector<Loop> scope = reader.enclosing;
    scope.insert(scope.end(), reader.loops.begin(), reader.loops.end());
    bool inside = scope.size() >= info.enclosing.size();
    for (size_t k = 0; inside && k < info.enclosing.size(); ++k) inside = scope[k].var.same_as(info.enclosing[k].var);
    user_check(inside, "stage ", state.stages[s].op->name, " is computed at a loop that does not enclose its reader ",
               state.stages[c].op->name);
    VarMap<Interval> dom = relaxed;
    VarMap<IntBound> in_scope = bounds;
    for (size_t k = info.enclosing.size(); k < scope.size(); ++k) {
      dom[scope[k].var] = Interval{make_int(0), make_int(scope[k].extent - 1)};
      in_scope[scope[k].var] = loop_bound(0, scope[k].extent);
    }
    VarMap<Expr> roots = absolute_root_values(reader);
    for (const std::vector<Expr>& idx : reads) {
      internal_check(static_cast<int>(idx.size()) == info.num_spatial, "read of ", buffer->name, " with ",
                     idx.size(), " indices");
      for (size_t d = 0; d < idx.size(); ++d) {
        // Simplified first: a reader whose fused loop walks a reshape of
        // this buffer reads `(f // 64) * 64 + f % 64`, which is f (an
        // interval of each part would cover whole rows of 64).
        Interval iv = eval_interval(simplify(substitute(idx[d], roots), in_scope), dom, bounds);
        if (region.size() <= d) {
          region.push_back(iv);
        } else {
          region[d] = union_interval(region[d], iv, bounds);
        }
      }
    }
  }
  return region;
}

void infer_region(const schedule::State& state, std::vector<StageInfo>& stages, int s) {
  StageInfo& info = stages[s];
  const schedule::Stage& stage = state.stages[s];
  std::vector<Interval> region = read_region(state, stages, s);
  if (region.empty()) {
    // Nothing reads it: compute the whole domain, as at the root.
    for (int d = 0; d < info.num_spatial; ++d) {
      info.region_min.push_back(make_int(0));
      info.region_extent.push_back(info.domain[d]);
    }
    return;
  }
  VarMap<IntBound> bounds;
  for (const Loop& l : info.enclosing) bounds[l.var] = loop_bound(0, l.extent);
  for (int d = 0; d < info.num_spatial; ++d) {
    if (!region[d].is_bounded()) {
      // Reads the analysis cannot bound (data-dependent indices): the whole axis.
      info.region_min.push_back(make_int(0));
      info.region_extent.push_back(info.domain[d]);
      continue;
    }
    Expr mn = simplify(region[d].min, bounds);
    Expr span = simplify(region[d].max - mn, bounds);
    const int64_t* c = as_const_int(span);
    int64_t extent = 0;
    if (c) {
      extent = *c + 1;
    } else {
      // The span varies with the fixed loops: allocate for the largest.
      IntBound b = const_int_bound(span, bounds);
      internal_check(b.max != IntBound::kPosInf, "cannot bound the region of ", stage.op->name, " along axis ", d);
      extent = b.max + 1;
    }
    info.region_min.push_back(ClampLoads().mutate(mn));
    info.region_extent.push_back(std::max<int64_t>(extent, 1));
  }
}

}  // namespace

void infer_bounds(const schedule::State& state, std::vector<StageInfo>& stages) {
  for (int s = static_cast<int>(stages.size()) - 1; s >= 0; --s) {
    StageInfo& info = stages[s];
    if (!info.active) continue;
    const schedule::Stage& stage = state.stages[s];
    if (stage.attach.kind == schedule::AttachKind::Iter) {
      int t = stage.attach.target_stage;
      internal_check(t > s && t < static_cast<int>(stages.size()) && stages[t].active, "stage ", stage.op->name,
                     " is attached to stage ", t, " which is not a later active stage");
      int pos = state.stages[t].leaf_position(stage.attach.target_iter);
      internal_check(pos >= 0, "stage ", stage.op->name, " is attached to a loop that is not a leaf");
      info.enclosing = stages[t].enclosing;
      info.enclosing.insert(info.enclosing.end(), stages[t].loops.begin(), stages[t].loops.begin() + pos + 1);
      infer_region(state, stages, s);
      info.buffer = Buffer(stage.op->name, stage.op->dtype(), info.region_extent, stage.op->buffer->scope,
                           stage.storage_order);
    } else {
      for (int d = 0; d < info.num_spatial; ++d) {
        info.region_min.push_back(make_int(0));
        info.region_extent.push_back(info.domain[d]);
      }
      // A root stage laid out in another order gets a buffer of its own
      // (its readers are redirected to it as to an attached stage's).
      info.buffer = stage.storage_order.empty() ? stage.op->buffer
                                                : Buffer(stage.op->name, stage.op->dtype(), info.region_extent,
                                                         stage.op->buffer->scope, stage.storage_order);
    }
    std::vector<int64_t> root_extents = info.region_extent;
    root_extents.insert(root_extents.end(), info.domain.begin() + info.num_spatial, info.domain.end());
    LeafLoops leaf = make_leaf_loops(stage, root_extents);
    info.loops = std::move(leaf.loops);
    info.local_root_values = std::move(leaf.root_values);
    info.inner_ranges = std::move(leaf.inner_ranges);
  }
}

}  // namespace tunectl::lower
