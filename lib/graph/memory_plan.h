// Memory planning for graph::executor: given the byte size and lifetime of
// every intermediate value of a partitioned model (the index of the subgraph
// that defines it .. the index of the last subgraph that reads it), assigns
// each an offset in one arena so that values whose lifetimes overlap never
// share bytes and values whose lifetimes do not may. Greedy by size (as
// TFLite's arena planner): the largest buffers are placed first, each at a
// 64-byte aligned offset that clears every placed buffer it coexists with:
// of the gaps that fit inside the arena so far, the one whose bytes were
// freed most recently before the buffer is written (the likeliest still in
// cache), else the lowest. Pure arithmetic: no allocation happens here.
#pragma once

#include <cstddef>
#include <vector>

namespace tunectl::graph {

struct BufferLifetime {
  size_t bytes = 0;
  int first = 0;  // index of the defining subgraph
  int last = 0;   // index of the last reader (>= first); graph outputs: past the last subgraph
};

struct MemoryPlan {
  std::vector<size_t> offsets;  // one per request, aligned
  size_t arena_bytes = 0;       // the arena the offsets fit in
  size_t unplanned_bytes = 0;   // one aligned buffer per value, no reuse
};

inline constexpr size_t kBufferAlignment = 64;

MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers);

}  // namespace tunectl::graph
