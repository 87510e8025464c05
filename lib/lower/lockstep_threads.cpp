#include "lower/lockstep_threads.h"

#include <sys/mman.h>

#include <boost/context/fiber.hpp>
#include <exception>
#include <memory>
#include <vector>

#include "ir/error.h"

#if defined(__SANITIZE_ADDRESS__)
#define TUNECTL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TUNECTL_ASAN 1
#endif
#endif
#ifdef TUNECTL_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace tunectl::lower {

namespace ctx = boost::context;

namespace {

constexpr size_t kStackBytes = 256 << 10;

// Each fiber's stack: its slice of the block's mapping, reused by every run.
struct SliceStack {
  char* base;
  ctx::stack_context allocate() {
    ctx::stack_context s;
    s.size = kStackBytes;
    s.sp = base + kStackBytes;  // stacks grow down
    return s;
  }
  void deallocate(ctx::stack_context&) noexcept {}
};

// AddressSanitizer must hear of every switch of stacks, or it takes a
// fiber's frames for overflows of the stack it thinks is running.
// `save` keeps the leaving stack's fake frames (null: it ends).
void start_switch([[maybe_unused]] void** save, [[maybe_unused]] const void* bottom,
                  [[maybe_unused]] size_t size) {
#ifdef TUNECTL_ASAN
  __sanitizer_start_switch_fiber(save, bottom, size);
#endif
}
void finish_switch([[maybe_unused]] void* save, [[maybe_unused]] const void** old_bottom,
                   [[maybe_unused]] size_t* old_size) {
#ifdef TUNECTL_ASAN
  __sanitizer_finish_switch_fiber(save, old_bottom, old_size);
#endif
}

struct Fiber {
  ctx::fiber context;  // where it resumes; empty once it ended
  bool started = false;
  std::exception_ptr error;
  void* fake_stack = nullptr;
};

}  // namespace

struct LockstepThreads::Impl {
  size_t max_threads = 0;
  char* stacks = nullptr;
  std::vector<Fiber> fibers;
  size_t running = 0;
  ctx::fiber scheduler;  // resumes run() from the running fiber
  const void* scheduler_bottom = nullptr;
  size_t scheduler_size = 0;
  void* scheduler_fake_stack = nullptr;

  void* stack_bottom(size_t i) const { return stacks + i * kStackBytes; }

  // From run(): runs fiber i until its next barrier or its end.
  void resume(size_t i) {
    running = i;
    fibers[i].started = true;
    start_switch(&scheduler_fake_stack, stack_bottom(i), kStackBytes);
    fibers[i].context = std::move(fibers[i].context).resume();
    finish_switch(scheduler_fake_stack, nullptr, nullptr);
  }

  // From the running fiber: back to run() until the next round.
  void yield() {
    Fiber& f = fibers[running];
    start_switch(&f.fake_stack, scheduler_bottom, scheduler_size);
    try {
      scheduler = std::move(scheduler).resume();
    } catch (const ctx::detail::forced_unwind&) {
      finish_switch(f.fake_stack, &scheduler_bottom, &scheduler_size);  // discard() switched here
      throw;
    }
    finish_switch(f.fake_stack, &scheduler_bottom, &scheduler_size);
  }

  // Drops the fibers of the last run; those a failed run left waiting at a
  // barrier are unwound on their stacks, so their frames' objects are freed.
  void discard() {
    for (size_t i = 0; i < fibers.size(); ++i) {
      Fiber& f = fibers[i];
      if (!f.context) continue;
      if (f.started) start_switch(&scheduler_fake_stack, stack_bottom(i), kStackBytes);
      f.context = ctx::fiber();
      if (f.started) finish_switch(scheduler_fake_stack, nullptr, nullptr);
    }
    fibers.clear();
  }
};

LockstepThreads::LockstepThreads(size_t max_threads) : impl_(new Impl) {
  impl_->max_threads = max_threads;
  if (max_threads == 0) return;
  void* stacks = mmap(nullptr, max_threads * kStackBytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (stacks == MAP_FAILED) {
    delete impl_;
    system_fail("cannot make the stacks of a block's threads", "mmap", "", "out of address space");
  }
  impl_->stacks = static_cast<char*>(stacks);
}

LockstepThreads::~LockstepThreads() {
  impl_->discard();  // while the stacks exist
  if (impl_->stacks) munmap(impl_->stacks, impl_->max_threads * kStackBytes);
  delete impl_;
}

void LockstepThreads::run(size_t n, const std::function<void(size_t)>& body,
                          const std::function<void()>& after_barrier) {
  internal_check(n <= impl_->max_threads, "lockstep threads: ", n, " threads, stacks for ", impl_->max_threads);
  Impl& b = *impl_;
  b.discard();
  b.fibers.resize(n);
  for (size_t i = 0; i < n; ++i) {
    b.fibers[i].context = ctx::fiber(std::allocator_arg, SliceStack{b.stacks + i * kStackBytes},
                                     [&b, &body, i](ctx::fiber&& scheduler) {
                                       finish_switch(nullptr, &b.scheduler_bottom, &b.scheduler_size);
                                       b.scheduler = std::move(scheduler);
                                       try {
                                         body(i);
                                       } catch (const ctx::detail::forced_unwind&) {
                                         // discard(): Boost.Context's unwinding must go on
                                         start_switch(nullptr, b.scheduler_bottom, b.scheduler_size);
                                         throw;
                                       } catch (...) {
                                         b.fibers[i].error = std::current_exception();
                                       }
                                       start_switch(nullptr, b.scheduler_bottom, b.scheduler_size);
                                       return std::move(b.scheduler);
                                     });
  }
  // A failed run unwinds the threads still waiting at a barrier before it
  // throws: their frames use what the caller made for this run (the
  // emulator's per-thread state), which the exception is about to free.
  std::exception_ptr failure;
  try {
    for (;;) {
      size_t ended = 0;
      for (size_t i = 0; i < n; ++i) {
        Fiber& f = b.fibers[i];
        if (f.context) b.resume(i);
        if (f.error) std::rethrow_exception(f.error);
        ended += f.context ? 0 : 1;
      }
      if (ended == n) return;
      if (ended > 0)
        throw DivergentBarrier("a barrier that not every thread reaches (a thread ended while others wait at it)");
      if (after_barrier) after_barrier();
    }
  } catch (...) {
    failure = std::current_exception();
  }
  b.discard();  // outside the handler: the unwinding throws on the fibers' stacks
  std::rethrow_exception(failure);
}

void LockstepThreads::barrier() { impl_->yield(); }

}  // namespace tunectl::lower
