#include "graph/memory_plan.h"

#include <algorithm>
#include <cstdint>
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
    // Placed buffers alive at the same time as i, by offset: i goes into a
    // gap between them that is large enough.
    std::vector<size_t> live;
    for (size_t j : placed)
      if (overlaps(buffers[i], buffers[j])) live.push_back(j);
    std::sort(live.begin(), live.end(), [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; });
    const size_t need = align_up(buffers[i].bytes);
    // Where i may go: the start of every gap between them that fits, and the
    // offset of every buffer freed before i is written that lies in one.
    std::vector<size_t> candidates;
    auto add_gap = [&](size_t start, size_t end) {
      if (end - start < need) return;
      candidates.push_back(start);
      for (size_t j : placed)
        if (buffers[j].last < buffers[i].first && plan.offsets[j] > start && plan.offsets[j] <= end - need)
          candidates.push_back(plan.offsets[j]);
    };
    size_t offset = 0;
    for (size_t j : live) {
      if (plan.offsets[j] > offset) add_gap(offset, plan.offsets[j]);
      offset = std::max(offset, plan.offsets[j] + align_up(buffers[j].bytes));
    }
    add_gap(offset, SIZE_MAX);
    // The lowest, unless one inside the arena so far holds bytes freed more
    // recently before i is written: those are likelier still in cache.
    size_t best = *std::min_element(candidates.begin(), candidates.end());
    int best_freed = -1;
    for (size_t c : candidates) {
      if (c + need > plan.arena_bytes) continue;
      int freed = -1;
      for (size_t j : placed)
        if (buffers[j].last < buffers[i].first && plan.offsets[j] < c + need &&
            c < plan.offsets[j] + align_up(buffers[j].bytes))
          freed = std::max(freed, buffers[j].last);
      if (freed > best_freed || (freed == best_freed && c < best)) {
        best = c;
        best_freed = freed;
      }
    }
    plan.offsets[i] = best;
    plan.arena_bytes = std::max(plan.arena_bytes, best + need);
    placed.push_back(i);
  }
  return plan;
}

}  // namespace tunectl::graph
