// Whole programs timed side by side in rounds and compared round by round
// (runtime/paired_timing.h): the order of the calls, and the statistics of
// the rounds' ratios against values worked out by hand.
#include <catch2/catch.hpp>

#include <string>

#include "runtime/paired_timing.h"

using namespace tunectl;

namespace {

runtime::RoundTimings rounds_of(std::vector<double> medians) {
  runtime::RoundTimings t;
  t.round_medians = medians;
  t.calls.seconds_per_call = std::move(medians);
  return t;
}

}  // namespace

TEST_CASE("timing in rounds runs each function back to back after an untimed call, order reversed each round",
          "[unit]") {
  std::string trace;
  std::vector<runtime::RoundTimings> t =
      runtime::time_in_rounds({[&] { trace += 'a'; }, [&] { trace += 'b'; }, [&] { trace += 'c'; }}, 3, 2);
  CHECK(trace == "aaabbbccc" "cccbbbaaa" "aaabbbccc");
  REQUIRE(t.size() == 3);
  for (const runtime::RoundTimings& f : t) {
    CHECK(f.calls.seconds_per_call.size() == 6);
    CHECK(f.round_medians.size() == 3);
  }
}

TEST_CASE("rounds of at most five calls cover the calls asked for", "[unit]") {
  CHECK(runtime::rounds_for(1) == std::pair{1, 1});
  CHECK(runtime::rounds_for(5) == std::pair{1, 5});
  CHECK(runtime::rounds_for(7) == std::pair{2, 4});
  CHECK(runtime::rounds_for(50) == std::pair{10, 5});
  CHECK(runtime::rounds_for(1000) == std::pair{200, 5});
}

TEST_CASE("round ratios: median, sign test and the order-statistic interval", "[unit]") {
  SECTION("B faster in every one of 10 rounds") {
    runtime::RoundRatios r = runtime::compare_rounds(rounds_of(std::vector<double>(10, 2.0)),
                                                     rounds_of(std::vector<double>(10, 1.0)));
    CHECK(r.rounds == 10);
    CHECK(r.b_faster == 10);
    CHECK(r.a_faster == 0);
    CHECK(r.median == Approx(2.0));
    CHECK(r.sign_test_p == Approx(2.0 / 1024));
    CHECK(r.has_interval);
  }
  SECTION("B faster in 8 of 10 rounds") {
    // Ratios A/B: 0.8, 0.9, then 1.1 .. 1.8.
    std::vector<double> a{0.8, 0.9, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8};
    runtime::RoundRatios r = runtime::compare_rounds(rounds_of(a), rounds_of(std::vector<double>(10, 1.0)));
    CHECK(r.b_faster == 8);
    CHECK(r.a_faster == 2);
    CHECK(r.median == Approx(1.35));
    // Two-sided: 2 P(X <= 2), X ~ Binomial(10, 1/2) = 2 (1 + 10 + 45) / 1024.
    CHECK(r.sign_test_p == Approx(112.0 / 1024));
    // 2 P(X <= 1) = 22/1024 <= 5%, 2 P(X <= 2) > 5%: the 2nd smallest and
    // the 2nd largest ratio bound the median at 97.9%.
    REQUIRE(r.has_interval);
    CHECK(r.low == Approx(0.9));
    CHECK(r.high == Approx(1.7));
  }
  SECTION("five rounds give no 95% interval; six give the extremes") {
    CHECK_FALSE(runtime::compare_rounds(rounds_of({1, 2, 3, 4, 5}), rounds_of({1, 1, 1, 1, 1})).has_interval);
    runtime::RoundRatios six =
        runtime::compare_rounds(rounds_of({1, 2, 3, 4, 5, 6}), rounds_of({1, 1, 1, 1, 1, 1}));
    REQUIRE(six.has_interval);
    CHECK(six.low == Approx(1));
    CHECK(six.high == Approx(6));
  }
  SECTION("ties count for neither") {
    runtime::RoundRatios r = runtime::compare_rounds(rounds_of({1, 1, 2}), rounds_of({1, 1, 1}));
    CHECK(r.b_faster == 1);
    CHECK(r.a_faster == 0);
    CHECK(r.sign_test_p == Approx(1.0));
  }
}
