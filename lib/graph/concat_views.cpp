#include "graph/concat_views.h"

#include <optional>
#include <set>

#include "graph/memory_plan.h"

namespace tunectl::graph {

namespace {

// The view of Concat node n, or none when it does not qualify.
std::optional<ConcatView> view_of(const Graph& g, int n, const std::set<std::string>& placed_outputs,
                                  const std::set<std::string>& placed_parts) {
  const Node& node = g.nodes[n];
  if (node.outputs.size() != 1 || node.inputs.empty() || !node.attrs.has("axis")) return std::nullopt;
  const ValueInfo& out = g.info(node.outputs[0]);
  const auto rank = static_cast<int64_t>(out.shape.size());
  int64_t axis = node.attrs.get_int(node, "axis");
  if (axis < 0) axis += rank;
  if (!out.shape_known || out.kind != ValueKind::Tensor || axis < 0 || axis >= rank) return std::nullopt;
  for (int64_t d = 0; d < axis; ++d)
    if (out.shape[d] != 1) return std::nullopt;
  ConcatView view{n, node.outputs[0], {}};
  std::set<std::string> seen;
  size_t offset = 0;
  for (const std::string& in : node.inputs) {
    if (in.empty() || g.producer(in) < 0 || placed_outputs.count(in) || placed_parts.count(in) ||
        !seen.insert(in).second || offset % kBufferAlignment != 0)
      return std::nullopt;
    const ValueInfo& info = g.info(in);
    if (!info.shape_known || info.kind != ValueKind::Tensor || info.dtype != out.dtype || value_bytes(info) == 0)
      return std::nullopt;
    view.parts.push_back({in, offset});
    offset += value_bytes(info);
  }
  // The parts fill the output exactly (shapes that inference left odd do not).
  if (offset != value_bytes(out)) return std::nullopt;
  return view;
}

}  // namespace

std::vector<ConcatView> concat_views(const Graph& g) {
  std::vector<ConcatView> views;
  std::set<std::string> placed_outputs, placed_parts;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (g.nodes[n].op_type != "Concat") continue;
    std::optional<ConcatView> view = view_of(g, static_cast<int>(n), placed_outputs, placed_parts);
    if (!view) continue;
    placed_outputs.insert(view->output);
    for (const ConcatView::Part& p : view->parts) placed_parts.insert(p.value);
    views.push_back(std::move(*view));
  }
  return views;
}

}  // namespace tunectl::graph
