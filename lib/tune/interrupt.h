// SIGINT/SIGTERM during tuning (tuner.h): while an InterruptGuard lives, the
// signals only set a flag the tuning loop and the Measurer poll (between
// candidates), so what is being measured still reaches the log and the run
// ends once the builds and the run in flight end (bounded by the Measurer's
// timeouts). Forked measure
// workers set SIGINT to ignored themselves (lib/measure/worker.cpp), and the
// Measurer's poll() treats EINTR as a wake-up.
#pragma once

#include <csignal>

namespace tunectl::tune {

class InterruptGuard {
 public:
  InterruptGuard();   // clears the flag, installs the handlers
  ~InterruptGuard();  // restores the handlers found
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  bool interrupted() const;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

}  // namespace tunectl::tune
