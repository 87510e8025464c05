// The pool of kernels' heap intermediates (runtime/scratch_pool.h): a freed
// block serves the next request it fits, idle blocks are what a timer
// evicts, and timing with evict_scratch keeps only the timed functions'.
#include <catch2/catch.hpp>

#include <cstdint>

#include "runtime/scratch_pool.h"
#include "runtime/timer.h"

using namespace tunectl;

namespace {

bool idle_holds(const void* block) {
  for (std::span<const std::byte> b : runtime::idle_scratch())
    if (b.data() == block) return true;
  return false;
}

}  // namespace

TEST_CASE("a freed scratch block serves the next request it fits, and only that", "[unit]") {
  runtime::release_idle_scratch();
  void* a = tunectl_scratch_alloc(64, 1 << 20);
  REQUIRE(a != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(a) % 64 == 0);
  CHECK(runtime::idle_scratch().empty());
  tunectl_scratch_free(a);
  REQUIRE(runtime::idle_scratch().size() == 1);
  CHECK(runtime::idle_scratch()[0].size() == size_t{1} << 20);
  // The same size, and down to half of it, get the block back; less does not.
  void* b = tunectl_scratch_alloc(64, (1 << 19) + 64);
  CHECK(b == a);
  CHECK(!idle_holds(a));
  tunectl_scratch_free(b);
  void* small = tunectl_scratch_alloc(64, 1 << 18);
  CHECK(small != a);
  CHECK(idle_holds(a));
  tunectl_scratch_free(small);
  CHECK(runtime::idle_scratch().size() == 2);
  runtime::release_idle_scratch();
  CHECK(runtime::idle_scratch().empty());
  // A stricter alignment than the pool's goes to the C library, unpooled.
  void* aligned = tunectl_scratch_alloc(4096, 4096);
  REQUIRE(aligned != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(aligned) % 4096 == 0);
  tunectl_scratch_free(aligned);
  CHECK(runtime::idle_scratch().empty());
  tunectl_scratch_free(nullptr);
}

TEST_CASE("timing that evicts scratch keeps only the blocks the timed functions use", "[unit]") {
  runtime::release_idle_scratch();
  tunectl_scratch_free(tunectl_scratch_alloc(64, 3 << 20));  // left idle by some earlier kernel
  REQUIRE(runtime::idle_scratch().size() == 1);
  const void* used = nullptr;
  auto kernel = [&] {
    void* p = tunectl_scratch_alloc(64, 1 << 20);
    used = p;
    tunectl_scratch_free(p);
  };
  runtime::TimingOptions o;
  o.repeats = 3;
  o.min_repeat_seconds = 0;
  o.flush_cache = false;
  o.evict_scratch = true;
  runtime::time_function(kernel, o);
  // The earlier block is gone; the kernel's own came back on every call.
  REQUIRE(runtime::idle_scratch().size() == 1);
  CHECK(idle_holds(used));
  runtime::release_idle_scratch();
}
