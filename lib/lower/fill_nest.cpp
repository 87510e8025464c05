#include "lower/fill_nest.h"

namespace tunectl::lower {

using namespace ir;

bool is_thread_loop(const ForNode* loop) {
  return loop->for_kind == ForKind::ThreadBinding && loop->thread_tag != "vthread";
}

std::optional<int64_t> staged_elements(const Stmt& s) {
  if (const auto* loop = s.as<ForNode>()) {
    std::optional<int64_t> inner = staged_elements(loop->body);
    if (!inner || is_thread_loop(loop)) return inner;
    const auto* extent = loop->extent.as<IntImmNode>();
    if (extent == nullptr) return std::nullopt;
    return *inner * extent->value;
  }
  if (const auto* branch = s.as<IfThenElseNode>())
    return branch->else_case ? std::nullopt : staged_elements(branch->then_case);
  if (s.as<StoreNode>()) return 1;
  return std::nullopt;
}

const StoreNode* fill_store(const Stmt& s) {
  if (const auto* loop = s.as<ForNode>()) return fill_store(loop->body);
  if (const auto* branch = s.as<IfThenElseNode>()) return fill_store(branch->then_case);
  return s.as<StoreNode>();
}

Stmt rebuild_fill(const Stmt& s, const Expr& index, const StoreMaker& make) {
  if (const auto* loop = s.as<ForNode>()) {
    if (is_thread_loop(loop))
      return make_for(loop->var, loop->min, loop->extent, loop->for_kind, rebuild_fill(loop->body, index, make),
                      loop->thread_tag);
    const Expr inner = index * loop->extent + (loop->var - loop->min);
    const ForKind kind = loop->for_kind == ForKind::Serial ? ForKind::Unrolled : loop->for_kind;
    return make_for(loop->var, loop->min, loop->extent, kind, rebuild_fill(loop->body, inner, make), loop->thread_tag);
  }
  if (const auto* branch = s.as<IfThenElseNode>()) return make_if(branch->cond, rebuild_fill(branch->then_case, index, make));
  return make(s.as<StoreNode>(), index);
}

}  // namespace tunectl::lower
