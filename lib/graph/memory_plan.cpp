#include "graph/memory_plan.h"

#include <algorithm>
#include <numeric>

#include "ir/error.h"

namespace tunectl::graph {

namespace {

size_t align_up(size_t bytes) { return (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment; }

// Two values coexist when one is defined while the other is still to be read;
// a kernel's inputs and outputs therefore never alias.
bool overlaps(const BufferLifetime& a, const BufferLifetime& b) { return a.first <= b.last && b.first <= a.last; }

}  // namespace

MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers) {
  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  for (const auto& b : buffers) {
    internal_check(b.first <= b.last, "plan_memory: a buffer's lifetime ends before it starts");
    plan.unplanned_bytes += align_up(b.bytes);
  }
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  // Largest first; ties by definition order so the plan is deterministic.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].bytes != buffers[b].bytes) return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first < buffers[b].first;
  });
  std::vector<size_t> placed;
  for (size_t i : order) {
    // Placed buffers alive at the same time as i, by offset: i goes into the
    // first gap between them that is large enough.
    std::vector<size_t> live;
    for (size_t j : placed)
      if (overlaps(buffers[i], buffers[j])) live.push_back(j);
    std::sort(live.begin(), live.end(), [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; });
    const size_t need = align_up(buffers[i].bytes);
    size_t offset = 0;
    for (size_t j : live) {
      if (plan.offsets[j] >= offset + need) break;
      offset = std::max(offset, plan.offsets[j] + align_up(buffers[j].bytes));
    }
    plan.offsets[i] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + need);
    placed.push_back(i);
  }
  return plan;
}

}  // namespace tunectl::graph
