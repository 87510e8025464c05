#include "lower/leaf_loops.h"

#include <variant>

#include "ir/error.h"

namespace tunectl::lower {

namespace {

using namespace ir;
using schedule::IterAnnotation;

void set_kind(Loop& loop, IterAnnotation a) {
  switch (a) {
    case IterAnnotation::None: loop.kind = ForKind::Serial; return;
    case IterAnnotation::Parallel: loop.kind = ForKind::Parallel; return;
    case IterAnnotation::Vectorize: loop.kind = ForKind::Vectorized; return;
    case IterAnnotation::Unroll: loop.kind = ForKind::Unrolled; return;
    case IterAnnotation::BlockX:
    case IterAnnotation::BlockY:
    case IterAnnotation::BlockZ:
    case IterAnnotation::ThreadX:
    case IterAnnotation::ThreadY:
    case IterAnnotation::ThreadZ:
    case IterAnnotation::VThread:
      loop.kind = ForKind::ThreadBinding;
      loop.thread_tag = schedule::to_string(a);
      return;
  }
  internal_fail("unknown iterator annotation");
}

// Loop extent of every iterator, pushed from the root extents through the
// relations in the order they were made.
std::vector<int64_t> propagate_extents(const schedule::Stage& stage, const std::vector<int64_t>& root_extents) {
  std::vector<int64_t> ext(stage.iters.size(), -1);
  for (size_t r = 0; r < root_extents.size(); ++r) ext[r] = root_extents[r];
  for (const schedule::IterRelation& rel : stage.relations) {
    if (const auto* split = std::get_if<schedule::SplitRelation>(&rel)) {
      int64_t inner = 1;
      for (size_t k = 1; k < split->children.size(); ++k) {
        int c = split->children[k];
        ext[c] = stage.iters[c].extent;
        inner *= ext[c];
      }
      internal_check(ext[split->parent] >= 0, "split of an iterator without extent in ", stage.op->name);
      ext[split->children[0]] = (ext[split->parent] + inner - 1) / inner;
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
