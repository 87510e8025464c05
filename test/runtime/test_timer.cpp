// Timing (runtime/timer.h): repeat counts, and the side-by-side order of
// time_interleaved that keeps ratios fair on a shared machine.
#include <catch2/catch.hpp>

#include <string>

#include "runtime/thread_pool.h"
#include "runtime/timer.h"

using namespace tunectl;

TEST_CASE("time_interleaved alternates the functions repeat by repeat", "[unit]") {
  std::string trace;
  runtime::TimingOptions o;
  o.repeats = 3;
  o.min_repeat_seconds = 0;  // one call per repeat
  o.flush_cache = false;
  std::vector<runtime::Timing> t = runtime::time_interleaved({[&] { trace += 'a'; }, [&] { trace += 'b'; }}, o);
  // One warm-up call each, then repeats side by side.
  CHECK(trace == "ab" "ab" "ab" "ab");
  REQUIRE(t.size() == 2);
  CHECK(t[0].seconds_per_call.size() == 3);
  CHECK(t[1].seconds_per_call.size() == 3);
}

TEST_CASE("emptying the private caches before each repeat leaves the repeats as they are", "[unit]") {
  runtime::set_num_threads(2);
  std::string trace;
  runtime::TimingOptions o;
  o.repeats = 3;
  o.min_repeat_seconds = 0;
  o.flush_cache = false;
  o.evict_private_bytes = 64 << 10;  // every pool thread reads 64 KiB of its own scratch block
  std::vector<runtime::Timing> t = runtime::time_interleaved({[&] { trace += 'a'; }, [&] { trace += 'b'; }}, o);
  CHECK(trace == "ab" "ab" "ab" "ab");
  CHECK(t[0].seconds_per_call.size() == 3);
  // A larger block later grows the scratch instead of reading past it.
  runtime::evict_private_caches(256 << 10);
  runtime::set_num_threads(0);
}

TEST_CASE("time_function repeats until a repeat lasts the minimum time", "[unit]") {
  int calls = 0;
  runtime::TimingOptions o;
  o.repeats = 2;
  o.min_repeat_seconds = 0.01;
  o.flush_cache = false;
  o.settle_seconds = 0.001;
  runtime::Timing t = runtime::time_function([&] { ++calls; }, o);
  REQUIRE(t.seconds_per_call.size() == 2);
  // A call that takes nanoseconds runs many times per repeat.
  CHECK(calls > 3);
  CHECK(t.min() <= t.median());
  CHECK(t.median() <= t.max());
}
