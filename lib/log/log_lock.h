// One writer per tuning log. Two `tune` runs appending to one log would each
// resume from what the other has not written yet and measure the same
// programs twice, so a run holds an advisory lock (flock(2)) on the log from
// before it reads it until it ends. A second process either stops with a
// message naming the process that holds the log, or waits for it.
//
// Within one process the lock is shared: the tune command holds it for the
// whole run, and the LogWriter it opens later takes it again (a count per
// file). The lock dies with the process, kill -9 included; forked
// measurement workers inherit it, and die with their parent.
#pragma once

#include <sys/types.h>

#include <string>

namespace tunectl::log {

class LogLock {
 public:
  // Opens path (creating it and its folder; SystemError naming the path when
  // that fails) and locks it. When another process holds it: with wait, says
  // so on stderr and blocks until it is free; without, UserError naming the
  // process and --wait-for-log.
  LogLock(const std::string& path, bool wait);
  ~LogLock();
  LogLock(const LogLock&) = delete;
  LogLock& operator=(const LogLock&) = delete;

 private:
  std::string path_;
  dev_t device_ = 0;
  ino_t inode_ = 0;
};

// "process 1234 (tunectl tune m.onnx)" for the process holding an flock on
// the file open as fd, from /proc/locks; "another process" when not found.
std::string lock_holder(int fd);

}  // namespace tunectl::log
