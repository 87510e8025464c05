// Timing of kernels for benchmarks and measurement: one warm-up call, then
// repeats of `number` calls each, with `number` raised until a repeat lasts
// at least min_repeat_seconds; the last-level cache is flushed between
// repeats so every repeat starts cold, as Ansor/TVM measure on CPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

namespace tunectl::runtime {

// A buffer a timed kernel reads as its producer inside a model leaves it:
// `planes` equal planes (N x C/b of an NCHW[x]c image, N x C of NCHW; 1 for
// other tensors), each plane's rows dealt out to the pool's threads in
// contiguous shares, as a parallel loop over the rows splits them
// (search/sketch_annotation.cpp, rows_first).
struct HandedOver {
  std::span<std::byte> bytes;
  int64_t planes = 1;
};

struct TimingOptions {
  int repeats = 5;                   // repeats whose median is reported
  double min_repeat_seconds = 0.1;  // each repeat runs at least this long
  bool flush_cache = true;          // evict caches between repeats
  // The buffers the timed function reads and writes. When given, a flush
  // evicts their cache lines alone (clflush on x86, as TVM's CPU cache flush
  // does) instead of reading 64 MiB through the caches: a tenth of a
  // millisecond instead of 2.5 ms, and instead of ~90 ms of page faults in a
  // process forked since the sweep buffer was made.
  std::vector<std::span<const std::byte>> flush_buffers;
  // > 0: before each repeat every thread of the pool (thread_pool.h) reads
  // this many bytes of a scratch block of its own (twice its L2), which
  // empties its private caches into the L3: the timed calls find their
  // data there at best, as a kernel inside a model finds weights that fit
  // the L3 but not the L2 (tune/constant_footprint.h). Independent of
  // flush_cache.
  int64_t evict_private_bytes = 0;
  // Before each repeat, evict the idle blocks of the scratch pool
  // (scratch_pool.h): the heap intermediates a kernel gave back at the end
  // of its last call and gets back at the next. Inside a model other
  // kernels run between two calls of one and its intermediates come from
  // DRAM: light ResNet-50's first 3x3 convolution by Winograd, computed
  // stage by stage through megabytes of them, ran 1.5-1.9x its time alone
  // inside the model while they stayed in the L3 between timed calls.
  bool evict_scratch = false;
  // Before each repeat (after the flush and the eviction) every thread of
  // the pool rewrites its share of these buffers (hand_over), so that the
  // timed calls find them in the caches of the threads that wrote them, as
  // a kernel finds the activations its producer has just written: a thread
  // that reads rows another thread wrote waits for the other core's caches
  // (on 2 vCPUs of a Zen 5, 1 MB read after the other thread wrote it took
  // 16.6 us against 5.9 us after it wrote it itself). Timed without this,
  // every input was as warm in each core as the last call had left it.
  std::vector<HandedOver> handed_over;
  // Sleep before each repeat, so that the idle threads of another runtime
  // (OpenMP's workers spin for milliseconds after a parallel region) have
  // gone to sleep before the timed calls start.
  double settle_seconds = 0;
};

struct Timing {
  std::vector<double> seconds_per_call;  // one entry per repeat
  double median() const;
  double min() const;
  double max() const;
};

Timing time_function(const std::function<void()>& fn, const TimingOptions& options = {});

// Times several functions side by side: repeat r of each runs right after
// repeat r of the one before, so a burst of load on a shared machine hits
// all of them alike and their ratio stays fair. One Timing per function.
std::vector<Timing> time_interleaved(const std::vector<std::function<void()>>& fns, const TimingOptions& options = {});
// The same with options of each function's own (what to flush and hand over
// before its calls: programs with differently packed constants); the
// repeats are the first one's.
std::vector<Timing> time_interleaved(const std::vector<std::function<void()>>& fns,
                                     const std::vector<TimingOptions>& options);

// `options` with its flush limited to the cache lines of `buffers` (what a
// kernel reads that a model run would not have warmed: its constants), and
// no flush when there are none (an empty list would flush the whole cache).
TimingOptions flushing_only(TimingOptions options, std::vector<std::span<const std::byte>> buffers);

// Each thread of the pool reads `bytes` of a scratch block of its own (made
// on the first call, grown when asked for more; call it once before forking
// workers so they share it): TimingOptions::evict_private_bytes.
void evict_private_caches(int64_t bytes);

// A tensor of this shape as a rows-first producer leaves it: planes N x C
// (or N x C/b) when it has 4 axes or more, else one plane.
HandedOver handed_over_by_rows(void* data, size_t bytes, const std::vector<int64_t>& shape);
// Each thread t of the pool's T rewrites (one byte per cache line, its own
// value) share t of every plane of each buffer: TimingOptions::handed_over.
void hand_over(const std::vector<HandedOver>& buffers);
// The bytes [begin, end) of a plane of plane_bytes that thread t of T owns.
std::pair<int64_t, int64_t> handed_over_share(int64_t plane_bytes, int t, int threads);

// Evicts the caches by reading a buffer larger than the last level (made on
// the first call; call it once before forking workers so they share it).
void flush_cpu_cache();

// Evicts the cache lines of these buffers from every level (x86: clflush);
// where the instruction set has no such flush, flush_cpu_cache().
void flush_buffers(const std::vector<std::span<const std::byte>>& buffers);

}  // namespace tunectl::runtime
