// graph::plan_memory: buffers alive at the same time never share bytes,
// buffers that are not may, every offset is aligned.
#include <catch2/catch.hpp>

#include <random>

#include "graph/memory_plan.h"

using namespace tunectl;

namespace {

bool lifetimes_overlap(const graph::BufferLifetime& a, const graph::BufferLifetime& b) {
  return a.first <= b.last && b.first <= a.last;
}

bool bytes_overlap(size_t a, size_t a_bytes, size_t b, size_t b_bytes) {
  return a_bytes > 0 && b_bytes > 0 && a < b + b_bytes && b < a + a_bytes;
}

}  // namespace

TEST_CASE("plan_memory: a chain alternates between two buffers", "[graph][executor][unit]") {
  std::vector<graph::BufferLifetime> chain;
  for (int i = 0; i < 8; ++i) chain.push_back({1000, i, i + 1});
  graph::MemoryPlan plan = graph::plan_memory(chain);
  CHECK(plan.unplanned_bytes == 8 * 1024);
  CHECK(plan.arena_bytes == 2 * 1024);
}

TEST_CASE("plan_memory: a small buffer fits into a gap left by large ones", "[graph][executor][unit]") {
  // A [0,1] and C [2,3] are large and share; B [1,2] overlaps both.
  std::vector<graph::BufferLifetime> b = {{4096, 0, 1}, {64, 1, 2}, {4096, 2, 3}};
  graph::MemoryPlan plan = graph::plan_memory(b);
  CHECK(plan.offsets[0] == plan.offsets[2]);
  CHECK(plan.arena_bytes == 4096 + 64);
}

TEST_CASE("plan_memory: a buffer reuses the bytes freed most recently", "[graph][executor][unit]") {
  // A and B are alive together; C comes after both and fits either's bytes:
  // B's, freed later, are likelier in cache than A's at the lower offset.
  std::vector<graph::BufferLifetime> b = {{1000, 0, 1}, {1000, 0, 3}, {1000, 4, 5}};
  graph::MemoryPlan plan = graph::plan_memory(b);
  CHECK(plan.offsets[0] == 0);
  CHECK(plan.offsets[1] == 1024);
  CHECK(plan.offsets[2] == 1024);
  CHECK(plan.arena_bytes == 2048);
}

TEST_CASE("plan_memory: random lifetimes never alias while alive", "[graph][executor][unit]") {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<graph::BufferLifetime> buffers;
    const int n = 1 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) {
      const int first = static_cast<int>(rng() % 20);
      buffers.push_back({rng() % 5000, first, first + static_cast<int>(rng() % 6)});
    }
    graph::MemoryPlan plan = graph::plan_memory(buffers);
    for (int i = 0; i < n; ++i) {
      CHECK(plan.offsets[i] % graph::kBufferAlignment == 0);
      CHECK(plan.offsets[i] + buffers[i].bytes <= plan.arena_bytes);
      for (int j = i + 1; j < n; ++j) {
        if (!lifetimes_overlap(buffers[i], buffers[j])) continue;
        INFO("trial " << trial << " buffers " << i << " and " << j);
        CHECK_FALSE(bytes_overlap(plan.offsets[i], buffers[i].bytes, plan.offsets[j], buffers[j].bytes));
      }
    }
    CHECK(plan.arena_bytes <= plan.unplanned_bytes);
  }
}
