// The threads of one GPU block run on one CPU thread, as fibers (Boost.Context)
// in lockstep between barriers: each round resumes every thread that has
// not ended, and it runs until it reaches a barrier or ends; a round where
// some threads wait at a barrier and others have ended is a barrier that
// not every thread reaches. The GPU emulator runs loop IR this way
// (gpu_emulator.h), and the tests run generated CUDA C this way
// (test/support/cuda_on_host.h).
#pragma once

#include <cstddef>
#include <functional>
#include <stdexcept>

namespace tunectl::lower {

// A barrier reached by some threads of a block while others had ended.
struct DivergentBarrier : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class LockstepThreads {
 public:
  // Stacks for up to max_threads threads (256 KiB each, mapped without
  // reserving memory), reused by every run.
  explicit LockstepThreads(size_t max_threads);
  ~LockstepThreads();
  LockstepThreads(const LockstepThreads&) = delete;
  LockstepThreads& operator=(const LockstepThreads&) = delete;

  // Runs body(0) .. body(n - 1), n <= max_threads, each as a thread of one
  // block. `after_barrier` is called once each time all threads have passed
  // a barrier. Rethrows the first exception a thread throws; throws
  // DivergentBarrier for a barrier not every thread reaches. Either way the
  // other threads are unwound first (their frames' objects destroyed), so
  // what body's threads share may be freed once run returns or throws.
  void run(size_t n, const std::function<void(size_t thread)>& body,
           const std::function<void()>& after_barrier = nullptr);

  // Called by a running thread: waits at the block's barrier.
  void barrier();

  struct Impl;  // the fibers and their stacks (lockstep_threads.cpp)

 private:
  Impl* impl_;
};

}  // namespace tunectl::lower
