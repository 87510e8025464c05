#include "lower/launch_dims.h"

#include <algorithm>

#include "ir/error.h"
#include "ir/functor.h"

namespace tunectl::lower {

std::optional<HardwareIndex> hardware_index(const std::string& thread_tag) {
  if (thread_tag == "vthread") return std::nullopt;
  const bool is_block = thread_tag.rfind("blockIdx.", 0) == 0;
  const bool is_thread = thread_tag.rfind("threadIdx.", 0) == 0;
  const char axis = thread_tag.empty() ? '\0' : thread_tag.back();
  internal_check((is_block || is_thread) && thread_tag.size() == (is_block ? 10 : 11) && axis >= 'x' && axis <= 'z',
                 "unknown thread tag '", thread_tag, "'");
  return HardwareIndex{is_block, axis - 'x'};
}

namespace {

// The largest extent per hardware index over the bound loops it visits.
class LaunchCollector : public ir::IRVisitor {
 public:
  LaunchDims dims;

 protected:
  void visit_For(const ir::ForNode* loop) override {
    if (loop->for_kind == ir::ForKind::ThreadBinding) {
      if (std::optional<HardwareIndex> hw = hardware_index(loop->thread_tag)) {
        const auto* extent = loop->extent.as<ir::IntImmNode>();
        const auto* min = loop->min.as<ir::IntImmNode>();
        internal_check(extent && min && min->value == 0, "loop ", loop->var.node()->name, " bound to ", loop->thread_tag,
                       " must start at 0 and have a constant extent");
        int64_t& d = hw->is_block ? dims.grid[hw->dim] : dims.block[hw->dim];
        d = std::max(d, extent->value);
      }
    }
    ir::IRVisitor::visit_For(loop);
  }
};

}  // namespace

LaunchDims launch_dims(const LoweredFunc& func) {
  LaunchCollector collector;
  collector.visit(func.body);
  return collector.dims;
}

}  // namespace tunectl::lower
