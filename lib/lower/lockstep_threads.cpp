#include "lower/lockstep_threads.h"

#include <sys/mman.h>
#include <ucontext.h>

#include <exception>
#include <vector>

#include "ir/error.h"

namespace tunectl::lower {

namespace {

constexpr size_t kStackBytes = 256 << 10;

struct Fiber {
  ucontext_t context{};
  bool done = false;
  std::exception_ptr error;
};

}  // namespace

struct LockstepThreads::Impl {
  size_t max_threads = 0;
  void* stacks = nullptr;
  ucontext_t scheduler{};
  std::vector<Fiber> fibers;
  size_t running = 0;
  const std::function<void(size_t)>* body = nullptr;
};

namespace {

// makecontext passes no pointers portably: the block being run.
thread_local LockstepThreads::Impl* current = nullptr;

void fiber_main() {
  LockstepThreads::Impl& b = *current;
  const size_t me = b.running;
  try {
    (*b.body)(me);
  } catch (...) {
    b.fibers[me].error = std::current_exception();
  }
  b.fibers[me].done = true;
  // Returning resumes uc_link: the scheduler.
}

}  // namespace

LockstepThreads::LockstepThreads(size_t max_threads) : impl_(new Impl) {
  impl_->max_threads = max_threads;
  if (max_threads == 0) return;
  impl_->stacks = mmap(nullptr, max_threads * kStackBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (impl_->stacks == MAP_FAILED) {
    delete impl_;
    system_fail("cannot make the stacks of a block's threads", "mmap", "", "out of address space");
  }
}

LockstepThreads::~LockstepThreads() {
  if (impl_->stacks) munmap(impl_->stacks, impl_->max_threads * kStackBytes);
  delete impl_;
}

void LockstepThreads::run(size_t n, const std::function<void(size_t)>& body,
                          const std::function<void()>& after_barrier) {
  internal_check(n <= impl_->max_threads, "lockstep threads: ", n, " threads, stacks for ", impl_->max_threads);
  Impl& b = *impl_;
  b.fibers.assign(n, Fiber{});
  b.body = &body;
  for (size_t i = 0; i < n; ++i) {
    Fiber& f = b.fibers[i];
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = static_cast<char*>(b.stacks) + i * kStackBytes;
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = &b.scheduler;
    makecontext(&f.context, fiber_main, 0);
  }
  Impl* outer = current;
  current = &b;
  struct Restore {
    Impl* outer;
    ~Restore() { current = outer; }
  } restore{outer};
  for (;;) {
    for (size_t i = 0; i < n; ++i) {
      if (b.fibers[i].done) continue;
      b.running = i;
      swapcontext(&b.scheduler, &b.fibers[i].context);
      if (b.fibers[i].error) std::rethrow_exception(b.fibers[i].error);
    }
    size_t ended = 0;
    for (const Fiber& f : b.fibers) ended += f.done ? 1 : 0;
    if (ended == n) return;
    if (ended > 0) throw DivergentBarrier("a barrier that not every thread reaches (a thread ended while others wait at it)");
    if (after_barrier) after_barrier();
  }
}

void LockstepThreads::barrier() {
  Impl& b = *impl_;
  swapcontext(&b.fibers[b.running].context, &b.scheduler);
}

}  // namespace tunectl::lower
