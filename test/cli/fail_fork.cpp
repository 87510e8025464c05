// A planted operating-system failure for failures_test.sh: preloaded into
// tunectl (LD_PRELOAD), it makes every fork() fail with EAGAIN, as when the
// process limit is reached.
#include <cerrno>

#include <sys/types.h>

extern "C" pid_t fork() {
  errno = EAGAIN;
  return -1;
}
