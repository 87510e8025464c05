#include "runtime/timer.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "ir/error.h"
#include "runtime/scratch_pool.h"
#include "runtime/thread_pool.h"

namespace tunectl::runtime {

namespace {
double now_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}
}  // namespace

double Timing::median() const {
  internal_check(!seconds_per_call.empty(), "median of no timings");
  std::vector<double> v = seconds_per_call;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double Timing::min() const { return *std::min_element(seconds_per_call.begin(), seconds_per_call.end()); }
double Timing::max() const { return *std::max_element(seconds_per_call.begin(), seconds_per_call.end()); }

void flush_cpu_cache() {
  // 64 MiB covers the L3 of the reference machine (32 MiB) with margin.
  // Read, never written: a forked process shares the parent's pages instead
  // of copying 64 MiB (on a virtual machine its first read of each still
  // faults, ~90 ms in all: measurement flushes its buffers instead).
  static const std::vector<uint8_t> sink(64 << 20, 1);
  uint8_t acc = 0;
  for (size_t i = 0; i < sink.size(); i += 64) acc = static_cast<uint8_t>(acc + sink[i]);
  volatile uint8_t keep = acc;
  (void)keep;
}

void evict_private_caches(int64_t bytes) {
  // Read, never written, as flush_cpu_cache's buffer (shared after a fork).
  static std::vector<uint8_t> scratch;
  const int threads = num_threads();
  const size_t want = static_cast<size_t>(bytes) * static_cast<size_t>(threads);
  if (scratch.size() < want) scratch.assign(want, 1);
  struct Closure {
    const uint8_t* data;
    size_t bytes;
    std::vector<uint8_t> sums;  // one per thread, so the reads are not optimized away
  } c{scratch.data(), static_cast<size_t>(bytes), std::vector<uint8_t>(threads, 0)};
  // One iteration per thread: the pool runs iteration w on its worker w (a
  // loop of one part per worker is not shared out, thread_pool.cpp).
  tunectl_parallel_for(
      [](void* p, int64_t begin, int64_t end) {
        auto* c = static_cast<Closure*>(p);
        for (int64_t t = begin; t < end; ++t) {
          uint8_t acc = 0;
          const uint8_t* block = c->data + static_cast<size_t>(t) * c->bytes;
          for (size_t i = 0; i < c->bytes; i += 64) acc = static_cast<uint8_t>(acc + block[i]);
          c->sums[t] = acc;
        }
      },
      &c, threads);
  volatile uint8_t keep = c.sums[0];
  (void)keep;
}

std::pair<int64_t, int64_t> handed_over_share(int64_t plane_bytes, int t, int threads) {
  return {plane_bytes * t / threads, plane_bytes * (t + 1) / threads};
}

HandedOver handed_over_by_rows(void* data, size_t bytes, const std::vector<int64_t>& shape) {
  return {{static_cast<std::byte*>(data), bytes}, shape.size() >= 4 ? shape[0] * shape[1] : 1};
}

void hand_over(const std::vector<HandedOver>& buffers) {
  if (buffers.empty()) return;
  struct Closure {
    const std::vector<HandedOver>* buffers;
    int threads;
  } c{&buffers, num_threads()};
  // One iteration per thread: the pool runs iteration w on its worker w, as
  // it runs part w of every kernel's parallel loop when no worker lags.
  tunectl_parallel_for(
      [](void* p, int64_t begin, int64_t end) {
        const auto* c = static_cast<const Closure*>(p);
        for (int64_t t = begin; t < end; ++t) {
          for (const HandedOver& b : *c->buffers) {
            const int64_t planes = std::max<int64_t>(1, b.planes);
            const int64_t plane = static_cast<int64_t>(b.bytes.size()) / planes;
            const auto [first, last] = handed_over_share(plane, static_cast<int>(t), c->threads);
            for (int64_t k = 0; k < planes; ++k) {
              volatile std::byte* base = b.bytes.data() + k * plane;
              // The share's first byte, then the start of each later line.
              for (int64_t i = first; i < last; i = (i / 64 + 1) * 64) base[i] = base[i];
            }
          }
        }
      },
      &c, c.threads);
}

void flush_buffers(const std::vector<std::span<const std::byte>>& buffers) {
#if defined(__x86_64__)
  constexpr uintptr_t kLine = 64;  // the cache line of every x86-64 CPU
  for (std::span<const std::byte> b : buffers) {
    if (b.empty()) continue;
    const uintptr_t end = reinterpret_cast<uintptr_t>(b.data()) + b.size();
    for (uintptr_t p = reinterpret_cast<uintptr_t>(b.data()) & ~(kLine - 1); p < end; p += kLine) {
      _mm_clflush(reinterpret_cast<const void*>(p));
    }
  }
  _mm_mfence();  // the evictions are done before the timed calls start
#else
  (void)buffers;
  flush_cpu_cache();
#endif
}

TimingOptions flushing_only(TimingOptions options, std::vector<std::span<const std::byte>> buffers) {
  options.flush_cache = options.flush_cache && !buffers.empty();
  options.flush_buffers = std::move(buffers);
  return options;
}

Timing time_function(const std::function<void()>& fn, const TimingOptions& options) {
  return time_interleaved({fn}, options).front();
}

std::vector<Timing> time_interleaved(const std::vector<std::function<void()>>& fns, const TimingOptions& options) {
  return time_interleaved(fns, std::vector<TimingOptions>(fns.size(), options));
}

std::vector<Timing> time_interleaved(const std::vector<std::function<void()>>& fns,
                                     const std::vector<TimingOptions>& per_fn) {
  internal_check(per_fn.size() == fns.size(), "timing: ", per_fn.size(), " options for ", fns.size(), " functions");
  if (fns.empty()) return {};
  const int repeats = per_fn.front().repeats;
  internal_check(repeats > 0, "timing needs at least one repeat");
  // Only the blocks these functions use stay pooled, and get evicted.
  if (std::any_of(per_fn.begin(), per_fn.end(), [](const TimingOptions& o) { return o.evict_scratch; }))
    release_idle_scratch();
  std::vector<int> number;
  for (size_t f = 0; f < fns.size(); ++f) {
    double start = now_seconds();
    fns[f]();  // warm-up, also the first estimate of a call's duration
    double one_call = std::max(now_seconds() - start, 1e-9);
    number.push_back(std::max(1, static_cast<int>(per_fn[f].min_repeat_seconds / one_call)));
  }
  std::vector<Timing> timings(fns.size());
  for (int r = 0; r < repeats; ++r) {
    for (size_t f = 0; f < fns.size(); ++f) {
      const TimingOptions& options = per_fn[f];
      if (options.flush_cache && !options.flush_buffers.empty()) {
        flush_buffers(options.flush_buffers);
      } else if (options.flush_cache) {
        flush_cpu_cache();
      }
      if (options.evict_scratch) flush_buffers(idle_scratch());
      if (options.evict_private_bytes > 0) evict_private_caches(options.evict_private_bytes);
      hand_over(options.handed_over);
      if (options.settle_seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(options.settle_seconds));
      double t0 = now_seconds();
      for (int i = 0; i < number[f]; ++i) fns[f]();
      timings[f].seconds_per_call.push_back((now_seconds() - t0) / number[f]);
    }
  }
  return timings;
}

}  // namespace tunectl::runtime
