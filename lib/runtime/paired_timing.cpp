#include "runtime/paired_timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "ir/error.h"

namespace tunectl::runtime {

namespace {

double median_of(std::vector<double> v) {
  Timing t;
  t.seconds_per_call = std::move(v);
  return t.median();
}

// P(X <= k) for X ~ Binomial(n, 1/2).
double binomial_cdf_half(int n, int k) {
  if (k < 0) return 0;
  double p = 0;
  for (int i = 0; i <= std::min(k, n); ++i) {
    // log of C(n, i) / 2^n, through lgamma so that n of hundreds stays finite.
    p += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) - n * std::log(2.0));
  }
  return std::min(p, 1.0);
}

}  // namespace

std::vector<RoundTimings> time_in_rounds(const std::vector<std::function<void()>>& fns, int rounds,
                                         int calls_per_round) {
  internal_check(rounds > 0 && calls_per_round > 0, "timing in rounds needs a round and a call");
  using clock = std::chrono::steady_clock;
  std::vector<RoundTimings> out(fns.size());
  for (int r = 0; r < rounds; ++r) {
    for (size_t i = 0; i < fns.size(); ++i) {
      const size_t f = r % 2 == 0 ? i : fns.size() - 1 - i;
      fns[f]();  // untimed: the caches as the function before left them
      std::vector<double> round;
      for (int c = 0; c < calls_per_round; ++c) {
        const auto start = clock::now();
        fns[f]();
        round.push_back(std::chrono::duration<double>(clock::now() - start).count());
      }
      out[f].calls.seconds_per_call.insert(out[f].calls.seconds_per_call.end(), round.begin(), round.end());
      out[f].round_medians.push_back(median_of(std::move(round)));
    }
  }
  return out;
}

std::pair<int, int> rounds_for(int calls) {
  constexpr int kMaxCallsPerRound = 5;
  const int rounds = std::max(1, (calls + kMaxCallsPerRound - 1) / kMaxCallsPerRound);
  return {rounds, (calls + rounds - 1) / rounds};
}

RoundRatios compare_rounds(const RoundTimings& a, const RoundTimings& b) {
  internal_check(a.round_medians.size() == b.round_medians.size(), "comparing ", a.round_medians.size(),
                 " rounds with ", b.round_medians.size());
  RoundRatios out;
  std::vector<double> ratios;
  for (size_t r = 0; r < a.round_medians.size(); ++r) {
    const double ratio = a.round_medians[r] / b.round_medians[r];
    ratios.push_back(ratio);
    out.b_faster += ratio > 1 ? 1 : 0;
    out.a_faster += ratio < 1 ? 1 : 0;
  }
  out.rounds = static_cast<int>(ratios.size());
  if (ratios.empty()) return out;
  std::sort(ratios.begin(), ratios.end());
  out.median = median_of(ratios);
  // The k-th smallest and k-th largest ratio bound the median with
  // probability 1 - 2 P(X <= k - 1), X ~ Binomial(n, 1/2): the largest k
  // that keeps that at 95% or more.
  const int n = out.rounds;
  int k = 0;
  while (k + 1 <= n / 2 && 2 * binomial_cdf_half(n, k) <= 0.05) ++k;
  if (k > 0) {
    out.has_interval = true;
    out.low = ratios[k - 1];
    out.high = ratios[n - k];
  }
  const int signs = out.a_faster + out.b_faster;
  out.sign_test_p = std::min(1.0, 2 * binomial_cdf_half(signs, std::min(out.a_faster, out.b_faster)));
  return out;
}

}  // namespace tunectl::runtime
