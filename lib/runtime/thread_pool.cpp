#include "runtime/thread_pool.h"

#include <pthread.h>
#include <new>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tunectl::runtime {
namespace {

using Body = void (*)(void*, int64_t, int64_t);

// True on a thread that is inside a parallel loop (a worker, or the caller
// while it runs its own chunk): a nested parallel loop then runs serially,
// which also makes a re-entrant call into the busy pool impossible.
thread_local bool t_in_parallel = false;

int default_num_threads() {
  if (const char* env = std::getenv("TUNECTL_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// A parallel loop runs in parts: each worker owns a contiguous run of them,
// the same run in every loop of the same length (kernel after kernel, a
// thread meets the data it wrote), and takes its parts from the front. A
// worker done with its own takes the others' from the back. On a quiet
// machine the owners run nearly all their parts; on a shared one, where the
// host stops a vCPU for a while, the other thread takes over the stopped
// one's remaining parts instead of waiting for them (one stopped before it
// started has all of them taken). A loop of one part per worker is not
// shared out: one iteration per thread (timer.h's evictions and
// hand-overs) stays exactly one per thread.
// Two parts per worker: light SqueezeNet with a busy loop on one of the 2
// cores ran 1.13x as fast as with one part each, on a quiet machine 1.00x
// (four parts: 1.13x and 0.99x).
constexpr int64_t kPartsPerWorker = 2;

// The state of one worker's run of parts, in one word: the job's generation
// (31 bits), whether other workers may take its parts (1), the next part
// from the front (16) and the end from the back (16). A worker still busy
// with an earlier job sees another generation and takes nothing.
struct RunWord {
  uint32_t generation;
  bool shared;
  uint32_t front, back;

  static RunWord from(uint64_t w) {
    return {static_cast<uint32_t>(w >> 33), ((w >> 32) & 1) != 0, static_cast<uint32_t>((w >> 16) & 0xffff),
            static_cast<uint32_t>(w & 0xffff)};
  }
  uint64_t bits() const {
    return (static_cast<uint64_t>(generation & 0x7fffffff) << 33) | (static_cast<uint64_t>(shared) << 32) |
           (static_cast<uint64_t>(front) << 16) | back;
  }
};

// Workers 1..size-1 wait for a new generation of work; the caller is worker
// 0. Workers spin briefly before sleeping so that back-to-back parallel
// loops (the common case inside one kernel) do not pay a futex wake-up each
// time.
class Pool {
 public:
  explicit Pool(int size) : size_(size), runs_(static_cast<size_t>(size)) {
    for (int w = 1; w < size_; ++w) workers_.emplace_back([this, w] { worker_loop(w); });
  }

  ~Pool() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }

  int size() const { return size_; }

  // Called with the pool's run mutex held, so one job runs at a time.
  void run(Body body, void* closure, int64_t n) {
    // Parts of at least one iteration, kPartsPerWorker per worker at most.
    const int64_t per_worker = std::clamp<int64_t>(n / size_, 1, kPartsPerWorker);
    const int64_t parts = std::min<int64_t>(n, size_ * per_worker);
    uint32_t generation = 0;
    {
      std::lock_guard lock(mu_);
      generation = static_cast<uint32_t>(generation_.load(std::memory_order_relaxed) + 1) & 0x7fffffff;
      for (int w = 0; w < size_; ++w) {
        const auto first = static_cast<uint32_t>(std::min<int64_t>(parts, w * per_worker));
        const auto last = static_cast<uint32_t>(std::min<int64_t>(parts, (w + 1) * per_worker));
        runs_[w].word.store(RunWord{generation, per_worker > 1, first, last}.bits(), std::memory_order_relaxed);
      }
      job_ = {body, closure, n, parts, generation};
      pending_.store(parts, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    t_in_parallel = true;
    work(0, job_);
    t_in_parallel = false;
    for (int spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
      if (spin < 4096) continue;
      std::unique_lock lock(mu_);
      done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
    }
  }

 private:
  struct Job {
    Body body = nullptr;
    void* closure = nullptr;
    int64_t n = 0;
    int64_t parts = 0;
    uint32_t generation = 0;
  };

  struct alignas(64) Run {
    std::atomic<uint64_t> word{0};
  };

  // Worker w's own parts from the front, then the others' from the back.
  void work(int w, const Job& job) {
    int64_t part = 0;
    while (take(w, job.generation, true, part)) run_part(job, part);
    for (int k = 1; k < size_; ++k) {
      const int v = (w + k) % size_;
      while (take(v, job.generation, false, part)) run_part(job, part);
    }
  }

  // Takes a part of worker v's run of this generation: its owner the next
  // from the front, another worker the last from the back of a shared run.
  bool take(int v, uint32_t generation, bool owner, int64_t& part) {
    std::atomic<uint64_t>& word = runs_[v].word;
    uint64_t bits = word.load(std::memory_order_acquire);
    for (;;) {
      RunWord r = RunWord::from(bits);
      if (r.generation != generation || r.front >= r.back) return false;
      if (!owner && !r.shared) return false;
      part = owner ? r.front++ : --r.back;
      if (word.compare_exchange_weak(bits, r.bits(), std::memory_order_acq_rel, std::memory_order_acquire))
        return true;
    }
  }

  void run_part(const Job& job, int64_t part) {
    const int64_t begin = job.n * part / job.parts;
    const int64_t end = job.n * (part + 1) / job.parts;
    if (begin < end) job.body(job.closure, begin, end);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard lock(mu_);
      done_.notify_one();
    }
  }

  void worker_loop(int w) {
    t_in_parallel = true;
    uint64_t seen = 0;
    for (;;) {
      uint64_t gen = generation_.load(std::memory_order_acquire);
      for (int spin = 0; gen == seen && spin < 4096; ++spin) {
        std::this_thread::yield();
        gen = generation_.load(std::memory_order_acquire);
      }
      if (gen == seen) {
        std::unique_lock lock(mu_);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
      }
      Job job;
      {
        // The job and the generation change together under mu_, so reading
        // both here pairs each job with exactly one generation.
        std::lock_guard lock(mu_);
        if (stop_) return;
        seen = generation_.load(std::memory_order_acquire);
        job = job_;
      }
      work(w, job);
    }
  }

  const int size_;
  std::vector<Run> runs_;  // one per worker
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int64_t> pending_{0};  // parts not yet run
  bool stop_ = false;
  Job job_;
};

struct PoolState {
  std::mutex run_mu;  // one parallel loop at a time across caller threads
  int requested = 0;  // 0: default_num_threads()
  std::unique_ptr<Pool> pool;
};

PoolState& state();

// A forked child (measurement workers fork one per candidate) inherits the
// pool object but none of its threads, and perhaps a lock held by a thread
// that no longer exists: give the child a fresh lock and no pool, so its
// first parallel loop starts workers of its own. The old pool is leaked on
// purpose: destroying it would join threads that do not exist in the child.
void reset_pool_in_child() {
  PoolState& s = state();
  new (&s.run_mu) std::mutex();
  (void)s.pool.release();
}

PoolState& state() {
  static PoolState s;
  static const bool fork_handler = pthread_atfork(nullptr, nullptr, reset_pool_in_child) == 0;
  (void)fork_handler;
  return s;
}

// At most kMaxThreads: a job's parts are numbered in 16 bits (RunWord).
constexpr int kMaxThreads = 4096;

int resolved_threads(const PoolState& s) {
  return std::min(kMaxThreads, s.requested > 0 ? s.requested : default_num_threads());
}

}  // namespace

void set_num_threads(int n) {
  auto& s = state();
  std::lock_guard lock(s.run_mu);
  s.requested = std::max(0, n);
  // A pool of the old size is rebuilt lazily by the next parallel loop.
  if (s.pool && s.pool->size() != resolved_threads(s)) s.pool.reset();
}

int num_threads() {
  auto& s = state();
  std::lock_guard lock(s.run_mu);
  return s.pool ? s.pool->size() : resolved_threads(s);
}

}  // namespace tunectl::runtime

extern "C" int tunectl_parallel_for(void (*body)(void* closure, int64_t begin, int64_t end), void* closure,
                                    int64_t n) {
  using namespace tunectl::runtime;
  if (n <= 0) return 0;
  if (t_in_parallel || n == 1) {
    body(closure, 0, n);
    return 0;
  }
  auto& s = state();
  std::lock_guard lock(s.run_mu);
  if (!s.pool) s.pool = std::make_unique<Pool>(resolved_threads(s));
  if (s.pool->size() == 1) {
    body(closure, 0, n);
    return 0;
  }
  s.pool->run(body, closure, n);
  return 0;
}
