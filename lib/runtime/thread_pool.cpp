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

// Chunk c of n iterations split into `chunks` contiguous, near-equal parts.
void run_chunk(Body body, void* closure, int64_t n, int chunks, int c) {
  int64_t begin = n * c / chunks;
  int64_t end = n * (c + 1) / chunks;
  if (begin < end) body(closure, begin, end);
}

// Workers 1..size-1 wait for a new generation of work; the caller runs chunk
// 0. Workers spin briefly before sleeping so that back-to-back parallel loops
// (the common case inside one kernel) do not pay a futex wake-up each time.
class Pool {
 public:
  explicit Pool(int size) : size_(size) {
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
    int chunks = static_cast<int>(std::min<int64_t>(size_, n));
    {
      std::lock_guard lock(mu_);
      body_ = body;
      closure_ = closure;
      n_ = n;
      chunks_ = chunks;
      pending_.store(chunks - 1, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    t_in_parallel = true;
    run_chunk(body, closure, n, chunks, 0);
    t_in_parallel = false;
    for (int spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
      if (spin < 4096) continue;
      std::unique_lock lock(mu_);
      done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
    }
  }

 private:
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
        gen = generation_.load(std::memory_order_acquire);
      }
      Body body;
      void* closure;
      int64_t n;
      int chunks;
      {
        // The job fields and the generation change together under mu_, so
        // reading both here pairs each job with exactly one generation.
        std::lock_guard lock(mu_);
        if (stop_) return;
        seen = generation_.load(std::memory_order_acquire);
        body = body_;
        closure = closure_;
        n = n_;
        chunks = chunks_;
      }
      if (w >= chunks) continue;
      run_chunk(body, closure, n, chunks, w);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard lock(mu_);
        done_.notify_one();
      }
    }
  }

  const int size_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  bool stop_ = false;
  Body body_ = nullptr;
  void* closure_ = nullptr;
  int64_t n_ = 0;
  int chunks_ = 0;
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

int resolved_threads(const PoolState& s) { return s.requested > 0 ? s.requested : default_num_threads(); }

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
