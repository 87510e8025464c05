// The signal handler behind InterruptGuard (interrupt.h).
#include "tune/interrupt.h"

#include <atomic>

namespace tunectl::tune {
namespace {

// Lock-free, so setting it is async-signal-safe.
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_interrupt(int) { g_interrupted.store(true); }

}  // namespace

InterruptGuard::InterruptGuard() {
  g_interrupted.store(false);
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  // No SA_RESTART: a blocking call returns EINTR and the loop looks at the
  // flag sooner. No SA_RESETHAND either: tools like `timeout -s INT` deliver
  // the signal twice (to the process and to its group), and a second
  // delivery must not kill the run before its kernels are written.
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

bool InterruptGuard::interrupted() const { return g_interrupted.load(); }

}  // namespace tunectl::tune
