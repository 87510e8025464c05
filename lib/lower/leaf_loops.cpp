#include "lower/leaf_loops.h"

#include <algorithm>
#include <variant>

#include "ir/error.h"

namespace tunectl::lower {

namespace {

using namespace ir;
using schedule::IterAnnotation;

bool bound_to_hardware(IterAnnotation a) {
  switch (a) {
    case IterAnnotation::BlockX:
    case IterAnnotation::BlockY:
    case IterAnnotation::BlockZ:
    case IterAnnotation::ThreadX:
    case IterAnnotation::ThreadY:
    case IterAnnotation::ThreadZ:
    case IterAnnotation::VThread:
      return true;
    default:
      return false;
  }
}

void set_kind(Loop& loop, IterAnnotation a) {
  if (bound_to_hardware(a)) {
    loop.kind = ForKind::ThreadBinding;
    loop.thread_tag = schedule::to_string(a);
    return;
  }
  switch (a) {
    case IterAnnotation::None: loop.kind = ForKind::Serial; return;
    case IterAnnotation::Parallel: loop.kind = ForKind::Parallel; return;
    case IterAnnotation::Vectorize: loop.kind = ForKind::Vectorized; return;
    case IterAnnotation::Unroll: loop.kind = ForKind::Unrolled; return;
    default: internal_fail("unknown iterator annotation");
  }
}

// Iterators some hardware-bound leaf derives from (through splits and fuses).
std::vector<bool> feeding_bindings(const schedule::Stage& stage) {
  std::vector<bool> feeds(stage.iters.size(), false);
  for (int id : stage.leaves) feeds[id] = bound_to_hardware(stage.iters[id].annotation);
  for (auto rel = stage.relations.rbegin(); rel != stage.relations.rend(); ++rel) {
    if (const auto* split = std::get_if<schedule::SplitRelation>(&*rel)) {
      for (int c : split->children) feeds[split->parent] = feeds[split->parent] || feeds[c];
    } else {
      const auto& fuse = std::get<schedule::FuseRelation>(*rel);
      for (int p : fuse.parents) feeds[p] = feeds[p] || feeds[fuse.child];
    }
  }
  return feeds;
}

// Loop extent of every iterator, pushed from the root extents through the
// relations in the order they were made. An inner part of a split covers
// at most what its parent covers (as TVM's InferBound tightens splits): a
// stage computed inside its reader's thread loop, tiled at the levels the
// reader binds, then runs its block, vthread and thread levels once. Parts
// that lead to a hardware binding keep their length: that is a launch extent
// (a cooperative fetch uses every thread of its block).
std::vector<int64_t> propagate_extents(const schedule::Stage& stage, const std::vector<int64_t>& root_extents) {
  std::vector<int64_t> ext(stage.iters.size(), -1);
  for (size_t r = 0; r < root_extents.size(); ++r) ext[r] = root_extents[r];
  const std::vector<bool> feeds = feeding_bindings(stage);
  for (const schedule::IterRelation& rel : stage.relations) {
    if (const auto* split = std::get_if<schedule::SplitRelation>(&rel)) {
      internal_check(ext[split->parent] >= 0, "split of an iterator without extent in ", stage.op->name);
      int64_t remaining = ext[split->parent];
      for (size_t k = split->children.size(); k-- > 1;) {
        const int c = split->children[k];
        const int64_t length = stage.iters[c].extent;
        ext[c] = feeds[c] ? length : std::min(remaining, length);
        remaining = (remaining + length - 1) / length;
      }
      ext[split->children[0]] = remaining;
    } else {
      const auto& fuse = std::get<schedule::FuseRelation>(rel);
      int64_t product = 1;
      for (int p : fuse.parents) product *= ext[p];
      ext[fuse.child] = product;
    }
  }
  return ext;
}

}  // namespace

LeafLoops make_leaf_loops(const schedule::Stage& stage, const std::vector<int64_t>& root_extents) {
  internal_check(static_cast<int>(root_extents.size()) == stage.num_root_iters(), "root extents of ",
                 stage.op->name);
  std::vector<int64_t> ext = propagate_extents(stage, root_extents);
  std::vector<Expr> value(stage.iters.size());
  LeafLoops out;
  for (int id : stage.leaves) {
    const schedule::Iterator& it = stage.iters[id];
    Loop loop{Var(it.name), ext[id], ForKind::Serial, ""};
    set_kind(loop, it.annotation);
    value[id] = loop.var;
    out.loops.push_back(loop);
  }
  // Backwards: every relation's outputs are leaves or inputs of later ones.
  for (auto rel = stage.relations.rbegin(); rel != stage.relations.rend(); ++rel) {
    if (const auto* split = std::get_if<schedule::SplitRelation>(&*rel)) {
      Expr v;
      for (int c : split->children) {
        internal_check(bool(value[c]), "split child ", stage.iters[c].name, " has no value");
        v = v ? v * make_int(ext[c]) + value[c] : value[c];
      }
      value[split->parent] = v;
    } else {
      const auto& fuse = std::get<schedule::FuseRelation>(*rel);
      internal_check(bool(value[fuse.child]), "fused iterator ", stage.iters[fuse.child].name, " has no value");
      int64_t stride = 1;
      for (size_t k = fuse.parents.size(); k-- > 0;) {
        int p = fuse.parents[k];
        Expr v = stride == 1 ? value[fuse.child] : value[fuse.child] / make_int(stride);
        value[p] = k == 0 ? v : v % make_int(ext[p]);
        stride *= ext[p];
      }
    }
  }
  std::vector<bool> is_leaf(stage.iters.size(), false);
  for (int id : stage.leaves) is_leaf[id] = true;
  for (const schedule::IterRelation& rel : stage.relations) {
    if (const auto* split = std::get_if<schedule::SplitRelation>(&rel)) {
      for (size_t k = 1; k < split->children.size(); ++k) {
        int c = split->children[k];
        if (!is_leaf[c]) out.inner_ranges.push_back({value[c], ext[c], stage.iters[c].kind});
      }
    }
  }
  for (int r = 0; r < stage.num_root_iters(); ++r) {
    internal_check(bool(value[r]), "root iterator ", stage.iters[r].name, " of ", stage.op->name, " has no value");
    out.root_values.push_back(value[r]);
  }
  return out;
}

}  // namespace tunectl::lower
