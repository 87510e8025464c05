// Whole programs (a model's run under two tuning logs, say) timed side by
// side in rounds, and compared round by round. On a shared machine the speed
// of the host drifts by tens of percent over seconds to minutes (light
// SqueezeNet has run at 3.4 ms and at 6.8 ms on the same Zen 4 within a
// day): two medians timed one after the other measure the drift as much as
// the programs. Within a round both run under the same load, so the ratio
// of their round medians is fair, and the rounds' ratios say how sure the
// comparison is (a sign test, and an interval for the median ratio).
#pragma once

#include <functional>
#include <vector>

#include "runtime/timer.h"

namespace tunectl::runtime {

struct RoundTimings {
  Timing calls;                        // every timed call, round after round
  std::vector<double> round_medians;  // the median of each round's calls
};

// `rounds` rounds; in each, every function runs `calls_per_round` + 1 times
// back to back, as a model serves call after call, the first call untimed
// (it finds the caches as the function before left them). The functions'
// order reverses every round, so a drift within a round favours none.
// One RoundTimings per function.
std::vector<RoundTimings> time_in_rounds(const std::vector<std::function<void()>>& fns, int rounds,
                                         int calls_per_round);

// Rounds and calls per round for about `calls` timed calls per function:
// rounds of at most 5 calls, as many as that takes.
std::pair<int, int> rounds_for(int calls);

// How much faster B is than A, round by round: ratio r = A's round median /
// B's (above 1: B is faster).
struct RoundRatios {
  int rounds = 0;
  double median = 0;     // of the rounds' ratios
  // A distribution-free interval of at least 95% for the median ratio (the
  // order statistics the binomial distribution of the signs gives); with
  // fewer than 6 rounds none exists and has_interval is false.
  bool has_interval = false;
  double low = 0, high = 0;
  int b_faster = 0;      // rounds with r > 1
  int a_faster = 0;      // rounds with r < 1
  double sign_test_p = 1;  // two-sided, ties left out: that neither is faster
};

RoundRatios compare_rounds(const RoundTimings& a, const RoundTimings& b);

}  // namespace tunectl::runtime
