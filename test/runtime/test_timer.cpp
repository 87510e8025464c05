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

TEST_CASE("handing activations over deals each plane's rows out to the threads and keeps their values", "[unit]") {
  // The shares of T threads tile a plane in order, whatever its size.
  for (int threads : {1, 2, 3, 16}) {
    for (int64_t plane : {int64_t{1}, int64_t{64}, int64_t{1000}, int64_t{56 * 56 * 64}}) {
      int64_t next = 0;
      for (int t = 0; t < threads; ++t) {
        const auto [begin, end] = runtime::handed_over_share(plane, t, threads);
        CHECK(begin == next);
        CHECK(end >= begin);
        next = end;
      }
      CHECK(next == plane);
    }
  }
  // NCHW[x]c images split per (n, channel block); other tensors as one plane.
  std::vector<float> data(2 * 3 * 8 * 5 * 4);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i) * 0.25f;
  const std::vector<float> before = data;
  const size_t bytes = data.size() * sizeof(float);
  runtime::HandedOver image = runtime::handed_over_by_rows(data.data(), bytes, {2, 3, 8, 5, 4});
  CHECK(image.planes == 6);
  CHECK(image.bytes.size() == bytes);
  CHECK(runtime::handed_over_by_rows(data.data(), bytes, {48, 20}).planes == 1);
  runtime::set_num_threads(2);
  runtime::TimingOptions o;
  o.repeats = 2;
  o.min_repeat_seconds = 0;
  o.flush_cache = false;
  o.handed_over = {image, runtime::handed_over_by_rows(data.data(), bytes, {960})};
  int calls = 0;
  runtime::time_function([&] { ++calls; }, o);
  CHECK(calls == 3);
  CHECK(data == before);
  runtime::set_num_threads(0);
}
