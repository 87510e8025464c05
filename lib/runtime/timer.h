// Timing of kernels for benchmarks and measurement: one warm-up call, then
// repeats of `number` calls each, with `number` raised until a repeat lasts
// at least min_repeat_seconds; the last-level cache is flushed between
// repeats so every repeat starts cold, as Ansor/TVM measure on CPU.
#pragma once

#include <functional>
#include <vector>

namespace tunectl::runtime {

struct TimingOptions {
  int repeats = 5;                   // repeats whose median is reported
  double min_repeat_seconds = 0.1;  // each repeat runs at least this long
  bool flush_cache = true;          // evict caches between repeats
};

struct Timing {
  std::vector<double> seconds_per_call;  // one entry per repeat
  double median() const;
  double min() const;
  double max() const;
};

Timing time_function(const std::function<void()>& fn, const TimingOptions& options = {});

// Evicts the caches by streaming over a buffer larger than the last level.
void flush_cpu_cache();

}  // namespace tunectl::runtime
